/* eslint-disable @typescript-eslint/no-explicit-any -- translated documents are walked by key in these tests */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  baseImplementation,
  documentToSegments,
  implementationSchema,
  segmentNotes,
  supportedReleases,
  supportedSets,
  translateSet,
  translateSetJson,
  implementationFor,
  validateSet,
} from '../../../../src/x12/impl/index.ts';
import type { TransactionSetRead } from '../../../../src/x12/types.ts';
import type { ElementFinding, Finding } from '../../../../src/x12/impl/index.ts';
import { isTdxError } from '../../../../src/errors.ts';
import { setOf, textOf } from './helpers.ts';

const po =
  'ST*850*0001~BEG*00*SA*PO123**20240131~CUR*BY*USD~REF*DP*038~PER*BD*Jane*TE*5551234~DTM*002*20240215~' +
  'N9*ZZ*NOTE~MSG*Handle with care~N1*ST*Store 1*92*001~N3*1 Main St~N4*Town*NY*10001*US~N1*BT*Head Office~' +
  'PO1*1*10*EA*9.5**VP*ABC*UP*012345678905~PID*F****Widget~PO4*12~SDQ*EA*92*001*5*002*5~' +
  'PO1*2*5.25*CS*12.75**VP*DEF~CTT*2*15.25~SE*19*0001~';

// each implementation schema is compiled once: ajv's passes that tidy the generated code cost more
// than they save on a single validation (the validator accepts and refuses the same)
const ajv = new Ajv2020({ allErrors: true, strict: false, code: { optimize: false } });

describe('translateSet (850, 004010)', () => {
  const set = setOf(po);
  const { document, warnings } = translateSet(set);

  it('names keys by segment id and element position, loops as arrays', () => {
    const heading = document['heading'] as Record<string, any>;
    expect(heading['beginning_segment_for_purchase_order_BEG']).toEqual({
      transaction_set_purpose_code_01: '00',
      purchase_order_type_code_02: 'SA',
      purchase_order_number_03: 'PO123',
      date_05: '2024-01-31',
    });
    expect(heading['name_N1_loop']).toHaveLength(2);
    expect(heading['name_N1_loop'][0]['geographic_location_N4'][0]['country_code_04']).toBe('US');
    const lines = (document['detail'] as Record<string, any>)['baseline_item_data_PO1_loop'];
    expect(lines).toHaveLength(2);
    expect(lines[1]['baseline_item_data_PO1']['quantity_ordered_02']).toBe(5.25);
    expect(lines[1]['baseline_item_data_PO1']['unit_price_04']).toBe(12.75);
    expect(lines[0]['product_item_description_PID_loop'][0]['product_item_description_PID']['description_05']).toBe('Widget');
    expect((document['summary'] as any)['transaction_totals_CTT_loop'][0]['transaction_totals_CTT']).toEqual({ number_of_line_items_01: 2, hash_total_02: 15.25 });
    expect(warnings).toEqual([]);
  });

  it('writes the same segments back', () => {
    expect(textOf(documentToSegments(document, baseImplementation('850', '004010')))).toBe(po);
  });

  it('computes SE whatever the document gives: an edited document and a wrong SE01/SE02', () => {
    const impl = baseImplementation('850', '004010');
    const edited = structuredClone(document) as Record<string, any>;
    const lines = edited['detail']['baseline_item_data_PO1_loop'] as unknown[];
    lines.push(structuredClone(lines[1]));
    expect(textOf(documentToSegments(edited, impl))).toBe(po.replace('CTT*2*15.25~SE*19*0001~', 'PO1*2*5.25*CS*12.75**VP*DEF~CTT*2*15.25~SE*20*0001~'));
    const wrong = translateSet(setOf(po.replace('SE*19*0001~', 'SE*7*0009~'))).document;
    expect((wrong['summary'] as any)['transaction_set_trailer_SE']).toEqual({ number_of_included_segments_01: 7, transaction_set_control_number_02: '0009' });
    expect(textOf(documentToSegments(wrong, impl))).toBe(po);
    const generic = translateSet(setOf('ST*837*0001 ~BHT*0019~SE*9*0001~')).document;
    expect(textOf(documentToSegments(generic, null))).toBe('ST*837*0001 ~BHT*0019~SE*3*0001 ~');
  });

  it('finds nothing wrong with a conforming document', () => {
    expect(checkSet(set)).toEqual([]);
  });

  it('validates against its JSON Schema', { timeout: 60_000 }, () => {
    const validate = ajv.compile(implementationSchema(baseImplementation('850', '004010')!));
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
  });

  it('reads N types with implied decimals and writes them back', () => {
    const t = translateSet(setOf('ST*810*0001~BIG*20240101*INV1~IT1*1*2*EA*3~TDS*123456~SE*5*0001~'));
    expect((t.document['summary'] as any)['total_monetary_value_summary_TDS']['amount_01']).toBe(1234.56);
    expect(textOf(documentToSegments(t.document, baseImplementation('810', '004010')))).toBe('ST*810*0001~BIG*20240101*INV1~IT1*1*2*EA*3~TDS*123456~SE*5*0001~');
  });

  it('normalises numbers: JSON numbers in canonical form, written back canonical (docs/x12-implementations.md)', () => {
    const text = 'ST*810*0001~BIG*20240101*INV1~IT1*1*0002.50*EA*.5~IT1*2*-0.0*EA*007~TDS*000450~SE*6*0001~';
    const { json } = translateSetJson(setOf(text));
    // the JSON text itself carries canonical numbers: no leading zeros, no trailing fraction zeros
    expect(json).toContain('"quantity_invoiced_02":2.5,');
    expect(json).toContain('"unit_price_04":0.5}');
    expect(json).toContain('"quantity_invoiced_02":0,');
    expect(json).toContain('"unit_price_04":7}');
    expect(json).toContain('"amount_01":4.5}');
    // compared: the written text, in which R "0002.50" → 2.5 → "2.5", ".5" → "0.5", "-0.0" → "0", "007" → "7", N2 "000450" → 4.5 → "450"
    const written = textOf(documentToSegments(JSON.parse(json), baseImplementation('810', '004010')));
    expect(written).toBe('ST*810*0001~BIG*20240101*INV1~IT1*1*2.5*EA*0.5~IT1*2*0*EA*7~TDS*450~SE*6*0001~');
  });

  it('writes long digit strings exactly and negative implied decimals with their sign', () => {
    const { json } = translateSetJson(setOf('ST*810*0001~BIG*20240101*INV1~IT1*1*123456789012345678*EA*-0.25~TDS*-5~SE*5*0001~'));
    expect(json).toContain('"quantity_invoiced_02":123456789012345678,');
    expect(json).toContain('"unit_price_04":-0.25}');
    expect(json).toContain('"amount_01":-0.05}');
  });
});

