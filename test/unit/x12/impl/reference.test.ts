import { describe, expect, it } from 'vitest';
import { referenceOf } from '../../../../src/x12/impl/index.ts';
import { setOf } from './helpers.ts';

/** [set, release, beginning segment with the reference at the named element, expected]. */
const rows: [string, string, string, string | null][] = [
  ['204', '004010', 'B2**SCAC**SHIP204**PP', 'SHIP204'],
  ['204', '005010', 'B2**SCAC**SHIP5010**PP', 'SHIP5010'],
  ['204', '003060', 'B2**SCAC**WRONG**SHIP3060*PP', 'SHIP3060'],
  ['210', '004010', 'B3**INV210*BOL*PP**20240101*100', 'INV210'],
  ['214', '004010', 'B10*REF*SHIP214*SCAC', 'SHIP214'],
  ['810', '004010', 'BIG*20240101*INV810', 'INV810'],
  ['812', '004010', 'BCD*20240101*ADJ812*C*10', 'ADJ812'],
  ['820', '004010', 'TRN*1*TRACE820', 'TRACE820'],
  ['846', '004010', 'BIA*00*DD*REF846*20240101', 'REF846'],
  ['850', '004010', 'BEG*00*SA*PO850**20240101', 'PO850'],
  ['855', '004010', 'BAK*00*AD*PO855*20240101', 'PO855'],
  ['856', '004010', 'BSN*00*SHIP856*20240101*1200', 'SHIP856'],
  ['860', '004010', 'BCH*01*SA*PO860**20240101', 'PO860'],
  ['865', '004010', 'BCA*01*AC*PO865', 'PO865'],
  ['875', '004010', 'G50*SA*20240101*PO875', 'PO875'],
  ['880', '004010', 'G01*20240101*INV880', 'INV880'],
  ['940', '004010', 'W05*N*DEP940', 'DEP940'],
  ['945', '004010', 'W06*N*DEP945*20240101', 'DEP945'],
  ['990', '004010', 'B1*SCAC*SHIP990*20240101*A', 'SHIP990'],
];

describe('referenceOf', () => {
  it.each(rows)('%s in %s reads its reference element', (set, release, beginning, expected) => {
    expect(referenceOf(setOf(`ST*${set}*0001~${beginning}~SE*3*0001~`, release))).toBe(expected);
  });

  it.each(rows)('%s in %s: null when the element is empty', (set, release, beginning) => {
    const expected = rows.find((r) => r[0] === set && r[1] === release)?.[3] ?? '';
    const emptied = beginning.replace(expected, '');
    expect(referenceOf(setOf(`ST*${set}*0001~${emptied}~SE*3*0001~`, release))).toBeNull();
  });

  it('204 in 003060 does not read B204', () => {
    expect(referenceOf(setOf('ST*204*0001~B2**SCAC**B204ONLY~SE*3*0001~', '003060'))).toBeNull();
  });

  it.each(['997', '999', '837', '832', '816'])('%s carries no reference', (set) => {
    expect(referenceOf(setOf(`ST*${set}*0001~BEG*00*SA*PO1~BIG*20240101*INV~SE*4*0001~`))).toBeNull();
  });

  it('GS08 with an industry suffix is read by its release', () => {
    expect(referenceOf(setOf('ST*204*0001~B2**SCAC**X**Y*PP~SE*3*0001~', '003060X01'))).toBe('Y');
  });
});
