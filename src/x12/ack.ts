/**
 * Acknowledgments: a 997 (or a 999 for HIPAA 005010X groups) for each received functional
 * group, a TA1 for interchange faults, and the reading of received 997s and 999s into per-set
 * outcomes.
 *
 * Rules (docs/x12.md, "Acknowledgments"):
 * - AK5/IK5: R with the structural codes (2, 3, 4, 23) for envelope faults; R with code 5 when
 *   the validation found segment or element errors (E instead with `acceptWithErrors`); else A.
 * - AK9: A when every set is accepted and the group envelope is sound; E when every set is
 *   accepted but some with errors, or the group trailer disagrees; P when some sets are
 *   rejected and some accepted; R when every set is rejected or the group holds no set and its
 *   envelope is faulty. A group with some sets rejected is partially accepted, never rejected whole.
 */
import { ak9Codes } from './findings.ts';
import type { GroupRead, InterchangeRead } from './interchange.ts';
import type { TransactionSetRead } from './types.ts';
import { addChars, chooseDelimiters, writeInterchange, type ElementValue, type EnvelopeSettings, type GroupToWrite, type SegmentToWrite } from './writer.ts';

/** An element error found by validation (AK4 / IK4). */
export interface ElementError {
  /** 1-based element position in the segment. */
  readonly position: number;
  /** 1-based component position inside a composite. */
  readonly component?: number;
  /** 1-based repetition. */
  readonly repetition?: number;
  /** Data element reference number, such as "373". */
  readonly reference?: string;
  /** AK403 / IK403 code (such as 1 mandatory missing, 7 invalid code value, 8 invalid date). */
  readonly code: string;
  /** The bad value, copied into AK404 / IK404. */
  readonly value?: string;
}

/** A segment error found by validation (AK3 / IK3). */
export interface SegmentError {
  readonly segmentId: string;
  /** 1-based position of the segment in the set (ST is 1). */
  readonly position: number;
  readonly loopId?: string;
  /** AK304 / IK304 code; empty when only the segment's elements are in error. */
  readonly code: string;
  readonly elements: readonly ElementError[];
}

/** What validation found in one set. */
export interface SetValidation {
  readonly segmentErrors: readonly SegmentError[];
}

export type AckKind = '997' | '999';

export interface AckOptions {
  /** Validation findings of a set, when validation ran. */
  readonly validate?: (set: TransactionSetRead) => SetValidation | undefined;
  /** Force the kind; by default 999 for 005010X groups, 997 otherwise. */
  readonly kind?: AckKind;
  /** Answer element and segment errors with E (accepted with errors) instead of R. @default false */
  readonly acceptWithErrors?: boolean;
}

/** The acknowledgment kind a group gets by default. */
export function ackKindFor(release: string): AckKind {
  return /^005010X/.test(release) ? '999' : '997';
}

type SetStatus = 'A' | 'E' | 'R';

/**
 * AK403 of a 997 for a release before 005010, whose list (element 723) stops at 10: too many
 * repetitions (12) and too many components (13) come from 005010 on, and are written as 3, too
 * many data elements, the closest code of that list.
 */
function elementCode004010(code: string): string {
  return code === '12' || code === '13' ? '3' : code;
}

function copyValue(v: string): string {
  return v.length > 99 ? v.slice(0, 99) : v;
}

/** The body (ST and SE excluded) of the acknowledgment of one received group. */
export function acknowledgeGroup(group: GroupRead, options: AckOptions = {}): { kind: AckKind; segments: SegmentToWrite[]; status: string } {
  const h = group.header;
  const kind = options.kind ?? ackKindFor(h.release);
  const segments: SegmentToWrite[] = [];
  const ak1: ElementValue[] = [h.functionalId, h.controlNumber];
  if (kind === '999' || h.release.slice(0, 6) >= '005010') ak1.push(h.release);
  segments.push({ id: 'AK1', elements: ak1 });
  let accepted = 0;
  let rejected = 0;
  let withErrors = 0;
  const older = h.release.slice(0, 6) < '005010';
  for (const entry of group.sets) {
    const set = entry.set;
    const codes: string[] = [];
    for (const f of entry.findings) if (f.code !== null) codes.push(f.code);
    const validation = options.validate?.(set);
    const errors = validation?.segmentErrors ?? [];
    let status: SetStatus = 'A';
    if (codes.length > 0) status = 'R';
    if (errors.length > 0) {
      codes.push('5');
      if (status !== 'R') status = options.acceptWithErrors ? 'E' : 'R';
    }
    const ak2: ElementValue[] = [set.transactionSetIdentifier, set.controlNumber];
    const st03 = set.segments[0]?.elements[2];
    if ((kind === '999' || h.release.slice(0, 6) >= '005010') && st03) ak2.push(st03);
    segments.push({ id: 'AK2', elements: ak2 });
    for (const e of errors) {
      segments.push({ id: kind === '999' ? 'IK3' : 'AK3', elements: [e.segmentId, String(e.position), e.loopId ?? '', e.code] });
      for (const el of e.elements) {
        const pos = [String(el.position), el.component === undefined ? '' : String(el.component), el.repetition === undefined ? '' : String(el.repetition)];
        const code = kind === '997' && older ? elementCode004010(el.code) : el.code;
        segments.push({ id: kind === '999' ? 'IK4' : 'AK4', elements: [pos, el.reference ?? '', code, copyValue(el.value ?? '')] });
      }
    }
    segments.push({ id: kind === '999' ? 'IK5' : 'AK5', elements: [status, ...codes.slice(0, 5)] });
    if (status === 'R') rejected++;
    else {
      accepted++;
      if (status === 'E') withErrors++;
    }
  }
  const groupCodes: string[] = [];
  // AK905 19 (group control number not unique) exists from 005010 on; an older 997 cannot carry it
  for (const f of group.findings) if (f.code !== null && (Object.values(ak9Codes) as string[]).includes(f.code) && !(older && f.code === '19')) groupCodes.push(f.code);
  const received = group.sets.length;
  const declared = group.trailer?.elements[0]?.trim() ?? '';
  const included = /^[0-9]+$/.test(declared) ? String(Number(declared)) : String(received);
  let status: string;
  if (received === 0) status = groupCodes.length > 0 ? 'R' : 'A';
  else if (rejected === received) status = 'R';
  else if (rejected > 0) status = 'P';
  else if (withErrors > 0 || groupCodes.length > 0) status = 'E';
  else status = 'A';
  segments.push({ id: 'AK9', elements: [status, included, String(received), String(accepted), ...groupCodes.slice(0, 5)] });
  return { kind, segments, status };
}

