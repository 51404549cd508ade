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

const keyCache = new Map<string, string[]>();

/** Element keys of a segment id ("BEG01", "BEG02", ...), built once per id. */
function keysOf(id: string, count: number): string[] {
  let keys = keyCache.get(id);
  if (keys === undefined) {
    keys = [];
    keyCache.set(id, keys);
  }
  while (keys.length < count) keys.push(`${id}${String(keys.length + 1).padStart(2, '0')}`);
  return keys;
}

/** The generic translation of a set (never fails). */
export function genericDocument(set: TransactionSetRead): GenericDocument {
  const d = set.interchange.delimiters;
  const segments: GenericSegment[] = [];
  for (const s of set.segments) {
    if (s.id === 'ST' || s.id === 'SE') continue;
    const out: GenericSegment = { id: s.id };
    const elements = s.elements;
    const keys = keysOf(s.id, elements.length);
    for (let i = 0; i < elements.length; i++) {
      const e = elements[i]!;
      if (e !== '') out[keys[i]!] = valueOf(e, d);
    }
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

/** Characters that JSON strings must escape. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON must escape
const needsEscape = /["\\\u0000-\u001f\u2028\u2029]/;

function jsonString(v: string, escape: boolean): string {
  return escape ? JSON.stringify(v) : '"' + v + '"';
}

function jsonComposite(v: string, comp: string, escape: boolean): string {
  if (v.indexOf(comp) < 0) return jsonString(v, escape);
  return '[' + v.split(comp).map((c) => jsonString(c, escape)).join(',') + ']';
}

/**
 * The generic translation written straight to JSON text, equal to
 * `JSON.stringify(genericDocument(set))` but without building the objects: the hot path of
 * inbound translation, which stores and delivers JSON text.
 */
export function genericJson(set: TransactionSetRead): string {
  const text = (set as { text?: unknown }).text;
  if (typeof text !== 'string') return JSON.stringify(genericDocument(set));
  const d = set.interchange.delimiters;
  const el = d.element;
  const term = d.segment;
  const comp = d.component;
  const rep = d.repetition;
  const trimEnd = term === '\n' || term === '\r';
  const n = text.length;
  let out = '{"segments":[';
  let first = true;
  let pos = 0;
  while (pos < n) {
    let c = text.charCodeAt(pos);
    while (pos < n && (c === 10 || c === 13 || c === 32 || c === 9 || c === 0 || c === 0x1a || c === 0xfeff) && c !== el.charCodeAt(0)) c = text.charCodeAt(++pos);
    if (pos >= n) break;
    let end = text.indexOf(term, pos);
    if (end < 0) end = n;
    let stop = end;
    if (trimEnd) while (stop > pos && (text.charCodeAt(stop - 1) === 13 || text.charCodeAt(stop - 1) === 32)) stop--;
    let sep = text.indexOf(el, pos);
    if (sep < 0 || sep > stop) sep = stop;
    const id = text.slice(pos, sep);
    if (id === 'ST' || id === 'SE') {
      pos = end + 1;
      continue;
    }
    const seg = text.slice(pos, stop);
    const escape = needsEscape.test(seg);
    const hasComp = seg.indexOf(comp) >= 0;
    const hasRep = rep !== null && seg.indexOf(rep) >= 0;
    out += (first ? '{"id":' : ',{"id":') + jsonString(id, escape);
    first = false;
    let i = 0;
    let a = sep + 1;
    let keys: string[] | null = null;
    while (a <= stop && sep < stop) {
      let b = text.indexOf(el, a);
      if (b < 0 || b > stop) b = stop;
      i++;
      if (b > a) {
        keys ??= keyCache.get(id) ?? keysOf(id, 1);
        if (keys.length < i) keys = keysOf(id, i);
        const v = text.slice(a, b);
        let json: string;
        if (hasRep && v.indexOf(rep) >= 0) json = '{"repetitions":[' + v.split(rep).map((r) => (hasComp ? jsonComposite(r, comp, escape) : jsonString(r, escape))).join(',') + ']}';
        else json = hasComp ? jsonComposite(v, comp, escape) : jsonString(v, escape);
        out += ',"' + keys[i - 1]! + '":' + json;
      }
      if (b >= stop) break;
      a = b + 1;
    }
    out += '}';
    pos = end + 1;
  }
  return out + ']}';
}
