/**
 * The generic, segment-level JSON of a transaction set: used when no implementation describes
 * the set, and read back by the writer. Shape (docs/x12.md, "Generic translation"):
 *
 *   { "segments": [ { "id": "BEG", "BEG01": "00", "BEG03": "PO123" },
 *                   { "id": "PO1", "PO106": "UP", "PO107": ["A", "B"] },
 *                   { "id": "REF", "REF04": { "repetitions": ["X", ["Y", "Z"]] } } ] }
 *
 * Keys are the segment id and the 2-digit element position; empty elements are left out; a
 * composite is an array of its components; a repeated element is `{repetitions: [...]}`.
 * ST and SE are not part of the document (the envelope writes them).
 */
import { TdxError } from '../errors.ts';
import type { Delimiters, TransactionSetRead } from './types.ts';
import type { ElementValue, SegmentToWrite } from './writer.ts';

export type GenericValue = string | string[] | { repetitions: (string | string[])[] };
export interface GenericSegment {
  id: string;
  [key: string]: GenericValue;
}
export interface GenericDocument {
  segments: GenericSegment[];
}

function valueOf(raw: string, d: Delimiters): GenericValue {
  const split = (v: string): string | string[] => (v.indexOf(d.component) < 0 ? v : v.split(d.component));
  if (d.repetition !== null && raw.indexOf(d.repetition) >= 0) return { repetitions: raw.split(d.repetition).map(split) };
  return split(raw);
}

/** The generic translation of a set (never fails). */
export function genericDocument(set: TransactionSetRead): GenericDocument {
  const d = set.interchange.delimiters;
  const segments: GenericSegment[] = [];
  for (const s of set.segments) {
    if (s.id === 'ST' || s.id === 'SE') continue;
    const out: GenericSegment = { id: s.id };
    s.elements.forEach((e, i) => {
      if (e !== '') out[`${s.id}${String(i + 1).padStart(2, '0')}`] = valueOf(e, d);
    });
    segments.push(out);
  }
  return { segments };
}

const keyPattern = /^([A-Z0-9]{2,3})([0-9]{2})$/;

/** Segments to write from a generic document. Throws TdxError `invalid_body` naming the bad entry. */
export function genericToSegments(doc: unknown): SegmentToWrite[] {
  const segments = (doc as { segments?: unknown } | null)?.segments;
  if (!Array.isArray(segments)) throw new TdxError('invalid_body', 'The document must be an object with a "segments" array.', { details: { field: 'document.segments' } });
  const out: SegmentToWrite[] = [];
  segments.forEach((s: unknown, index) => {
    const seg = s as Record<string, unknown> | null;
    const id = seg?.['id'];
    if (typeof id !== 'string' || !/^[A-Z0-9]{2,3}$/.test(id)) {
      throw new TdxError('invalid_body', `document.segments[${index}] has no valid "id".`, { details: { field: `document.segments[${index}].id` } });
    }
    if (id === 'ST' || id === 'SE') return;
    const elements: ElementValue[] = [];
    for (const [key, value] of Object.entries(seg!)) {
      if (key === 'id') continue;
      const m = keyPattern.exec(key);
      if (!m || m[1] !== id) throw new TdxError('invalid_body', `document.segments[${index}]: key "${key}" is not ${id}NN.`, { details: { field: `document.segments[${index}].${key}` } });
      const position = Number(m[2]);
      while (elements.length < position) elements.push('');
      elements[position - 1] = toElement(value, `document.segments[${index}].${key}`);
    }
    out.push({ id, elements });
  });
  return out;
}

function toElement(v: unknown, field: string): ElementValue {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v) && v.every((c) => typeof c === 'string')) return v;
  const reps = (v as { repetitions?: unknown } | null)?.repetitions;
  if (Array.isArray(reps) && reps.every((r) => typeof r === 'string' || (Array.isArray(r) && r.every((c) => typeof c === 'string')))) {
    return { repetitions: reps };
  }
  throw new TdxError('invalid_body', `${field} must be a string, an array of component strings or {repetitions: [...]}.`, { details: { field } });
}
