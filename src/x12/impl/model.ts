/**
 * The implementation model: what a transaction set looks like in one release, and how a partner
 * uses it. A base implementation states the standard; a partner implementation is a full copy of
 * one that narrows or adjusts usage, repeats and codes (see `derive.ts`). Everything here is
 * plain JSON-compatible data, so an implementation can be stored, exported and compared as is.
 */

/** Requirement designator of the standard: mandatory, optional, or relational (X, elements only). */
export type Requirement = 'M' | 'O' | 'X';

/** How an implementation uses a node: must be sent, may be sent, must not be sent. */
export type Usage = 'must_use' | 'used' | 'not_used';

/** X12 data types; N0..N9 carry their implied decimal count. */
export type DataType = 'ID' | 'AN' | 'N0' | 'N1' | 'N2' | 'N3' | 'N4' | 'N5' | 'N6' | 'N7' | 'N8' | 'N9' | 'R' | 'DT' | 'TM' | 'B';

export const dataTypes: readonly DataType[] = ['ID', 'AN', 'N0', 'N1', 'N2', 'N3', 'N4', 'N5', 'N6', 'N7', 'N8', 'N9', 'R', 'DT', 'TM', 'B'];

/** One element of a segment, or one component of a composite. */
export interface ElementDef {
  /** 1-based position in the segment (or in the composite, for a component). */
  readonly position: number;
  /** Data element reference number ("373") or composite id ("C040"). */
  readonly reference: string;
  readonly name: string;
  readonly requirement: Requirement;
  readonly usage: Usage;
  /** Data type; "composite" for a composite element (see `components`). */
  readonly type: DataType | 'composite';
  readonly minLength: number;
  readonly maxLength: number;
  /** Maximum repetitions (1 = not repeating). */
  readonly repeat: number;
  /** Allowed code values; absent when any value of the right type and length passes. */
  readonly codes?: readonly string[];
  readonly notes?: string;
  readonly components?: readonly ElementDef[];
}

export interface SegmentNode {
  readonly kind: 'segment';
  /** Segment id, such as "BEG". */
  readonly id: string;
  readonly name: string;
  /** Position number in the standard's table ("0200" in 005010, "020" in 004010). */
  readonly position: string;
  readonly requirement: 'M' | 'O';
  readonly usage: Usage;
  /** Maximum use; null is unbounded (">1"). */
  readonly maxUse: number | null;
  readonly elements: readonly ElementDef[];
  /**
   * Syntax notes: P (paired), R (at least one), E (exclusive), C (if first then all), L (if first
   * then at least one of the rest), followed by two-digit element positions, such as "P0304".
   */
  readonly syntax?: readonly string[];
  readonly notes?: string;
}

export interface LoopNode {
  readonly kind: 'loop';
  /** Loop identifier, such as "N1" or "PO1". */
  readonly id: string;
  /** Position of the loop's first segment. */
  readonly position: string;
  readonly requirement: 'M' | 'O';
  readonly usage: Usage;
  /** Maximum repeat; null is unbounded. */
  readonly repeat: number | null;
  /** First child is the loop's beginning segment. */
  readonly children: readonly StructureNode[];
  readonly notes?: string;
}

export type StructureNode = SegmentNode | LoopNode;

export type TableName = 'heading' | 'detail' | 'summary';
export const tableNames: readonly TableName[] = ['heading', 'detail', 'summary'];

export interface TableDef {
  readonly name: TableName;
  readonly children: readonly StructureNode[];
}

export type ImplementationStatus = 'draft' | 'published';

export interface Implementation {
  readonly id: string;
  readonly name: string;
  /** Free version string, such as "1.2". */
  readonly version: string;
  readonly status: ImplementationStatus;
  readonly transactionSet: { readonly identifier: string; readonly release: string };
  readonly description?: string;
  /** The implementation this one was derived from; null for a base implementation. */
  readonly sourceImplementation: { readonly id: string; readonly name: string } | null;
  readonly tables: readonly TableDef[];
}

/** Counts shown on the implementation resource. */
export function useCounts(impl: Implementation): { segmentUseCount: number; loopUseCount: number } {
  let segmentUseCount = 0;
  let loopUseCount = 0;
  const walk = (nodes: readonly StructureNode[]): void => {
    for (const n of nodes) {
      if (n.usage === 'not_used') continue;
      if (n.kind === 'segment') segmentUseCount++;
      else {
        loopUseCount++;
        walk(n.children);
      }
    }
  };
  for (const t of impl.tables) walk(t.children);
  return { segmentUseCount, loopUseCount };
}