/** Settings of the interchange that carries acknowledgments back. */
export interface AckEnvelope {
  readonly interchangeControlNumber: number;
  /** First GS06 of the response; each further group takes the next number. */
  readonly groupControlNumber: number;
  readonly date: Date;
  readonly usageIndicator?: string;
  readonly lineBreak?: boolean;
}

/**
 * The response interchange for one received interchange: sender and receiver swapped, a TA1
 * when the interchange had faults or asked for one (ISA14 = 1), and one FA group per received
 * group, each with one 997 or 999.
 */
export function acknowledgeInterchange(ic: InterchangeRead, envelope: AckEnvelope, options: AckOptions = {}): string {
  const h = ic.header;
  const groups: GroupToWrite[] = [];
  let control = envelope.groupControlNumber;
  for (const g of ic.groups) {
    if (g.header.functionalId === '' && g.header.controlNumber === '') continue;
    const ack = acknowledgeGroup(g, options);
    groups.push({
      functionalId: 'FA',
      applicationSender: g.header.applicationReceiver,
      applicationReceiver: g.header.applicationSender,
      controlNumber: control++,
      release: ack.kind === '999' ? '005010X231A1' : g.header.release.slice(0, 6) || '004010',
      sets: [{ transactionSetIdentifier: ack.kind, controlNumber: '0001', segments: ack.segments, ...(ack.kind === '999' ? { implementationReference: '005010X231A1' } : {}) }],
    });
  }
  const ta1Codes = ic.findings.map((f) => f.code).filter((c): c is string => c !== null && /^[0-9]{3}$/.test(c));
  const interchangeSegments: SegmentToWrite[] = [];
  if (ta1Codes.length > 0 || h.ackRequested === '1') {
    const ta104 = ta1Codes.length === 0 ? 'A' : ic.groups.length === 0 ? 'R' : 'E';
    interchangeSegments.push({ id: 'TA1', elements: [h.controlNumber, h.date, h.time, ta104, ta1Codes[0] ?? '000'] });
  }
  const version = h.version >= '00501' ? '00501' : h.version >= '00402' ? h.version : '00401';
  // the received delimiters, unless a value written back (such as a copied bad element) holds one
  const used = new Set<string>();
  for (const v of [h.sender.id, h.receiver.id, h.sender.qualifier, h.receiver.qualifier]) addChars(used, v);
  for (const g of groups) {
    for (const v of [g.applicationSender ?? '', g.applicationReceiver ?? '', g.release]) addChars(used, v);
    for (const s of g.sets) for (const seg of s.segments) addElementChars(used, seg.elements);
  }
  for (const seg of interchangeSegments) addElementChars(used, seg.elements);
  const settings: EnvelopeSettings = {
    sender: h.receiver,
    receiver: h.sender,
    interchangeControlNumber: envelope.interchangeControlNumber,
    version,
    usageIndicator: envelope.usageIndicator ?? h.usageIndicator,
    ackRequested: '0',
    date: envelope.date,
    delimiters: chooseDelimiters(used, version, { prefer: { element: h.delimiters.element, component: h.delimiters.component, segment: h.delimiters.segment, ...(h.delimiters.repetition === null ? {} : { repetition: h.delimiters.repetition }) } }),
    lineBreak: envelope.lineBreak ?? false,
  };
  return writeInterchange(settings, groups, { interchangeSegments });
}

