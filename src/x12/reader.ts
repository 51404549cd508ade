/**
 * The X12 reader: finds each interchange's delimiters in its ISA, walks the envelopes
 * (ISA/IEA → GS/GE → ST/SE), splits transaction sets and checks the envelope arithmetic.
 *
 * One scanner serves both entry points: `readX12` (a whole string or buffer, synchronous) and
 * `readX12Stream` (an async iterable of chunks, memory flat whatever the input size). The hot
 * loop only looks for segment terminators (`indexOf`) and at the first bytes of each segment;
 * elements are split for envelope segments only, and a set's segments are split when first read
 * (see SetRead).
 *
 * Malformed input yields findings (see findings.ts) or throws a TdxError `x12_unreadable` whose
 * details name byteOffset, segmentPosition, segmentId and elementPosition. Nothing else is thrown.
 */
import { TdxError } from '../errors.ts';
import { ak5Codes, ak9Codes, ta1Codes, type FindingKind, type StructuralFinding } from './findings.ts';
import { isSkippable, SetRead, trimSegmentEnd, type SegmentFormat } from './set-read.ts';
import type { Delimiters, GroupHeader, InterchangeHeader, Segment, TransactionSetRead } from './types.ts';

/** What the reader reports, in input order. */
export type X12Event =
  | { readonly type: 'interchange'; readonly header: InterchangeHeader }
  | { readonly type: 'group'; readonly header: GroupHeader; readonly interchange: InterchangeHeader }
  | { readonly type: 'set'; readonly set: TransactionSetRead; readonly findings: readonly StructuralFinding[] }
  /** An interchange-level segment outside any group, such as TA1, ISB or ISE. */
  | { readonly type: 'segment'; readonly segment: Segment; readonly interchange: InterchangeHeader }
  | {
      readonly type: 'group_end';
      readonly header: GroupHeader;
      readonly interchange: InterchangeHeader;
      /** GE, or null when it was missing. */
      readonly trailer: Segment | null;
      readonly setCount: number;
      readonly findings: readonly StructuralFinding[];
    }
  | {
      readonly type: 'interchange_end';
      readonly header: InterchangeHeader;
      /** IEA, or null when it was missing. */
      readonly trailer: Segment | null;
      readonly groupCount: number;
      readonly findings: readonly StructuralFinding[];
    }
  /** A finding outside any interchange (data after an IEA that is not an ISA). */
  | { readonly type: 'note'; readonly finding: StructuralFinding };

/** Interchange-level segments that are legitimate outside groups. */
const interchangeSegments = new Set(['TA1', 'ISB', 'ISE', 'ISX', 'TA3']);

/** ISA elements are found by counting separators within this many characters. */
const isaSearchLimit = 256;

interface InterchangeState {
  readonly header: InterchangeHeader;
  readonly findings: StructuralFinding[];
  readonly groupControls: Set<string>;
  groupCount: number;
  /** Segments of the interchange read so far (ISA is 1). */
  segmentCount: number;
}

interface GroupState {
  readonly header: GroupHeader;
  readonly findings: StructuralFinding[];
  readonly setControls: Set<string>;
  setCount: number;
}

interface SetState {
  readonly st: readonly string[];
  /** Character index of ST in the current window. */
  start: number;
  /** End (exclusive, terminator excluded) of the last segment of the set in the current window. */
  lastEnd: number;
  /** Text of the set from earlier windows. */
  readonly pieces: string[];
  count: number;
  readonly byteOffset: number;
  ascii: boolean;
}

function unreadable(message: string, details: { byteOffset: number; segmentPosition: number; segmentId: string; elementPosition: number | null }): TdxError {
  return new TdxError('x12_unreadable', message, { details });
}

const digits = /^[0-9]+$/;

