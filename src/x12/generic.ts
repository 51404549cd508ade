/**
 * The generic, segment-level JSON of a transaction set: the translation of a set no
 * implementation describes, the form of segments an implementation cannot place
 * (`unrecognized_segments`), and what the writer reads back. Shape (docs/x12.md, "Generic
 * translation"):
 *
 *   { "segments": [ { "id": "ST", "ST01": "850", "ST02": "0001" },
 *                   { "id": "BEG", "BEG01": "00", "BEG03": "PO123" },
 *                   { "id": "PO1", "PO106": "UP", "PO107": ["A", "B"] },
 *                   { "id": "REF", "REF04": { "repetitions": ["X", ["Y", "Z"]] } },
 *                   { "id": "SE", "SE01": "5", "SE02": "0001" } ] }
 *
 * Keys are the segment id and the 2-digit element position; values are the raw text; empty
 * elements are left out; a composite is an array of its components; a repeated element is
 * `{repetitions: [...]}`. ST and SE are kept as read; the writer takes ST from the envelope
 * settings and computes SE.
 */
import { TdxError } from '../errors.ts';
import { JsonOut, asciiBytes } from './json-out.ts';
import { charIn, isSkippable, setText, trimSegmentEnd } from './set-read.ts';
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

const keyCache = new Map<string, Uint8Array[]>();

/** Bytes of the element keys of a segment id (`,"BEG01":`, ...), built once per id. */
function keysOf(id: string, count: number): Uint8Array[] {
  let keys = keyCache.get(id);
  if (keys === undefined) {
    keys = [];
    if (keyCache.size < 4096) keyCache.set(id, keys);
  }
  while (keys.length < count) keys.push(asciiBytes(',' + JSON.stringify(`${id}${String(keys.length + 1).padStart(2, '0')}`) + ':'));
  return keys;
}

const COMMA = 44;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const REPETITIONS = asciiBytes('{"repetitions":[');
const ID = asciiBytes('{"id":');

/** `t[a, b)` as a string, or as a component list when it holds the component separator. */
function writeComposite(o: JsonOut, t: string, a: number, b: number, comp: number): void {
  if (o.plain(t, a, b, comp, comp)) return;
  o.byte(LBRACKET);
  let x = a;
  for (;;) {
    const y = charIn(t, comp, x, b);
    o.str(t, x, y);
    if (y >= b) break;
    o.byte(COMMA);
    x = y + 1;
  }
  o.byte(RBRACKET);
}

function writeValue(o: JsonOut, t: string, a: number, b: number, comp: number, rep: number): void {
  if (o.plain(t, a, b, comp, rep)) return;
  if (rep < 0 || charIn(t, rep, a, b) === b) {
    writeComposite(o, t, a, b, comp);
    return;
  }
  o.bytes(REPETITIONS);
  let x = a;
  for (;;) {
    const y = charIn(t, rep, x, b);
    writeComposite(o, t, x, y, comp);
    if (y >= b) break;
    o.byte(COMMA);
    x = y + 1;
  }
  o.byte(RBRACKET);
  o.byte(RBRACE);
}

/** Writes segment `t[pos, stop)` (id up to `sep`) in the generic shape. */
function writeSegment(o: JsonOut, t: string, pos: number, sep: number, stop: number, d: Delimiters): void {
  o.bytes(ID);
  o.str(t, pos, sep);
  if (sep < stop) {
    const el = d.element;
    const comp = d.component.charCodeAt(0);
    const rep = d.repetition === null ? -1 : d.repetition.charCodeAt(0);
    const id = t.slice(pos, sep);
    let keys = keyCache.get(id) ?? keysOf(id, 8);
    let i = 0;
    let a = sep + 1;
    for (;;) {
      let b = t.indexOf(el, a);
      if (b < 0 || b > stop) b = stop;
      if (b > a) {
        if (keys.length <= i) keys = keysOf(id, i + 1);
        o.bytes(keys[i]!);
        writeValue(o, t, a, b, comp, rep);
      }
      i++;
      if (b >= stop) break;
      a = b + 1;
    }
  }
  o.byte(RBRACE);
}

const segmentOut = new JsonOut();

/**
 * JSON text of one segment in the generic shape. The segment is `t[pos, stop)`; its id ends at
 * `sep` (the first element separator, or `stop`).
 */
export function genericSegmentJson(t: string, pos: number, sep: number, stop: number, d: Delimiters): string {
  segmentOut.reset();
  writeSegment(segmentOut, t, pos, sep, stop, d);
  return segmentOut.toString();
}