describe('invalid_date', () => {
  it.each([
    ['20241301', 'month 13'],
    ['20240132', 'day 32'],
    ['11111111', 'year 1111'],
    ['20230229', 'not a leap year'],
    ['2024013', 'seven digits'],
  ])('%s (%s) is warned about and left out', (value) => {
    const set = setOf(`ST*850*0001~BEG*00*SA*PO1**20240101~DTM*002*${value}~PO1*1*1*EA*1~SE*5*0001~`);
    const t = translateSet(set);
    expect(t.warnings).toEqual([
      { code: 'invalid_date', message: expect.stringContaining(value) as string, detail: { segment: 'DTM', element: 'DTM02', value } },
    ]);
    expect(t.warnings[0]?.message).toContain('DTM02');
    expect((t.document['heading'] as any)['date_time_reference_DTM'][0]).toEqual({ date_time_qualifier_01: '002' });
    const f = checkSet(set).find((x) => x.code === '8') as ElementFinding;
    expect(f).toMatchObject({ level: 'element', segmentId: 'DTM', position: 3, elementPosition: 2, elementReference: '373', value });
  });

  it('a good leap day passes', () => {
    const t = translateSet(setOf('ST*850*0001~BEG*00*SA*PO1**20240229~PO1*1*1*EA*1~SE*4*0001~'));
    expect(t.warnings).toEqual([]);
  });

  it('six-digit dates are read in 003060', () => {
    const ok = translateSet(setOf('ST*204*0001~B2**SCAC**R**SHIP*PP~B2A*00~G62*10*240131~S5*1*LD~SE*6*0001~', '003060'));
    expect(ok.warnings).toEqual([]);
    const bad = translateSet(setOf('ST*204*0001~B2**SCAC**R**SHIP*PP~B2A*00~G62*10*241331~S5*1*LD~SE*6*0001~', '003060'));
    expect(bad.warnings.map((w) => w.detail)).toEqual([{ segment: 'G62', element: 'G6202', value: '241331' }]);
  });
});

/**
 * The engine's validation against the base definition of the set's own release, given
 * explicitly: by default only a proven definition validates (validationImplementation).
 */
function checkSet(set: TransactionSetRead): Finding[] {
  return validateSet(set, implementationFor(set));
}

