/**
 * The X12 writer: segments from the segment model, and whole interchanges from envelope
 * settings (fixed-width ISA, GS, computed SE/GE/IEA counts).
 */
import { TdxError } from '../errors.ts';
import { functionalIdOf } from './functional-ids.ts';
import type { Delimiters, PartyId } from './types.ts';

export { functionalIds, functionalIdOf } from './functional-ids.ts';

/**
 * One element to write: a plain value, its components (a composite), or its repetitions (each
 * a value or components).
 */
export type ElementValue = string | readonly string[] | { readonly repetitions: readonly (string | readonly string[])[] };

/** A segment to write: its id and elements 01..n (trailing empty elements are dropped). */
export interface SegmentToWrite {
  readonly id: string;
  readonly elements: readonly ElementValue[];
  /** Elements are already joined with the interchange's component and repetition separators. */
  readonly joined?: boolean;
}

/** Delimiters used when settings name none. */
export const defaultDelimiters: Delimiters = { element: '*', component: '>', repetition: '^', segment: '~' };

function invalid(message: string, details: Record<string, unknown>): TdxError {
  return new TdxError('invalid_body', message, { details });
}

function checkValue(value: string, d: Delimiters, where: { segment: string; element: number }): string {
  for (const c of [d.element, d.component, d.segment, d.repetition]) {
    if (c !== null && value.includes(c)) {
      throw invalid(`${where.segment}${String(where.element).padStart(2, '0')} contains the delimiter "${c}" and cannot be written: "${value}".`, { ...where, value });
    }
  }
  return value;
}

function trimTrailing(parts: string[], sep: string): string {
  let n = parts.length;
  while (n > 0 && parts[n - 1] === '') n--;
  return n === parts.length ? parts.join(sep) : parts.slice(0, n).join(sep);
}

function writeComposite(v: string | readonly string[], d: Delimiters, where: { segment: string; element: number }): string {
  if (typeof v === 'string') return checkValue(v, d, where);
  return trimTrailing(
    v.map((c) => checkValue(c, d, where)),
    d.component,
  );
}

function writeElement(v: ElementValue, d: Delimiters, where: { segment: string; element: number }): string {
  if (typeof v === 'string' || Array.isArray(v)) return writeComposite(v as string | readonly string[], d, where);
  const reps = (v as { repetitions: readonly (string | readonly string[])[] }).repetitions;
  if (reps.length > 1 && d.repetition === null) {
    throw invalid(`${where.segment}${String(where.element).padStart(2, '0')} repeats, but the interchange has no repetition separator (ISA11 before 00402).`, where);
  }
  return reps.map((r) => writeComposite(r, d, where)).join(d.repetition ?? '');
}

/** One segment as text, without its terminator. */
export function formatSegment(segment: SegmentToWrite, d: Delimiters): string {
  const parts = [segment.id];
  const check = segment.joined ? { ...d, component: '\u0000', repetition: null } : d;
  segment.elements.forEach((e, i) => parts.push(segment.joined && typeof e === 'string' ? checkValue(e, check, { segment: segment.id, element: i + 1 }) : writeElement(e, d, { segment: segment.id, element: i + 1 })));
  return trimTrailing(parts, d.element);
}

/** Segments as text, each followed by the terminator (and a line break when asked). */
export function writeSegments(segments: Iterable<SegmentToWrite>, d: Delimiters, lineBreak = false): string {
  const term = lineBreak && d.segment !== '\n' ? d.segment + '\n' : d.segment;
  const out: string[] = [];
  for (const s of segments) out.push(formatSegment(s, d) + term);
  return out.join('');
}

/** Settings of one interchange to write. */
export interface EnvelopeSettings {
  readonly sender: PartyId;
  readonly receiver: PartyId;
  /** ISA13, 1..999999999. */
  readonly interchangeControlNumber: number;
  /** ISA12. @default the first five characters of the highest group release, else "00401" */
  readonly version?: string;
  /** ISA15. @default "P" */
  readonly usageIndicator?: string;
  /** ISA14. @default "0" */
  readonly ackRequested?: string;
  /** ISA01/ISA02. @default "00" and blanks */
  readonly authorization?: { readonly qualifier: string; readonly information: string };
  /** ISA03/ISA04. @default "00" and blanks */
  readonly security?: { readonly qualifier: string; readonly information: string };
  /** Date and time written in ISA09/ISA10 and GS04/GS05 (UTC). */
  readonly date: Date;
  /** @default defaultDelimiters (repetition dropped before 00402) */
  readonly delimiters?: Partial<Delimiters>;
  /** Write a line break after each segment terminator. @default false */
  readonly lineBreak?: boolean;
}