function validYymmdd(v: string): boolean {
  if (v.length !== 6 || !digits.test(v)) return false;
  const m = Number(v.slice(2, 4));
  const d = Number(v.slice(4, 6));
  return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

function validHhmm(v: string): boolean {
  if (v.length !== 4 || !digits.test(v)) return false;
  return Number(v.slice(0, 2)) <= 23 && Number(v.slice(2, 4)) <= 59;
}

const alphanumeric = /^[A-Za-z0-9 ]$/;
const nonAscii = /[\u0080-\uffff]/;

/** The incremental scanner behind both entry points. Feed windows of text; collect events. */
class Scanner {
  readonly events: X12Event[] = [];
  /** Text carried from the previous window (an unfinished segment). */
  private carry = '';
  private carryAscii = true;
  /** Byte offset in the input of the current window's first character. */
  private windowByte = 0;
  /** Byte cursor inside a non-ASCII window. */
  private cursorChar = 0;
  private cursorByte = 0;
  private windowAscii = true;
  private window = '';

  private ic: InterchangeState | null = null;
  private group: GroupState | null = null;
  private set: SetState | null = null;
  private format: SegmentFormat = { element: '*', segment: '~', trimEnd: false };
  private elCode = 42;
  private termChar = '~';
  private interchangesSeen = 0;
  private readonly interchangeControls = new Set<string>();

  constructor(startByte: number) {
    this.windowByte = startByte;
  }

  /** Byte offset of a character index of the current window. */
  private byteAt(i: number): number {
    if (this.windowAscii) return this.windowByte + i;
    if (i < this.cursorChar) {
      this.cursorChar = 0;
      this.cursorByte = this.windowByte;
    }
    this.cursorByte += Buffer.byteLength(this.window.slice(this.cursorChar, i));
    this.cursorChar = i;
    return this.cursorByte;
  }

  /**
   * Processes one chunk of text. `ascii` says whether the chunk is known to be ASCII (undefined:
   * test it). With `final`, the input ends here and everything open is closed.
   */
  feed(chunk: string, final: boolean, ascii?: boolean): void {
    // UTF-8 length equals the length in characters exactly when every character is ASCII (and this is faster than a regex)
    const chunkAscii = ascii ?? Buffer.byteLength(chunk, 'utf8') === chunk.length;
    const t = this.carry.length > 0 ? this.carry + chunk : chunk;
    this.window = t;
    this.windowAscii = this.carryAscii && chunkAscii;
    this.cursorChar = 0;
    this.cursorByte = this.windowByte;
    const pos = this.scan(t, final);
    if (final) {
      this.finish(t.length);
      this.carry = '';
      return;
    }
    // Keep an open set's text from this window, carry the unfinished segment.
    const set = this.set;
    if (set !== null) {
      if (set.lastEnd > set.start) set.pieces.push(t.slice(set.start, set.lastEnd));
      // the terminator between the last full segment and the carried one
      if (set.lastEnd < pos) set.pieces.push(t.slice(set.lastEnd, pos));
      set.start = 0;
      set.lastEnd = 0;
      set.ascii = set.ascii && this.windowAscii;
    }
    this.windowByte = this.byteAt(pos);
    this.carry = t.slice(pos);
    this.carryAscii = this.windowAscii;
  }

  /** Scans `t` from 0; returns the index where an unfinished segment starts (t.length when none). */
  private scan(t: string, final: boolean): number {
    const n = t.length;
    let pos = 0;
    for (;;) {
      let c = t.charCodeAt(pos);
      while (pos < n && isSkippable(c) && c !== this.elCode) c = t.charCodeAt(++pos);
      if (pos >= n) return n;
      if (this.ic === null) {
        const next = this.startInterchange(t, pos, final);
        if (next < 0) return pos;
        pos = next;
        continue;
      }
      let end = t.indexOf(this.termChar, pos);
      if (end < 0) {
        if (!final) return pos;
        end = n;
      }
      const set = this.set;
      if (set !== null) {
        // Hot path: body segments of a set. Only segments starting with S, G or I may be envelopes.
        if ((c !== 83 && c !== 71 && c !== 73) || !this.isEnvelope(t, pos, end, c)) {
          set.count++;
          set.lastEnd = end;
          pos = end + 1;
          continue;
        }
      }
      const next = this.envelopeSegment(t, pos, end, final);
      if (next < 0) return pos;
      pos = next;
    }
  }

  /** Whether the segment at `pos` is ST, SE, GS, GE, ISA or IEA. */
  private isEnvelope(t: string, pos: number, end: number, c0: number): boolean {
    const c1 = t.charCodeAt(pos + 1);
    if (c0 === 73) {
      if (!((c1 === 69 || c1 === 83) && t.charCodeAt(pos + 2) === 65)) return false;
      return pos + 3 >= end || t.charCodeAt(pos + 3) === this.elCode || (c1 === 83 && pos + 3 < t.length);
    }
    if (c0 === 83 ? c1 !== 84 && c1 !== 69 : c1 !== 83 && c1 !== 69) return false;
    return pos + 2 >= trimSegmentEnd(t, pos, end, this.format.trimEnd) || t.charCodeAt(pos + 2) === this.elCode;
  }

  private finding(kind: FindingKind, scope: StructuralFinding['scope'], code: string | null, message: string, values: Record<string, string | number>, segmentId: string, segmentPosition: number, byteOffset: number): StructuralFinding {
    return { kind, scope, code, message, values, segmentId, segmentPosition, byteOffset };
  }

  /** Handles a segment outside the hot path; returns the next position, or -1 to wait for more input. */
  private envelopeSegment(t: string, pos: number, end: number, final: boolean): number {
    if (t.startsWith('ISA', pos)) {
      // A new interchange (possibly with other delimiters) before this one's IEA.
      if (!final && t.length - pos < isaSearchLimit) return -1;
      this.closeInterchange(null, pos, 'ISA');
      return this.startInterchange(t, pos, final);
    }
    const stop = trimSegmentEnd(t, pos, end, this.format.trimEnd);
    const raw = t.slice(pos, stop);
    const el = this.format.element;
    const sep = raw.indexOf(el);
    const id = sep < 0 ? raw : raw.slice(0, sep);
    const ic = this.ic!;
    const elements = sep < 0 ? [] : raw.slice(sep + 1).split(el);
    const offset = this.byteAt(pos);
    switch (id) {
      case 'ST': {
        if (this.set !== null) this.closeSet(null, pos, offset, 'ST');
        if (this.group === null) {
          this.group = this.openGroup(this.syntheticGroup(offset), offset);
          this.group.findings.push(this.finding('missing_gs', 'group', null, `Transaction set ${elements[0] ?? ''} ${elements[1] ?? ''} is not inside a functional group (no GS before ST).`, {}, 'ST', ic.segmentCount + 1, offset));
        }
        this.set = { st: elements, start: pos, lastEnd: end, pieces: [], count: 1, byteOffset: offset, ascii: this.windowAscii };
        return end + 1;
      }
      case 'SE': {
        const set = this.set;
        if (set === null) return this.stray(id, offset, end);
        set.count++;
        set.lastEnd = end;
        this.closeSet(elements, pos, offset, 'SE');
        return end + 1;
      }
      case 'GS': {
        if (this.set !== null) this.closeSet(null, pos, offset, 'GS');
        if (this.group !== null) this.closeGroup(null, offset, 'GS');
        ic.segmentCount++;
        const header: GroupHeader = {
          functionalId: elements[0] ?? '',
          applicationSender: (elements[1] ?? '').trim(),
          applicationReceiver: (elements[2] ?? '').trim(),
          date: elements[3] ?? '',
          time: elements[4] ?? '',
          controlNumber: (elements[5] ?? '').trim(),
          release: (elements[7] ?? '').trim(),
          offset,
        };
        this.group = this.openGroup(header, offset);
        this.events.push({ type: 'group', header, interchange: ic.header });
        return end + 1;
      }
      case 'GE': {
        if (this.set !== null) this.closeSet(null, pos, offset, 'GE');
        if (this.group === null) return this.stray(id, offset, end);
        ic.segmentCount++;
        this.closeGroup({ id, elements, position: ic.segmentCount, offset }, offset, 'GE');
        return end + 1;
      }
      case 'IEA': {
        if (this.set !== null) this.closeSet(null, pos, offset, 'IEA');
        if (this.group !== null) this.closeGroup(null, offset, 'IEA');
        ic.segmentCount++;
        this.closeInterchange({ id, elements, position: ic.segmentCount, offset }, pos, 'IEA');
        return end + 1;
      }
      default: {
        ic.segmentCount++;
        const segment: Segment = { id, elements, position: ic.segmentCount, offset };
        if (this.group === null && interchangeSegments.has(id)) {
          this.events.push({ type: 'segment', segment, interchange: ic.header });
        } else if (this.group !== null) {
          this.group.findings.push(this.finding('segment_outside_set', 'group', null, `Segment ${id} at byte ${offset} is inside functional group ${this.group.header.controlNumber} but outside any transaction set.`, { segment: id }, id, ic.segmentCount, offset));
        } else {
          ic.findings.push(this.finding('segment_outside_group', 'interchange', ta1Codes.segment_outside_group, `Segment ${id} at byte ${offset} is inside interchange ${ic.header.controlNumber} but outside any functional group.`, { segment: id }, id, ic.segmentCount, offset));
        }
        return end + 1;
      }
    }
  }

  private stray(id: string, offset: number, end: number): number {
    const ic = this.ic!;
    ic.segmentCount++;
    if (this.group !== null) {
      this.group.findings.push(this.finding('segment_outside_set', 'group', null, `Segment ${id} at byte ${offset} has no matching header.`, { segment: id }, id, ic.segmentCount, offset));
    } else {
      ic.findings.push(this.finding('segment_outside_group', 'interchange', ta1Codes.segment_outside_group, `Segment ${id} at byte ${offset} has no matching header.`, { segment: id }, id, ic.segmentCount, offset));
    }
    return end + 1;
  }

  private syntheticGroup(offset: number): GroupHeader {
    return { functionalId: '', applicationSender: '', applicationReceiver: '', date: '', time: '', controlNumber: '', release: '', offset };
  }

  private openGroup(header: GroupHeader, offset: number): GroupState {
    const ic = this.ic!;
    const g: GroupState = { header, findings: [], setControls: new Set(), setCount: 0 };
    if (header.controlNumber !== '' && ic.groupControls.has(header.controlNumber)) {
      g.findings.push(this.finding('duplicate_group_control', 'group', ak9Codes.duplicate_group_control, `Group control number ${header.controlNumber} is used twice in interchange ${ic.header.controlNumber}.`, { controlNumber: header.controlNumber }, 'GS', ic.segmentCount, offset));
    }
    ic.groupControls.add(header.controlNumber);
    ic.groupCount++;
    return g;
  }

  /**
   * Closes the open set. `se` holds SE's elements when the set ended with SE; null when SE is
   * missing (`foundId` names what came instead).
   */
  private closeSet(se: readonly string[] | null, pos: number, offset: number, foundId: string): void {
    const set = this.set!;
    const group = this.group!;
    const ic = this.ic!;
    this.set = null;
    const t = this.window;
    let text: string;
    if (set.pieces.length === 0) text = t.slice(set.start, set.lastEnd);
    else {
      if (set.lastEnd > set.start) set.pieces.push(t.slice(set.start, set.lastEnd));
      text = set.pieces.join('');
    }
    const id = (set.st[0] ?? '').trim();
    const control = (set.st[1] ?? '').trim();
    const findings: StructuralFinding[] = [];
    const stPosition = ic.segmentCount + 1;
    if (se === null) {
      findings.push(this.finding('missing_se', 'transaction_set', ak5Codes.missing_se, `Transaction set ${id} ${control} has no SE trailer (found ${foundId} instead).`, { expected: 'SE', found: foundId }, foundId, set.count + 1, offset));
    } else {
      const declared = (se[0] ?? '').trim();
      if (!(digits.test(declared) && Number(declared) === set.count)) {
        findings.push(this.finding('segment_count_mismatch', 'transaction_set', ak5Codes.segment_count_mismatch, `Transaction set ${id} ${control}: SE01 says ${declared} segments, ${set.count} were counted.`, { declared, counted: set.count }, 'SE', set.count, offset));
      }
      // compared as written: a padded ST02 ("1234 ") is a different control number
      const trailer = se[1] ?? '';
      if (trailer !== (set.st[1] ?? '')) {
        findings.push(this.finding('set_control_mismatch', 'transaction_set', ak5Codes.set_control_mismatch, `Transaction set ${id}: ST02 ${set.st[1] ?? ''} and SE02 ${trailer} differ.`, { header: set.st[1] ?? '', trailer }, 'SE', set.count, offset));
      }
    }
    if (group.setControls.has(control)) {
      findings.push(this.finding('duplicate_set_control', 'transaction_set', ak5Codes.duplicate_set_control, `Transaction set control number ${control} is used twice in group ${group.header.controlNumber}.`, { controlNumber: control }, 'ST', 1, set.byteOffset));
    }
    group.setControls.add(control);
    group.setCount++;
    ic.segmentCount = stPosition - 1 + set.count;
    void pos;
    const read = new SetRead({
      interchange: ic.header,
      group: group.header,
      transactionSetIdentifier: id,
      controlNumber: control,
      text,
      byteOffset: set.byteOffset,
      segmentCount: set.count,
      ascii: set.ascii && this.windowAscii,
      format: this.format,
    });
    this.events.push({ type: 'set', set: read, findings });
  }

  private closeGroup(ge: Segment | null, offset: number, foundId: string): void {
    const group = this.group!;
    const ic = this.ic!;
    this.group = null;
    const h = group.header;
    if (ge === null) {
      if (h.functionalId !== '' || h.controlNumber !== '') {
        group.findings.push(this.finding('missing_ge', 'group', ak9Codes.missing_ge, `Functional group ${h.controlNumber} has no GE trailer (found ${foundId} instead).`, { expected: 'GE', found: foundId }, foundId, ic.segmentCount + 1, offset));
      }
    } else {
      const declared = (ge.elements[0] ?? '').trim();
      if (!(digits.test(declared) && Number(declared) === group.setCount)) {
        group.findings.push(this.finding('set_count_mismatch', 'group', ak9Codes.set_count_mismatch, `Functional group ${h.controlNumber}: GE01 says ${declared} transaction sets, ${group.setCount} were counted.`, { declared, counted: group.setCount }, 'GE', ge.position, offset));
      }
      const trailer = ge.elements[1] ?? '';
      if (trailer.trim() !== h.controlNumber) {
        group.findings.push(this.finding('group_control_mismatch', 'group', ak9Codes.group_control_mismatch, `Functional group: GS06 ${h.controlNumber} and GE02 ${trailer} differ.`, { header: h.controlNumber, trailer }, 'GE', ge.position, offset));
      }
    }
    this.events.push({ type: 'group_end', header: h, interchange: ic.header, trailer: ge, setCount: group.setCount, findings: group.findings });
  }

  private closeInterchange(iea: Segment | null, pos: number, foundId: string): void {
    const ic = this.ic;
    if (ic === null) return;
    const offset = iea?.offset ?? (pos >= 0 ? this.byteAt(Math.min(pos, this.window.length)) : 0);
    if (this.set !== null) this.closeSet(null, pos, offset, foundId);
    if (this.group !== null) this.closeGroup(null, offset, foundId);
    this.ic = null;
    const h = ic.header;
    if (iea === null) {
      ic.findings.push(this.finding('missing_iea', 'interchange', ta1Codes.missing_iea, `Interchange ${h.controlNumber} has no IEA trailer (found ${foundId} instead).`, { expected: 'IEA', found: foundId }, foundId, ic.segmentCount + 1, offset));
    } else {
      const declared = (iea.elements[0] ?? '').trim();
      if (!(digits.test(declared) && Number(declared) === ic.groupCount)) {
        ic.findings.push(this.finding('group_count_mismatch', 'interchange', ta1Codes.group_count_mismatch, `Interchange ${h.controlNumber}: IEA01 says ${declared} groups, ${ic.groupCount} were counted.`, { declared, counted: ic.groupCount }, 'IEA', iea.position, offset));
      }
      const trailer = iea.elements[1] ?? '';
      if (trailer.trim() !== h.controlNumber) {
        ic.findings.push(this.finding('interchange_control_mismatch', 'interchange', ta1Codes.interchange_control_mismatch, `Interchange: ISA13 ${h.controlNumber} and IEA02 ${trailer} differ.`, { header: h.controlNumber, trailer }, 'IEA', iea.position, offset));
      }
    }
    this.events.push({ type: 'interchange_end', header: h, trailer: iea, groupCount: ic.groupCount, findings: ic.findings });
  }

  /**
   * Reads an ISA at `pos` (after skippable characters). Returns the position after its
   * terminator, or -1 when the window ends before the ISA does (and the input is not final).
   */
  private startInterchange(t: string, pos: number, final: boolean): number {
    const n = t.length;
    const offset = this.byteAt(pos);
    if (n - pos < 4 && !final) return -1;
    if (!t.startsWith('ISA', pos) || n - pos < 4) {
      return this.notAnInterchange(t, pos, offset, final);
    }
    const el = t[pos + 3]!;
    const seps: number[] = [];
    let p = pos + 3;
    const limit = Math.min(n, pos + isaSearchLimit);
    while (seps.length < 16) {
      const q = t.indexOf(el, p);
      if (q < 0 || q >= limit) break;
      seps.push(q);
      p = q + 1;
    }
    if (seps.length < 16 || seps[15]! + (final ? 2 : 4) >= n) {
      if (!final && n < pos + isaSearchLimit) return -1;
      if (seps.length === 16 && seps[15]! + 2 < n) return this.readIsaAt(t, pos, offset, el, seps);
      if (seps.length < 16) {
        throw unreadable(`Malformed ISA at byte ${offset}: ${seps.length} element separators "${el}" found where 16 are required.`, { byteOffset: offset, segmentPosition: 1, segmentId: 'ISA', elementPosition: seps.length + 1 });
      }
      throw unreadable(`Malformed ISA at byte ${offset}: the input ends before the segment terminator that must follow ISA16.`, { byteOffset: offset, segmentPosition: 1, segmentId: 'ISA', elementPosition: 16 });
    }
    return this.readIsaAt(t, pos, offset, el, seps);
  }

  private readIsaAt(t: string, pos: number, offset: number, el: string, seps: readonly number[]): number {
    const el16 = seps[15]!;
    const component = t[el16 + 1]!;
    let term = t[el16 + 2]!;
    let trimEnd = term === '\n' || term === '\r';
    let isaEnd = el16 + 2;
    // "ISA...*> \r\n": a space before a line break is padding, the line break ends segments.
    if (term === ' ' && (t[el16 + 3] === '\r' || t[el16 + 3] === '\n')) {
      term = t[el16 + 3] === '\r' && t[el16 + 4] === '\n' ? '\n' : t[el16 + 3]!;
      isaEnd = term === '\n' && t[el16 + 3] === '\r' ? el16 + 4 : el16 + 3;
      trimEnd = true;
    }
    const f: string[] = [];
    for (let i = 0; i < 15; i++) f.push(t.slice(seps[i]! + 1, seps[i + 1]));
    f.push(component);
    const at = (i: number): string => f[i - 1] ?? '';
    const findings: StructuralFinding[] = [];
    const problem = (kind: FindingKind, code: string, message: string, values: Record<string, string | number>, element: number): void => {
      findings.push(this.finding(kind, 'interchange', code, message, values, 'ISA', 1, offset));
      void element;
    };
    if (term === el || component === el || term === component) {
      throw unreadable(`Malformed ISA at byte ${offset}: element separator "${el}", component separator "${component}" and segment terminator "${term}" must differ.`, { byteOffset: offset, segmentPosition: 1, segmentId: 'ISA', elementPosition: 16 });
    }
    const isaText = t.slice(pos, el16 + 3);
    const isaBytes = Buffer.byteLength(isaText);
    if (isaBytes !== 106) {
      const why = nonAscii.test(isaText) ? 'contains non-ASCII characters' : 'is not fixed-width';
      problem('malformed_isa', ta1Codes.malformed_isa, `ISA at byte ${offset} is ${isaBytes} bytes long (must be 106): it ${why}.`, { length: isaBytes }, 0);
    }
    const version = at(12).trim();
    const isa11 = at(11);
    let repetition: string | null = null;
    if (version >= '00402' && isa11.length === 1 && !alphanumeric.test(isa11)) repetition = isa11;
    if (repetition !== null && (repetition === component || repetition === el || repetition === term)) {
      problem('delimiter_clash', ta1Codes.delimiter_clash, `ISA at byte ${offset}: the repetition separator "${repetition}" is also used as another delimiter; repetitions are not split.`, { repetition, component }, 11);
      repetition = null;
    }
    if (!validYymmdd(at(9))) problem('invalid_isa_date', ta1Codes.invalid_isa_date, `ISA09 "${at(9)}" is not a date (YYMMDD).`, { value: at(9) }, 9);
    if (!validHhmm(at(10))) problem('invalid_isa_time', ta1Codes.invalid_isa_time, `ISA10 "${at(10)}" is not a time (HHMM).`, { value: at(10) }, 10);
    const controlNumber = at(13).trim();
    if (this.interchangeControls.has(controlNumber)) {
      problem('duplicate_interchange_control', ta1Codes.duplicate_interchange_control, `Interchange control number ${controlNumber} was already used earlier in this input.`, { controlNumber }, 13);
    }
    this.interchangeControls.add(controlNumber);
    const delimiters: Delimiters = { element: el, repetition, component, segment: term };
    const header: InterchangeHeader = {
      sender: { qualifier: at(5).trim(), id: at(6).trim() },
      receiver: { qualifier: at(7).trim(), id: at(8).trim() },
      controlNumber,
      version,
      usageIndicator: at(15).trim().toUpperCase() || 'P',
      date: at(9),
      time: at(10),
      ackRequested: at(14).trim(),
      delimiters,
      offset,
    };
    this.format = { element: el, segment: term, trimEnd };
    this.elCode = el.charCodeAt(0);
    this.termChar = term;
    this.interchangesSeen++;
    this.ic = { header, findings, groupControls: new Set(), groupCount: 0, segmentCount: 1 };
    this.events.push({ type: 'interchange', header });
    return isaEnd + 1;
  }

  /** Something other than an ISA where an interchange must start. */
  private notAnInterchange(t: string, pos: number, offset: number, final: boolean): number {
    const preview = JSON.stringify(t.slice(pos, pos + 20));
    if (this.interchangesSeen === 0) {
      throw unreadable(`No interchange: the input must start with an ISA segment, found ${preview} at byte ${offset}.`, { byteOffset: offset, segmentPosition: 1, segmentId: /^[A-Za-z0-9]*/.exec(t.slice(pos, pos + 3))![0], elementPosition: null });
    }
    // Data after an IEA: report it once and skip to the end of that segment.
    let end = t.indexOf(this.termChar, pos);
    if (end < 0) {
      if (!final) return -1;
      end = t.length;
    }
    const raw = t.slice(pos, trimSegmentEnd(t, pos, end, this.format.trimEnd));
    const sep = raw.indexOf(this.format.element);
    const id = sep < 0 ? raw.slice(0, 3) : raw.slice(0, sep);
    this.events.push({
      type: 'note',
      finding: this.finding('segment_outside_interchange', 'interchange', null, `Data after the last IEA is not an interchange: ${preview} at byte ${offset}.`, { segment: id }, id, 0, offset),
    });
    return end + 1;
  }

  /** End of input: close whatever is open. */
  private finish(n: number): void {
    if (this.ic !== null) this.closeInterchange(null, n, 'end of input');
    else if (this.interchangesSeen === 0) {
      throw unreadable('No interchange: the input is empty.', { byteOffset: this.windowByte, segmentPosition: 0, segmentId: '', elementPosition: null });
    }
  }
}

function utf8Start(bytes: Uint8Array): number {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

/**
 * Reads a whole input at once. Sets of the result share the input's memory (their text is a
 * slice of it). Throws TdxError `x12_unreadable` when no interchange can be read.
 */
export function* readX12(input: string | Uint8Array): Generator<X12Event, void, undefined> {
  let text: string;
  let start = 0;
  let ascii: boolean | undefined;
  if (typeof input === 'string') {
    text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
    if (text !== input) start = 3;
  } else {
    start = utf8Start(input);
    const buf = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    text = buf.toString('utf8', start);
    ascii = text.length === buf.length - start && !text.includes('\ufffd');
  }
  const scanner = new Scanner(start);
  scanner.feed(text, true, ascii);
  // hand each event over and drop it, so consumed sets can be collected
  const events = scanner.events as (X12Event | undefined)[];
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    events[i] = undefined;
    yield e;
  }
}

/**
 * Reads a stream of chunks (Buffers, Uint8Arrays or strings) with memory flat in the input size:
 * events are yielded as soon as each set, group and interchange is complete. A set's text is
 * copied once when it spans chunks.
 */
export async function* readX12Stream(chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<X12Event, void, undefined> {
  // The BOM is kept as a character (skipped like whitespace, 3 bytes long) so offsets stay exact.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const scanner = new Scanner(0);
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (text.length === 0) continue;
    scanner.feed(text, false);
    const events = scanner.events;
    if (events.length > 0) {
      const batch = events.splice(0, events.length);
      yield* batch;
    }
  }
  scanner.feed(decoder.decode(), true);
  yield* scanner.events;
}