describe('validateSet codes', () => {
  const codes = (fs: Finding[]): string[] => fs.map((f) => `${f.level === 'segment' ? 'AK3' : 'AK4'}:${f.segmentId}:${f.code}`);

  it.each([
    ['mandatory segment missing (AK3 3)', 'ST*850*0001~DTM*002*20240101~PO1*1*1*EA*1~SE*4*0001~', 'AK3:BEG:3'],
    ['unexpected segment (AK3 2)', 'ST*850*0001~BEG*00*SA*PO1**20240101~ZZZ*1~PO1*1*1*EA*1~SE*5*0001~', 'AK3:ZZZ:2'],
    ['segment out of sequence (AK3 7)', 'ST*850*0001~BEG*00*SA*PO1**20240101~PO1*1*1*EA*1~LDT*AE*5*DA~SE*5*0001~', 'AK3:LDT:7'],
    ['segment over max use (AK3 5)', 'ST*850*0001~BEG*00*SA*PO1**20240101~BEG*00*SA*PO2**20240101~PO1*1*1*EA*1~SE*5*0001~', 'AK3:BEG:5'],
    ['bad segment id (AK3 1)', 'ST*850*0001~BEG*00*SA*PO1**20240101~b@d*1~PO1*1*1*EA*1~SE*5*0001~', 'AK3:b@d:1'],
    ['mandatory element missing (AK4 1)', 'ST*850*0001~BEG*00*SA*PO1~PO1*1*1*EA*1~SE*4*0001~', 'AK4:BEG:1'],
    ['too long (AK4 5)', `ST*850*0001~BEG*00*SA*${'X'.repeat(23)}**20240101~PO1*1*1*EA*1~SE*4*0001~`, 'AK4:BEG:5'],
    ['too short (AK4 4)', 'ST*850*0001~BEG*0*SA*PO1**20240101~PO1*1*1*EA*1~SE*4*0001~', 'AK4:BEG:4'],
    ['invalid number (AK4 6)', 'ST*850*0001~BEG*00*SA*PO1**20240101~PO1*1*ten*EA*1~SE*4*0001~', 'AK4:PO1:6'],
    ['invalid time (AK4 9)', 'ST*850*0001~BEG*00*SA*PO1**20240101~DTM*002*20240101*2575~PO1*1*1*EA*1~SE*5*0001~', 'AK4:DTM:9'],
    ['too many elements (AK4 3)', 'ST*850*0001~BEG*00*SA*PO1**20240101~N1*ST*X~N2*A*B*C~PO1*1*1*EA*1~SE*6*0001~', 'AK4:N2:3'],
    ['paired elements (AK4 2)', 'ST*850*0001~BEG*00*SA*PO1**20240101~PER*BD*Jane*TE~PO1*1*1*EA*1~SE*5*0001~', 'AK4:PER:2'],
    ['exclusion (AK4 10)', 'ST*850*0001~BEG*00*SA*PO1**20240101~PO1*1*1*EA*1~QTY*01*5**FREE~SE*5*0001~', 'AK4:QTY:10'],
    ['too many components (AK4 13)', 'ST*850*0001~BEG*00*SA*PO1**20240101~REF*DP*1**A:B:C:D:E:F:G~PO1*1*1*EA*1~SE*5*0001~', 'AK4:REF:13'],
  ])('%s', (_, text, expected) => {
    expect(codes(checkSet(setOf(text)))).toContain(expected);
  });

  it('invalid code value (AK4 7) and too many repetitions (AK4 12) on 997', () => {
    const f = checkSet(setOf('ST*997*0001~AK1*PO*1~AK2*850*0001~AK5*Q~AK9*A*1*1*1~SE*6*0001~', '005010'));
    expect(codes(f)).toEqual(['AK4:AK5:7']);
  });

  it('loop over its maximum (AK3 4)', () => {
    const n1 = Array.from({ length: 11 }, (_, i) => `N1*ST*S${i}`).join('~');
    const f = checkSet(setOf(`ST*210*0001~B3**INV*BOL*PP**20240101*100~${n1}~L3*1~SE*15*0001~`));
    expect(codes(f)).toContain('AK3:N1:4');
  });

  it('groups findings into AK3 notes with their AK4s', () => {
    const f = checkSet(setOf('ST*850*0001~BEG*0*SA*PO1~ZZZ~PO1*1*x*EA*1~SE*5*0001~'));
    const notes = segmentNotes(f);
    expect(notes.map((n) => [n.segmentId, n.position, n.code, n.elements.map((e) => e.code)])).toEqual([
      ['BEG', 2, '8', ['4', '1']],
      ['ZZZ', 3, '2', []],
      ['PO1', 4, '8', ['6']],
    ]);
  });
});