/** One functional group to write. */
export interface GroupToWrite {
  /** GS01; derived from the first set's identifier when absent. */
  readonly functionalId?: string;
  /** GS02/GS03. @default the interchange sender and receiver ids */
  readonly applicationSender?: string;
  readonly applicationReceiver?: string;
  /** GS06. */
  readonly controlNumber: number;
  /** GS08, such as "004010". */
  readonly release: string;
  readonly sets: readonly SetToWrite[];
}

/**
 * One transaction set to write: body segments only. ST is written from the fields; SE is always
 * computed (SE01 the segment count ST through SE, SE02 the ST02 written), see `setTrailer`.
 */
export interface SetToWrite {
  readonly transactionSetIdentifier: string;
  /** ST02; numbers are zero-padded to 4 digits. */
  readonly controlNumber: string | number;
  /** ST03 (implementation convention reference), written from release 004030 on when given. */
  readonly implementationReference?: string;
  /** ST03 onwards exactly as given (a document's own ST), written whatever the release; wins over `implementationReference`. */
  readonly headerElements?: readonly string[];
  readonly segments: readonly SegmentToWrite[];
}

function pad(v: string, width: number, field: string): string {
  if (v.length > width) throw invalid(`${field} "${v}" is longer than ${width} characters.`, { field, value: v });
  return v.padEnd(width, ' ');
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * ISA12 for a group release (GS08): its first five characters when they are digits (004010 →
 * 00401, 005010X222A1 → 00501, 003060 → 00306), else 00401.
 */
export function interchangeVersionOf(release: string): string {
  return /^[0-9]{5}/.test(release) ? release.slice(0, 5) : '00401';
}

/** ISA12 of an interchange: the one given, else the highest of its groups' releases. */
export function versionFor(settings: Pick<EnvelopeSettings, 'version'>, groups: readonly Pick<GroupToWrite, 'release'>[]): string {
  if (settings.version !== undefined) return settings.version;
  let v = '';
  for (const g of groups) {
    const r = interchangeVersionOf(g.release);
    if (r > v) v = r;
  }
  return v === '' ? '00401' : v;
}

/** Preference order of delimiters when the defaults appear in the data: punctuation, then control characters. */
const alternates = ['*', '>', '^', '~', '|', '!', '`', '\\', '{', '}', '@', '#', '$', '%', '&', ';', '=', '?', '<', '+', '\u001d', '\u001e', '\u001f', '\u001c', '\u0007', '\u0019'];

/**
 * Delimiters that appear in none of `used` (every character of the values to write): each
 * delimiter in `fixed` is kept as it is; the others are the one in `prefer` (else the default)
 * when it is free, else the first free alternate. Throws TdxError `invalid_body` when no free
 * character is left.
 */
export function chooseDelimiters(used: ReadonlySet<string>, version: string, options: { readonly fixed?: Partial<Delimiters>; readonly prefer?: Partial<Delimiters> } = {}): Delimiters {
  const { fixed, prefer } = options;
  const taken = new Set<string>();
  for (const k of ['element', 'component', 'segment', 'repetition'] as const) {
    const v = fixed?.[k];
    if (typeof v === 'string') taken.add(v);
  }
  const pick = (k: 'element' | 'component' | 'segment' | 'repetition'): string => {
    const given = fixed?.[k];
    if (typeof given === 'string') return given;
    const first = prefer?.[k] ?? defaultDelimiters[k] ?? '^';
    for (const c of [first, ...alternates]) {
      if (c.length === 1 && !used.has(c) && !taken.has(c)) {
        taken.add(c);
        return c;
      }
    }
    throw invalid(`No free character is left for the ${k} delimiter: the values use them all.`, { delimiter: k });
  };
  const element = pick('element');
  const component = pick('component');
  const segment = pick('segment');
  const repetition = version >= '00402' ? pick('repetition') : null;
  return delimitersFor({ version, delimiters: { element, component, segment, ...(repetition === null ? {} : { repetition }) } });
}

/** Adds every character of `value` to `into`. */
export function addChars(into: Set<string>, value: string): void {
  for (let i = 0; i < value.length; i++) into.add(value[i] as string);
}

/** The delimiters an interchange is written with. */
export function delimitersFor(settings: Pick<EnvelopeSettings, 'version' | 'delimiters'>): Delimiters {
  const version = settings.version ?? '00401';
  const d = { ...defaultDelimiters, ...settings.delimiters };
  const repetition = version >= '00402' ? (d.repetition ?? defaultDelimiters.repetition) : null;
  const out: Delimiters = { element: d.element, component: d.component, segment: d.segment, repetition };
  const all = [out.element, out.component, out.segment, ...(repetition === null ? [] : [repetition])];
  if (all.some((c) => c.length !== 1) || new Set(all).size !== all.length) {
    throw invalid('Delimiters must be single, distinct characters.', { delimiters: out });
  }
  return out;
}

/**
 * SE01 and SE02 of a set: the number of segments from ST to SE inclusive (`bodySegments` + 2)
 * and the ST02 exactly as written (spaces kept, as the reader compares them). Never taken from a
 * document, so an edited or malformed document is still written with a correct trailer.
 */
export function setTrailer(bodySegments: number, st02: string): [string, string] {
  return [String(bodySegments + 2), st02];
}

/** The ISA segment of an interchange (without terminator). */
export function formatIsa(settings: EnvelopeSettings, d: Delimiters): string {
  const n = settings.interchangeControlNumber;
  if (!Number.isInteger(n) || n < 0 || n > 999_999_999) throw invalid(`Interchange control number ${n} is not an integer from 0 to 999999999.`, { field: 'interchangeControlNumber' });
  const t = settings.date;
  const version = settings.version ?? '00401';
  const fields = [
    'ISA',
    pad(settings.authorization?.qualifier ?? '00', 2, 'ISA01'),
    pad(settings.authorization?.information ?? '', 10, 'ISA02'),
    pad(settings.security?.qualifier ?? '00', 2, 'ISA03'),
    pad(settings.security?.information ?? '', 10, 'ISA04'),
    pad(settings.sender.qualifier, 2, 'ISA05'),
    pad(settings.sender.id, 15, 'ISA06'),
    pad(settings.receiver.qualifier, 2, 'ISA07'),
    pad(settings.receiver.id, 15, 'ISA08'),
    two(t.getUTCFullYear() % 100) + two(t.getUTCMonth() + 1) + two(t.getUTCDate()),
    two(t.getUTCHours()) + two(t.getUTCMinutes()),
    d.repetition ?? 'U',
    pad(version, 5, 'ISA12'),
    String(n).padStart(9, '0'),
    pad(settings.ackRequested ?? '0', 1, 'ISA14'),
    pad(settings.usageIndicator ?? 'P', 1, 'ISA15'),
    d.component,
  ];
  for (let i = 1; i <= 15; i++) if (i !== 11) checkValue(fields[i]!, d, { segment: 'ISA', element: i });
  return fields.join(d.element);
}

/** Writes a whole interchange: ISA, each group (GS, sets with ST/SE, GE), IEA. */
export function writeInterchange(given: EnvelopeSettings, groups: readonly GroupToWrite[], extra?: { readonly interchangeSegments?: readonly SegmentToWrite[] }): string {
  const settings = given.version === undefined ? { ...given, version: versionFor(given, groups) } : given;
  const d = delimitersFor(settings);
  const term = settings.lineBreak && d.segment !== '\n' ? d.segment + '\n' : d.segment;
  const out: string[] = [formatIsa(settings, d) + term];
  for (const s of extra?.interchangeSegments ?? []) out.push(formatSegment(s, d) + term);
  const t = settings.date;
  const gsDate = String(t.getUTCFullYear()) + two(t.getUTCMonth() + 1) + two(t.getUTCDate());
  const gsTime = two(t.getUTCHours()) + two(t.getUTCMinutes());
  for (const g of groups) {
    const functionalId = g.functionalId ?? functionalIdOf(g.sets[0]?.transactionSetIdentifier ?? '');
    if (functionalId === undefined) throw invalid(`No functional identifier (GS01) is known for transaction set ${g.sets[0]?.transactionSetIdentifier ?? '(none)'} (not an X12 transaction set); give one.`, { field: 'functionalId' });
    const gs: SegmentToWrite = {
      id: 'GS',
      elements: [functionalId, g.applicationSender ?? settings.sender.id, g.applicationReceiver ?? settings.receiver.id, gsDate, gsTime, String(g.controlNumber), 'X', g.release],
    };
    out.push(formatSegment(gs, d) + term);
    for (const set of g.sets) {
      const control = typeof set.controlNumber === 'number' ? String(set.controlNumber).padStart(4, '0') : set.controlNumber;
      const st: ElementValue[] = [set.transactionSetIdentifier, control];
      if (set.headerElements !== undefined) st.push(...set.headerElements);
      else if (set.implementationReference !== undefined && g.release.slice(0, 6) >= '004030') st.push(set.implementationReference);
      out.push(formatSegment({ id: 'ST', elements: st, joined: set.headerElements !== undefined }, d) + term);
      for (const s of set.segments) out.push(formatSegment(s, d) + term);
      out.push(formatSegment({ id: 'SE', elements: setTrailer(set.segments.length, control), joined: set.headerElements !== undefined }, d) + term);
    }
    out.push(formatSegment({ id: 'GE', elements: [String(g.sets.length), String(g.controlNumber)] }, d) + term);
  }
  out.push(formatSegment({ id: 'IEA', elements: [String(groups.length), String(settings.interchangeControlNumber).padStart(9, '0')] }, d) + term);
  return out.join('');
}
