/**
 * Structural findings of the reader (envelope arithmetic and envelope shape), with the X12 code
 * each one maps to, and the contract's `structural_error` warning derived from them.
 *
 * Codes: transaction set findings carry an AK5 code (X12 element 718, reported in AK502 or
 * IK502), group findings an AK9 code (element 716, AK905..AK909), interchange findings a TA1
 * note code (element I18, TA105). A finding without a fitting code carries `code: null`; it is
 * reported by `tdx x12 validate` but never acknowledged.
 */

export type FindingScope = 'transaction_set' | 'group' | 'interchange';

/** Stable names of the findings; branch on these, never on `message`. */
export type FindingKind =
  // transaction set (AK5)
  | 'missing_se'
  | 'set_control_mismatch'
  | 'segment_count_mismatch'
  | 'duplicate_set_control'
  // group (AK9)
  | 'missing_ge'
  | 'group_control_mismatch'
  | 'set_count_mismatch'
  | 'duplicate_group_control'
  | 'segment_outside_set'
  | 'missing_gs'
  // interchange (TA1)
  | 'missing_iea'
  | 'interchange_control_mismatch'
  | 'group_count_mismatch'
  | 'malformed_isa'
  | 'invalid_isa_date'
  | 'invalid_isa_time'
  | 'delimiter_clash'
  | 'duplicate_interchange_control'
  | 'segment_outside_group'
  | 'segment_outside_interchange';

export interface StructuralFinding {
  readonly kind: FindingKind;
  readonly scope: FindingScope;
  /** AK5 (set), AK9 (group) or TA1 (interchange) code; null when the code lists have none. */
  readonly code: string | null;
  readonly message: string;
  /** The disagreeing values, such as `{header, trailer}` or `{declared, counted}`. */
  readonly values: Readonly<Record<string, string | number>>;
  /** Where it was found: the segment that revealed it. */
  readonly segmentId: string;
  /** 1-based position of that segment in its transaction set (set findings) or interchange. */
  readonly segmentPosition: number;
  readonly byteOffset: number;
}

/** AK5 codes (718) of the set findings. */
export const ak5Codes = {
  missing_se: '2',
  set_control_mismatch: '3',
  segment_count_mismatch: '4',
  duplicate_set_control: '23',
} as const;

/** AK9 codes (716) of the group findings. */
export const ak9Codes = {
  missing_ge: '3',
  group_control_mismatch: '4',
  set_count_mismatch: '5',
  duplicate_group_control: '19',
} as const;

/** TA1 note codes (I18) of the interchange findings. */
export const ta1Codes = {
  interchange_control_mismatch: '001',
  invalid_isa_date: '014',
  invalid_isa_time: '015',
  group_count_mismatch: '021',
  malformed_isa: '022',
  missing_iea: '023',
  segment_outside_group: '024',
  duplicate_interchange_control: '025',
  delimiter_clash: '027',
} as const;

/** The contract's warning object. */
export interface Warning {
  readonly code: string;
  readonly message: string;
  readonly detail?: Record<string, unknown>;
}

/** Set findings that are envelope arithmetic (the `structural_error` warning). */
const setArithmetic = new Set<FindingKind>(['missing_se', 'set_control_mismatch', 'segment_count_mismatch']);
/** Group findings that are envelope arithmetic. */
const groupArithmetic = new Set<FindingKind>(['missing_ge', 'group_control_mismatch', 'set_count_mismatch']);

/**
 * The `structural_error` warning of a finding, or null when the finding is not envelope
 * arithmetic (duplicates, stray segments and interchange notes raise no warning).
 */
export function structuralWarning(f: StructuralFinding): Warning | null {
  if (f.scope === 'transaction_set' && setArithmetic.has(f.kind) && f.code !== null) {
    return { code: 'structural_error', message: f.message, detail: { ak502: f.code, scope: 'transaction_set', ...f.values } };
  }
  if (f.scope === 'group' && groupArithmetic.has(f.kind) && f.code !== null) {
    return { code: 'structural_error', message: f.message, detail: { ak905: f.code, scope: 'group', ...f.values } };
  }
  return null;
}

/**
 * The `structural_error` warnings of each set of one group: each set gets its own set-level
 * warnings; the group-level ones are carried once, on the group's first set.
 */
export function groupStructuralWarnings(
  setFindings: readonly (readonly StructuralFinding[])[],
  groupFindings: readonly StructuralFinding[],
): Warning[][] {
  return setFindings.map((findings, i) => {
    const out: Warning[] = [];
    for (const f of findings) {
      const w = structuralWarning(f);
      if (w) out.push(w);
    }
    if (i === 0) {
      for (const f of groupFindings) {
        const w = structuralWarning(f);
        if (w) out.push(w);
      }
    }
    return out;
  });
}
