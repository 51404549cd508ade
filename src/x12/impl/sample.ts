/**
 * A minimal conforming transaction set of an implementation, for checking what a mapping does
 * with what translation gives: every must-use segment and loop once (a loop with its beginning
 * segment), each with its must-use elements and the ones its syntax notes then require, every
 * value valid for its type, length and code list (the first allowed code). Optional content is
 * left out, so a mapping run on it meets the least a partner may send.
 */
import { readInterchanges } from '../interchange.ts';
import type { TransactionSetRead } from '../types.ts';
import { writeInterchange, type SegmentToWrite } from '../writer.ts';
import type { ElementDef, Implementation, SegmentNode, StructureNode } from './model.ts';

/** The date and time written in sample values and envelopes. */
const SAMPLE_DATE = new Date(Date.UTC(2026, 0, 15, 12, 0, 0));
const SAMPLE_TEXT = 'SAMPLE';

/** A value of `e`'s type, length and code list. */
export function sampleValue(e: ElementDef): string {
  if (e.codes && e.codes.length > 0) return e.codes[0] as string;
  const min = Math.max(1, e.minLength);
  const fit = (s: string, pad: string): string => (s.length >= min ? s.slice(0, Math.max(min, Math.min(s.length, e.maxLength))) : s.padEnd(min, pad));
  switch (e.type) {
    case 'DT':
      return e.maxLength === 6 ? '260115' : '20260115';
    case 'TM':
      return fit('1200', '0');
    case 'ID':
      return 'Z'.repeat(min);
    case 'AN':
    case 'B':
    case 'composite':
      return fit(SAMPLE_TEXT, 'X');
    default:
      // R and N0..N9: a one followed by zeros, as many digits as the minimum length asks
      return `1${'0'.repeat(min - 1)}`;
  }
}

/** Components of a composite: its must-use ones, or its first used one when none is must-use. */
function compositeValue(e: ElementDef): string[] {
  const comps = e.components ?? [];
  const out: string[] = comps.map((c) => (c.usage === 'must_use' ? sampleValue(c) : ''));
  if (!out.some((v) => v.length > 0)) {
    const first = comps.findIndex((c) => c.usage !== 'not_used');
    if (first >= 0) out[first] = sampleValue(comps[first] as ElementDef);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

function elementValue(e: ElementDef): string | string[] {
  return e.components ? compositeValue(e) : sampleValue(e);
}

/** The elements of a segment: must-use ones, then whatever its syntax notes require of them. */
function sampleSegment(s: SegmentNode): SegmentToWrite {
  const defs = s.elements;
  const values: (string | string[] | null)[] = defs.map((e) => (e.usage === 'must_use' ? elementValue(e) : null));
  const has = (i: number): boolean => values[i] !== null && values[i] !== undefined;
  const fill = (i: number): boolean => {
    const e = defs[i];
    if (e === undefined || e.usage === 'not_used' || has(i)) return false;
    values[i] = elementValue(e);
    return true;
  };
  const notes = (s.syntax ?? []).map((n) => ({ kind: n[0] ?? '', at: (n.slice(1).match(/\d\d/g) ?? []).map((p) => Number(p) - 1) }));
  // each rule only adds elements, so this ends; a few passes settle notes that feed each other
  for (let pass = 0, changed = true; changed && pass < 8; pass++) {
    changed = false;
    for (const { kind, at } of notes) {
      const present = at.filter(has);
      const first = at[0] ?? -1;
      if (kind === 'P' && present.length > 0) for (const i of at) changed = fill(i) || changed;
      else if (kind === 'R' && present.length === 0) changed = at.some(fill) || changed;
      else if (kind === 'C' && has(first)) for (const i of at.slice(1)) changed = fill(i) || changed;
      else if (kind === 'L' && has(first) && !at.slice(1).some(has)) changed = at.slice(1).some(fill) || changed;
    }
  }
  const elements = values.map((v) => v ?? '');
  while (elements.length > 0 && elements[elements.length - 1] === '') elements.pop();
  return { id: s.id, elements };
}

function walk(nodes: readonly StructureNode[], inLoop: boolean, out: SegmentToWrite[]): void {
  nodes.forEach((n, i) => {
    if (n.usage === 'not_used' || (n.kind === 'segment' && (n.id === 'ST' || n.id === 'SE'))) return;
    // a loop's beginning segment always opens the instance
    if (!(inLoop && i === 0) && n.usage !== 'must_use') return;
    if (n.kind === 'segment') out.push(sampleSegment(n));
    else walk(n.children, true, out);
  });
}

/** The body (ST and SE excluded) of a minimal conforming set of `impl`. */
export function sampleSegments(impl: Implementation): SegmentToWrite[] {
  const out: SegmentToWrite[] = [];
  for (const t of impl.tables) walk(t.children, false, out);
  return out;
}

/** A minimal conforming set of `impl` in a one-set interchange, as X12 text. */
export function sampleInterchange(impl: Implementation): string {
  return writeInterchange({ sender: { qualifier: 'ZZ', id: 'SENDER' }, receiver: { qualifier: 'ZZ', id: 'RECEIVER' }, interchangeControlNumber: 1, date: SAMPLE_DATE }, [
    { controlNumber: 1, release: impl.transactionSet.release, sets: [{ transactionSetIdentifier: impl.transactionSet.identifier, controlNumber: '0001', segments: sampleSegments(impl) }] },
  ]);
}

/** A minimal conforming set of `impl`, read back as translation and validation take it. */
export function sampleSet(impl: Implementation): TransactionSetRead {
  const read = readInterchanges(sampleInterchange(impl));
  const set = read.interchanges[0]?.groups[0]?.sets[0]?.set;
  if (set === undefined) throw new Error(`the sample interchange of ${impl.name} cannot be read back`);
  return set;
}
