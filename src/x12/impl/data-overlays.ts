/**
 * Per-release differences from the 004010 dictionary: each overlay replaces whole entries (same
 * compact syntax as `data-segments.ts` and `data-elements.ts`).
 */
export interface ReleaseOverlay {
  readonly elements: string;
  readonly segments: string;
  readonly composites?: string;
}

export const overlays: Readonly<Record<string, ReleaseOverlay>> = {
  '005010': {
    elements: `
447 AN 1 4 Loop Identifier Code
719 N0 1 10 Segment Position in Transaction Set
127 AN 1 50 Reference Identification
364 AN 1 256 Communication Number
1715 ID 1 3 Country Subdivision Code
`,
    segments: `
ST Transaction Set Header: M143 M329 O1705
AK1 Functional Group Response Header: M479 M28 O480
AK2 Transaction Set Response Header: M143 M329 O1705
N4 Geographic Location: O19 X156 X116 X26 X309 X310 X1715 ; E0207 C0605 C0704
`,
    composites: `
C030 Position in Segment: M722 O1528 O1686
`,
  },
  '003060': {
    elements: `
373 DT 6 6 Date
370 DT 6 6 Terms Discount Due Date
388 DT 6 6 Terms Deferred Due Date
446 DT 6 6 Terms Net Due Date
`,
    segments: `
B2 Beginning Segment for Shipment Information Transaction: O375 O140 O154 O127 O188 O145 M146 O147 O86 O183 O194 O152
`,
  },
};
