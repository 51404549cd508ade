/**
 * A transaction set as split by the reader. The set keeps its raw text (ST through SE, a slice of
 * the input when it arrived in one chunk, one joined copy otherwise) and splits it into segments
 * only when `segments` is first read, so an envelope scan never pays for element splitting.
 */
import type { GroupHeader, InterchangeHeader, Segment, TransactionSetRead } from './types.ts';

/** How the set's text is cut into segments. */
export interface SegmentFormat {
  readonly element: string;
  readonly segment: string;
  /** Trim trailing CR and spaces from each segment (newline terminators). */
  readonly trimEnd: boolean;
}

/** Characters skipped between segments: whitespace, NUL, Ctrl-Z and a byte order mark. */
export function isSkippable(c: number): boolean {
  return c === 10 || c === 13 || c === 32 || c === 9 || c === 11 || c === 12 || c === 0 || c === 0x1a || c === 0xfeff;
}

/**
 * Index of the first `code` in `text[from, to)`, else `to`. For short ranges (element values),
 * where `indexOf` would search on past `to` to the end of the text.
 */
export function charIn(text: string, code: number, from: number, to: number): number {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === code) return i;
  return to;
}

/** Cuts `text[start, end)` down to the segment proper (trailing CR/spaces for newline terminators). */
export function trimSegmentEnd(text: string, start: number, end: number, trimEnd: boolean): number {
  if (!trimEnd) return end;
  while (end > start) {
    const c = text.charCodeAt(end - 1);
    if (c !== 13 && c !== 32) break;
    end--;
  }
  return end;
}

export class SetRead implements TransactionSetRead {
  readonly interchange: InterchangeHeader;
  readonly group: GroupHeader;
  readonly transactionSetIdentifier: string;
  readonly controlNumber: string;
  /** ST through the last segment read (SE when present), terminators included between segments. */
  readonly text: string;
  /** Byte offset of ST in the input. */
  readonly byteOffset: number;
  /** Segments counted by the reader (ST and SE included). */
  readonly segmentCount: number;
  /** True when `text` is plain ASCII (byte offsets then equal character offsets). */
  readonly ascii: boolean;
  private readonly format: SegmentFormat;
  private cached: Segment[] | null = null;

  constructor(init: {
    interchange: InterchangeHeader;
    group: GroupHeader;
    transactionSetIdentifier: string;
    controlNumber: string;
    text: string;
    byteOffset: number;
    segmentCount: number;
    ascii: boolean;
    format: SegmentFormat;
  }) {
    this.interchange = init.interchange;
    this.group = init.group;
    this.transactionSetIdentifier = init.transactionSetIdentifier;
    this.controlNumber = init.controlNumber;
    this.text = init.text;
    this.byteOffset = init.byteOffset;
    this.segmentCount = init.segmentCount;
    this.ascii = init.ascii;
    this.format = init.format;
  }

  /** The set's segments, split on first use and kept. */
  get segments(): readonly Segment[] {
    if (this.cached === null) this.cached = this.split();
    return this.cached;
  }

  private split(): Segment[] {
    const { element, segment: term, trimEnd } = this.format;
    const elCode = element.charCodeAt(0);
    const parts = this.text.split(term);
    const out: Segment[] = [];
    // character position of the current part in `text`, and the byte cursor for non-ASCII text
    let pos = 0;
    let cursorChar = 0;
    let cursorByte = this.byteOffset;
    for (let k = 0; k < parts.length; k++) {
      let part = parts[k]!;
      const start = pos;
      pos += part.length + 1;
      let lead = 0;
      let c = part.charCodeAt(0);
      while (lead < part.length && c !== elCode && isSkippable(c)) c = part.charCodeAt(++lead);
      if (lead > 0) part = part.slice(lead);
      if (trimEnd) part = part.slice(0, trimSegmentEnd(part, 0, part.length, true));
      if (part.length === 0) continue;
      let offset: number;
      if (this.ascii) offset = this.byteOffset + start + lead;
      else {
        cursorByte += Buffer.byteLength(this.text.slice(cursorChar, start + lead));
        cursorChar = start + lead;
        offset = cursorByte;
      }
      const elements = part.split(element);
      const id = elements.shift()!;
      out.push({ id, elements, position: out.length + 1, offset });
    }
    return out;
  }
}

/**
 * The text of a set, ST through its last segment: the reader's own text, or, for a set built
 * from segments alone, the segments joined with the interchange's delimiters.
 */
export function setText(set: TransactionSetRead): string {
  if (set instanceof SetRead) return set.text;
  const d = set.interchange.delimiters;
  let out = '';
  for (const s of set.segments) {
    out += s.id;
    for (const e of s.elements) out += d.element + e;
    out += d.segment;
  }
  return out;
}

/**
 * Element `position` (1-based) of the first segment `id` of a set, as read (undefined when the
 * segment or the element is absent). Reads the reader's text directly, without splitting the set
 * into segments.
 */
export function firstElement(set: TransactionSetRead, id: string, position: number): string | undefined {
  if (!(set instanceof SetRead)) return set.segments.find((s) => s.id === id)?.elements[position - 1];
  const t = set.text;
  const d = set.interchange.delimiters;
  const el = d.element;
  const term = d.segment;
  const trimEnd = term === '\n' || term === '\r';
  const n = t.length;
  let pos = 0;
  while (pos < n) {
    let c = t.charCodeAt(pos);
    while (pos < n && c !== el.charCodeAt(0) && isSkippable(c)) c = t.charCodeAt(++pos);
    if (pos >= n) break;
    let end = t.indexOf(term, pos);
    if (end < 0) end = n;
    const stop = trimSegmentEnd(t, pos, end, trimEnd);
    if (stop - pos > id.length && t.startsWith(id, pos) && t.charCodeAt(pos + id.length) === el.charCodeAt(0)) {
      let a = pos + id.length + 1;
      for (let k = 1; k < position; k++) {
        const next = charIn(t, el.charCodeAt(0), a, stop);
        if (next >= stop) return undefined;
        a = next + 1;
      }
      return t.slice(a, charIn(t, el.charCodeAt(0), a, stop));
    }
    pos = end + 1;
  }
  return undefined;
}

let bytesScratch = Buffer.allocUnsafe(1 << 16);

/**
 * The set's text as bytes (one byte per character) when it is known to be ASCII, for copying
 * values into JSON without reading the string character by character; null otherwise. The
 * buffer is reused by the next call: read it before calling again.
 */
export function asciiBytesOf(set: TransactionSetRead): Buffer | null {
  if (!(set instanceof SetRead) || !set.ascii) return null;
  const text = set.text;
  if (text.length > bytesScratch.length) bytesScratch = Buffer.allocUnsafe(Math.max(text.length, bytesScratch.length * 2));
  bytesScratch.write(text, 0, 'latin1');
  return bytesScratch;
}