const SEGMENTS = asciiBytes('{"segments":[');
const documentOut = new JsonOut();

/**
 * The generic translation of a set written straight to JSON text, without building objects:
 * the hot path when a set has no implementation. `JSON.parse` of it is `genericDocument(set)`.
 */
export function genericJson(set: TransactionSetRead): string {
  const d = set.interchange.delimiters;
  const text = setText(set);
  const elCode = d.element.charCodeAt(0);
  const term = d.segment;
  const trimEnd = term === '\n' || term === '\r';
  const n = text.length;
  const o = documentOut;
  o.reset();
  o.bytes(SEGMENTS);
  let first = true;
  let pos = 0;
  while (pos < n) {
    let c = text.charCodeAt(pos);
    while (pos < n && c !== elCode && isSkippable(c)) c = text.charCodeAt(++pos);
    if (pos >= n) break;
    let end = text.indexOf(term, pos);
    if (end < 0) end = n;
    const stop = trimSegmentEnd(text, pos, end, trimEnd);
    if (stop > pos) {
      let sep = text.indexOf(d.element, pos);
      if (sep < 0 || sep > stop) sep = stop;
      if (!first) o.byte(COMMA);
      writeSegment(o, text, pos, sep, stop, d);
      first = false;
    }
    pos = end + 1;
  }
  o.byte(RBRACKET);
  o.byte(RBRACE);
  return o.toString();
}

/** The generic translation of a set as objects (never fails). */
export function genericDocument(set: TransactionSetRead): GenericDocument {
  return JSON.parse(genericJson(set)) as GenericDocument;
}

const keyPattern = /^([A-Z][A-Z0-9]{1,2})([0-9]{2})$/;

/**
 * A segment id: two or three capital letters or digits, the first a letter. The reader keeps a
 * segment with any other id as read (validation reports it, AK3 code 1); the writer refuses it.
 */
export function isSegmentId(id: string): boolean {
  if (id.length < 2 || id.length > 3) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const upper = c >= 65 && c <= 90;
    if (!(upper || (i > 0 && c >= 48 && c <= 57))) return false;
  }
  return true;
}

function invalid(path: string, message: string): never {
  throw new TdxError('x12_document_invalid', `${path}: ${message}`, { details: { path } });
}

/**
 * One segment of the generic shape, read back for writing (`path` names it in errors). Throws
 * TdxError `x12_document_invalid` naming the bad entry.
 */
export function genericSegmentOf(value: unknown, path: string): SegmentToWrite {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid(path, 'must be a segment object {"id": "XX", "XX01": ...}');
  const seg = value as Record<string, unknown>;
  const id = seg['id'];
  if (typeof id !== 'string' || !isSegmentId(id)) invalid(`${path}.id`, `${JSON.stringify(id)} is not a segment id (two or three capital letters or digits, the first a letter)`);
  const elements: ElementValue[] = [];
  for (const key of Object.keys(seg)) {
    if (key === 'id') continue;
    const m = keyPattern.exec(key);
    if (!m || m[1] !== id || m[2] === '00') invalid(`${path}.${key}`, `is not an element key ${id}NN`);
    const position = Number(m[2]);
    while (elements.length < position) elements.push('');
    elements[position - 1] = toElement(seg[key], `${path}.${key}`);
  }
  return { id, elements };
}

/**
 * Segments to write from a generic document, ST and SE left out (the envelope writes them).
 * Throws TdxError `x12_document_invalid` naming the bad entry (`$.segments[2].BEG07`).
 */
export function genericToSegments(doc: unknown): SegmentToWrite[] {
  const segments = (doc as { segments?: unknown } | null)?.segments;
  if (!Array.isArray(segments)) invalid('$.segments', 'the document must be an object with a "segments" array');
  const out: SegmentToWrite[] = [];
  for (let i = 0; i < segments.length; i++) {
    const s = genericSegmentOf(segments[i], `$.segments[${i}]`);
    if (s.id !== 'ST' && s.id !== 'SE') out.push(s);
  }
  return out;
}

function toElement(v: unknown, path: string): ElementValue {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (Array.isArray(v) && v.every((c) => typeof c === 'string')) return v;
  const reps = (v as { repetitions?: unknown } | null)?.repetitions;
  if (Array.isArray(reps) && reps.every((r) => typeof r === 'string' || (Array.isArray(r) && r.every((c) => typeof c === 'string')))) {
    return { repetitions: reps };
  }
  return invalid(path, 'must be a string, an array of component strings or {"repetitions": [...]}');
}
