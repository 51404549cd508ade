/**
 * The reader's events gathered into a tree (interchanges → groups → sets, each with its
 * findings), for inputs that fit in memory: the command line, acknowledgment generation, tests.
 */
import { groupStructuralWarnings, type StructuralFinding, type Warning } from './findings.ts';
import { readX12, type X12Event } from './reader.ts';
import type { GroupHeader, InterchangeHeader, Segment, TransactionSetRead } from './types.ts';

export interface SetEntry {
  readonly set: TransactionSetRead;
  /** Set-level structural findings. */
  readonly findings: readonly StructuralFinding[];
}

export interface GroupRead {
  readonly header: GroupHeader;
  readonly sets: SetEntry[];
  /** GE, or null when missing. */
  trailer: Segment | null;
  findings: readonly StructuralFinding[];
}

export interface InterchangeRead {
  readonly header: InterchangeHeader;
  readonly groups: GroupRead[];
  /** Interchange-level segments outside groups (TA1, ISB, ISE). */
  readonly segments: Segment[];
  /** IEA, or null when missing. */
  trailer: Segment | null;
  findings: readonly StructuralFinding[];
}

export interface X12Read {
  readonly interchanges: InterchangeRead[];
  /** Findings outside any interchange. */
  readonly notes: StructuralFinding[];
}

/** Folds reader events into a tree. */
export function collect(events: Iterable<X12Event>): X12Read {
  const interchanges: InterchangeRead[] = [];
  const notes: StructuralFinding[] = [];
  let ic: InterchangeRead | null = null;
  let group: GroupRead | null = null;
  for (const e of events) {
    switch (e.type) {
      case 'interchange':
        ic = { header: e.header, groups: [], segments: [], trailer: null, findings: [] };
        interchanges.push(ic);
        break;
      case 'group':
        group = { header: e.header, sets: [], trailer: null, findings: [] };
        ic!.groups.push(group);
        break;
      case 'set':
        if (group === null || group.header !== e.set.group) {
          // a set outside GS: the reader made a synthetic group header for it
          group = { header: e.set.group, sets: [], trailer: null, findings: [] };
          ic!.groups.push(group);
        }
        group.sets.push({ set: e.set, findings: e.findings });
        break;
      case 'segment':
        ic!.segments.push(e.segment);
        break;
      case 'group_end':
        if (group === null || group.header !== e.header) {
          group = { header: e.header, sets: [], trailer: null, findings: [] };
          ic!.groups.push(group);
        }
        group.trailer = e.trailer;
        group.findings = e.findings;
        group = null;
        break;
      case 'interchange_end':
        ic!.trailer = e.trailer;
        ic!.findings = e.findings;
        ic = null;
        break;
      case 'note':
        notes.push(e.finding);
        break;
    }
  }
  return { interchanges, notes };
}

/** Reads a whole input into a tree. Throws TdxError `x12_unreadable` when nothing can be read. */
export function readInterchanges(input: string | Uint8Array): X12Read {
  return collect(readX12(input));
}

/** Every set of a read, in input order, with its `structural_error` warnings (group ones on the group's first set). */
export function setsWithWarnings(read: X12Read): { set: TransactionSetRead; findings: readonly StructuralFinding[]; warnings: Warning[] }[] {
  const out: { set: TransactionSetRead; findings: readonly StructuralFinding[]; warnings: Warning[] }[] = [];
  for (const ic of read.interchanges) {
    for (const g of ic.groups) {
      const warnings = groupStructuralWarnings(
        g.sets.map((s) => s.findings),
        g.findings,
      );
      g.sets.forEach((s, i) => out.push({ set: s.set, findings: s.findings, warnings: warnings[i]! }));
    }
  }
  return out;
}

/** Every finding of a read, outermost first within each interchange. */
export function allFindings(read: X12Read): StructuralFinding[] {
  const out: StructuralFinding[] = [];
  for (const ic of read.interchanges) {
    out.push(...ic.findings);
    for (const g of ic.groups) {
      out.push(...g.findings);
      for (const s of g.sets) out.push(...s.findings);
    }
  }
  out.push(...read.notes);
  return out;
}