function addElementChars(used: Set<string>, elements: readonly ElementValue[]): void {
  for (const e of elements) {
    if (typeof e === 'string') addChars(used, e);
    else if (Array.isArray(e)) for (const c of e as readonly string[]) addChars(used, c);
    else for (const r of (e as { repetitions: readonly (string | readonly string[])[] }).repetitions) for (const c of typeof r === 'string' ? [r] : r) addChars(used, c);
  }
}

// --- reading received acknowledgments ---------------------------------------------------------

export type SetOutcome = 'accepted' | 'accepted_with_errors' | 'rejected';

export interface AckSetRead {
  readonly transactionSetIdentifier: string;
  readonly controlNumber: string;
  /** AK501 / IK501. */
  readonly status: string;
  readonly outcome: SetOutcome;
  /** AK502..AK506 / IK502..IK506. */
  readonly codes: readonly string[];
  readonly segmentErrors: readonly SegmentError[];
}

export interface AckGroupRead {
  readonly functionalId: string;
  readonly groupControlNumber: string;
  readonly version: string;
  /** AK901. */
  readonly status: string;
  readonly included: string;
  readonly received: string;
  readonly accepted: string;
  /** AK905..AK909. */
  readonly codes: readonly string[];
  /** One entry per AK2 loop; empty when the group is answered as a whole. */
  readonly sets: readonly AckSetRead[];
}

export interface AckRead {
  readonly kind: AckKind;
  readonly groups: readonly AckGroupRead[];
}

function outcomeOf(status: string): SetOutcome {
  return status === 'A' ? 'accepted' : status === 'E' || status === 'W' || status === 'M' || status === 'X' ? 'accepted_with_errors' : 'rejected';
}

/** Reads a received 997 or 999 set. Returns null for any other set. */
export function readAcknowledgment(set: TransactionSetRead): AckRead | null {
  const kind = set.transactionSetIdentifier;
  if (kind !== '997' && kind !== '999') return null;
  const groups: AckGroupRead[] = [];
  let group: { functionalId: string; groupControlNumber: string; version: string; sets: AckSetRead[] } | null = null;
  let current: { transactionSetIdentifier: string; controlNumber: string; segmentErrors: SegmentError[] } | null = null;
  let seg: { segmentId: string; position: number; loopId?: string; code: string; elements: ElementError[] } | null = null;
  for (const s of set.segments) {
    const e = s.elements;
    switch (s.id) {
      case 'AK1':
        group = { functionalId: e[0] ?? '', groupControlNumber: (e[1] ?? '').trim(), version: e[2] ?? '', sets: [] };
        break;
      case 'AK2':
        current = { transactionSetIdentifier: e[0] ?? '', controlNumber: (e[1] ?? '').trim(), segmentErrors: [] };
        break;
      case 'AK3':
      case 'IK3':
        seg = { segmentId: e[0] ?? '', position: Number(e[1] ?? 0), code: e[3] ?? '', elements: [], ...(e[2] ? { loopId: e[2] } : {}) };
        current?.segmentErrors.push(seg);
        break;
      case 'AK4':
      case 'IK4': {
        const [p, c, r] = (e[0] ?? '').split(set.interchange.delimiters.component);
        seg?.elements.push({
          position: Number(p),
          ...(c ? { component: Number(c) } : {}),
          ...(r ? { repetition: Number(r) } : {}),
          ...(e[1] ? { reference: e[1] } : {}),
          code: e[2] ?? '',
          ...(e[3] !== undefined ? { value: e[3] } : {}),
        });
        break;
      }
      case 'AK5':
      case 'IK5':
        if (group && current) {
          const status = e[0] ?? '';
          group.sets.push({ ...current, status, outcome: outcomeOf(status), codes: e.slice(1).filter((c) => c !== '') });
        }
        current = null;
        seg = null;
        break;
      case 'AK9':
        if (group) {
          groups.push({
            ...group,
            status: e[0] ?? '',
            included: e[1] ?? '',
            received: e[2] ?? '',
            accepted: e[3] ?? '',
            codes: e.slice(4).filter((c) => c !== ''),
          });
        }
        group = null;
        break;
      default:
        break;
    }
  }
  return { kind, groups };
}

/**
 * The outcome of one sent set according to a read acknowledgment: its own AK2 loop when there
 * is one, else the group's AK9 (A accepted, E accepted with errors, R rejected; under P a set
 * without an AK2 loop was accepted). Null when the acknowledgment does not answer the group.
 */
export function outcomeForSet(ack: AckRead, groupControlNumber: string, setControlNumber: string): SetOutcome | null {
  for (const g of ack.groups) {
    if (g.groupControlNumber !== groupControlNumber && Number(g.groupControlNumber) !== Number(groupControlNumber)) continue;
    const own = g.sets.find((s) => s.controlNumber === setControlNumber);
    if (own) return own.outcome;
    if (g.status === 'P') return 'accepted';
    return outcomeOf(g.status);
  }
  return null;
}