describe('unknown sets and unexpected content', () => {
  it('translates an unknown set to generic segment JSON, and writes it back', () => {
    const text = 'ST*837*0001~BHT*0019*00*1*20240101~NM1*41*2*ACME~SE*4*0001~';
    const t = translateSet(setOf(text));
    expect(t.document).toEqual({
      segments: [
        { id: 'ST', ST01: '837', ST02: '0001' },
        { id: 'BHT', BHT01: '0019', BHT02: '00', BHT03: '1', BHT04: '20240101' },
        { id: 'NM1', NM101: '41', NM102: '2', NM103: 'ACME' },
        { id: 'SE', SE01: '4', SE02: '0001' },
      ],
    });
    expect(checkSet(setOf(text))).toEqual([]);
    expect(textOf(documentToSegments(t.document, null))).toBe(text);
  });

  it('keeps segments and elements it cannot place', () => {
    const text = 'ST*850*0001~BEG*00*SA*PO1**20240101~ZZZ*1*2~PO1*1*1*EA*1~N1*ST*X~N2*A*B*EXTRA~SE*7*0001~';
    const t = translateSet(setOf(text));
    expect((t.document['heading'] as any)['unrecognized_segments']).toEqual([{ id: 'ZZZ', ZZZ01: '1', ZZZ02: '2' }]);
    expect(JSON.stringify(t.document)).toContain('"unrecognized_element_03":"EXTRA"');
    expect(textOf(documentToSegments(t.document, baseImplementation('850', '004010')))).toBe(text);
  });

  it('keeps unplaced segments in the generic segment shape: composites, repetitions, escapes', () => {
    const text = 'ST*850*0001~BEG*00*SA*PO1**20240101~ZZZ*1*A:B*X^Y:Z**"q"\\~PO1*1*1*EA*1~SE*5*0001~';
    const t = translateSet(setOf(text));
    expect((t.document['heading'] as any)['unrecognized_segments']).toEqual([{ id: 'ZZZ', ZZZ01: '1', ZZZ02: ['A', 'B'], ZZZ03: { repetitions: ['X', ['Y', 'Z']] }, ZZZ05: '"q"\\' }]);
    expect(textOf(documentToSegments(t.document, baseImplementation('850', '004010')))).toBe(text);
  });

  it('refuses to write an unknown key or a delimiter inside a value, naming the path', () => {
    const impl = baseImplementation('850', '004010');
    const bad = (doc: unknown): string => {
      try {
        documentToSegments(doc, impl);
        return 'no error';
      } catch (e) {
        return isTdxError(e) ? `${e.code}: ${e.message}` : String(e);
      }
    };
    expect(bad({ heading: { nope_XYZ: {} } })).toMatch(/^x12_document_invalid: \$\.heading\.nope_XYZ/);
    expect(bad({ heading: { beginning_segment_for_purchase_order_BEG: { purchase_order_number_03: 'A*B' } } })).toMatch(/delimiter/);
  });
});

describe('base definitions', () => {
  const all = supportedSets.flatMap((s) => supportedReleases(s).map((r) => [s, r] as const));
  it('cover every set of the reference table plus 997 and 999, for 004010 and 005010, and 204 for 003060', () => {
    for (const s of ['204', '210', '214', '810', '812', '820', '846', '850', '855', '856', '860', '865', '875', '880', '940', '945', '990', '997', '999']) {
      // the 999 exists from 005010 on
      if (s === '999') expect(baseImplementation(s, '004010'), s).toBeNull();
      else expect(baseImplementation(s, '004010'), s).not.toBeNull();
      expect(baseImplementation(s, '005010X231A1'), s).not.toBeNull();
    }
    expect(baseImplementation('204', '003060')).not.toBeNull();
    expect(baseImplementation('850', '003060')).toBeNull();
    expect(baseImplementation('837', '005010')).toBeNull();
  });
  it.each(all)('%s %s begins with ST and ends with SE, positions by release', (s, r) => {
    const impl = baseImplementation(s, r)!;
    const first = impl.tables[0]!.children[0]!;
    const lastTable = impl.tables[impl.tables.length - 1]!;
    const last = lastTable.children[lastTable.children.length - 1]!;
    expect([first.id, last.id]).toEqual(['ST', 'SE']);
    expect(first.position).toBe(r === '005010' ? '0100' : '010');
  });
});
