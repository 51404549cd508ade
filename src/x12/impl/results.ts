/** What validation reports, in the terms of the 997 (AK3/AK4) and 999 (IK3/IK4). */
import type { Warning } from '../findings.ts';

/**
 * AK3 segment syntax error codes (element 720): 1 unrecognized segment id, 2 unexpected
 * segment, 3 mandatory segment missing, 4 loop occurs over maximum times, 5 segment exceeds
 * maximum use, 6 segment not in defined transaction set, 7 segment not in proper sequence,
 * 8 segment has data element errors.
 */
export type Ak3Code = '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8';

/**
 * AK4 data element syntax error codes (element 723): 1 mandatory element missing, 2 conditional
 * required element missing, 3 too many elements, 4 too short, 5 too long, 6 invalid character,
 * 7 invalid code value, 8 invalid date, 9 invalid time, 10 exclusion condition violated,
 * 12 too many repetitions, 13 too many components.
 */
export type Ak4Code = '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '10' | '12' | '13';

interface FindingBase {
  /** Segment id as read (AK301). */
  readonly segmentId: string;
  /** 1-based position of the segment in the set, ST being 1 (AK302). */
  readonly position: number;
  /** Identifier of the loop the segment belongs to (AK303); null outside loops. */
  readonly loopId: string | null;
  readonly message: string;
}

export interface SegmentFinding extends FindingBase {
  readonly level: 'segment';
  readonly code: Ak3Code;
  /** The 999 IK3 code when it differs from `code` ("I6": segment not used by the implementation). */
  readonly implementationCode?: string;
}

export interface ElementFinding extends FindingBase {
  readonly level: 'element';
  readonly code: Ak4Code;
  /** AK401-1: 1-based element position in the segment. */
  readonly elementPosition: number;
  /** AK401-2: component position, for a component of a composite. */
  readonly componentPosition: number | null;
  /** AK401-3 (005010): repetition position, for a repeating element. */
  readonly repetitionPosition: number | null;
  /** AK402: data element reference number. */
  readonly elementReference: string;
  /** AK404: copy of the bad element (at most 99 characters); null when it is missing. */
  readonly value: string | null;
  /** The 999 IK4 code when it differs from `code` ("I10": element not used by the implementation). */
  readonly implementationCode?: string;
}

export type Finding = SegmentFinding | ElementFinding;

/** One AK3 with the AK4s under it, as a 997 lists them. */
export interface SegmentNote {
  readonly segmentId: string;
  readonly position: number;
  readonly loopId: string | null;
  /** The segment's own code, or "8" when only its elements are in error. */
  readonly code: Ak3Code;
  readonly implementationCode?: string;
  readonly elements: readonly ElementFinding[];
}

/**
 * Groups findings into AK3 notes with their AK4s, in segment order: one note per segment
 * position, carrying the segment's own code when it has one, else "8" (data element errors).
 */
export function segmentNotes(findings: readonly Finding[]): SegmentNote[] {
  const notes = new Map<string, { segmentId: string; position: number; loopId: string | null; code: Ak3Code; implementationCode?: string; elements: ElementFinding[] }>();
  for (const f of findings) {
    const key = `${f.position}/${f.segmentId}`;
    let n = notes.get(key);
    if (!n) {
      n = { segmentId: f.segmentId, position: f.position, loopId: f.loopId, code: '8', elements: [] };
      notes.set(key, n);
    }
    if (f.level === 'element') n.elements.push(f);
    else if (n.code === '8') {
      n.code = f.code;
      n.loopId = f.loopId;
      if (f.implementationCode) n.implementationCode = f.implementationCode;
    }
  }
  return [...notes.values()].sort((a, b) => a.position - b.position);
}

export type { Warning };
