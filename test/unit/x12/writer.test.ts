import { describe, expect, it } from 'vitest';
import { genericDocument, genericJson, genericToSegments } from '../../../src/x12/generic.ts';
import { allFindings, readInterchanges } from '../../../src/x12/interchange.ts';
import { chooseDelimiters, formatIsa, delimitersFor, functionalIdOf, interchangeVersionOf, setTrailer, writeInterchange, writeSegments } from '../../../src/x12/writer.ts';
import { fixture } from './helpers.ts';

const date = new Date('2024-03-15T09:30:00Z');
const settings = { sender: { qualifier: 'ZZ', id: 'ACME' }, receiver: { qualifier: '01', id: '123456789' }, interchangeControlNumber: 42, date };

describe('writer', () => {
  it('writes a fixed-width ISA with ISA11 per version', () => {
    const isa401 = formatIsa(settings, delimitersFor({}));
    expect(isa401.length + 1).toBe(106);
    expect(isa401.split('*')).toEqual(['ISA', '00', ' '.repeat(10), '00', ' '.repeat(10), 'ZZ', 'ACME'.padEnd(15), '01', '123456789'.padEnd(15), '240315', '0930', 'U', '00401', '000000042', '0', 'P', '>']);
    const isa501 = formatIsa({ ...settings, version: '00501', usageIndicator: 'T' }, delimitersFor({ version: '00501' }));
    expect(isa501.split('*').slice(11, 16)).toEqual(['^', '00501', '000000042', '0', 'T']);
  });

  it('computes SE, GE and IEA counts, and the written interchange reads back with no finding', () => {
    const text = writeInterchange({ ...settings, version: '00501' }, [
      {
        controlNumber: 7,
        release: '005010',
        sets: [
          { transactionSetIdentifier: '850', controlNumber: 1, segments: [{ id: 'BEG', elements: ['00', 'SA', 'PO-1', '', '20240315'] }, { id: 'REF', elements: ['ZZ', { repetitions: ['A', ['B', 'C']] }, ''] }] },
          { transactionSetIdentifier: '850', controlNumber: 2, segments: [{ id: 'BEG', elements: ['00', 'SA', 'PO-2'] }] },
        ],
      },
    ]);
    expect(text).toContain('GS*PO*ACME*123456789*20240315*0930*7*X*005010~');
    expect(text).toContain('REF*ZZ*A^B>C~SE*4*0001~');
    expect(text).toContain('GE*2*7~IEA*1*000000042~');
    const read = readInterchanges(text);
    expect(allFindings(read)).toEqual([]);
    expect(read.interchanges[0]!.groups[0]!.sets.map((s) => s.set.controlNumber)).toEqual(['0001', '0002']);
  });

  it('refuses values that contain a delimiter, naming segment and element', () => {
    expect(() => writeSegments([{ id: 'N1', elements: ['ST', 'A*B'] }], delimitersFor({}))).toThrow(/N102 contains the delimiter/);
    expect(() => writeSegments([{ id: 'N1', elements: [{ repetitions: ['A', 'B'] }] }], delimitersFor({ version: '00401' }))).toThrow(/no repetition separator/);
  });

  it('generic translation round-trips EDI → JSON → EDI to the same segments', () => {
    for (const name of ['valid-850.edi', 'newline-bom.edi', 'two-interchanges.edi']) {
      for (const ic of readInterchanges(fixture(name)).interchanges) {
        for (const g of ic.groups) {
          for (const { set } of g.sets) {
            const doc = genericDocument(set);
            const d = ic.header.delimiters;
            // every segment, ST and SE included, keyed by segment id and element position
            expect(doc.segments.map((s) => s.id)).toEqual(set.segments.map((s) => s.id));
            set.segments.forEach((s, i) => {
              s.elements.forEach((e, j) => {
                const key = `${s.id}${String(j + 1).padStart(2, '0')}`;
                if (e === '') expect(doc.segments[i]![key]).toBeUndefined();
                else if (!e.includes(d.component) && (d.repetition === null || !e.includes(d.repetition))) expect(doc.segments[i]![key]).toBe(e);
              });
            });
            expect(genericJson(set).length).toBeGreaterThan(0);
            const body = set.segments.slice(1, -1).map((s) => s.id + d.element + s.elements.join(d.element));
            const written = writeSegments(genericToSegments(JSON.parse(JSON.stringify(doc))), d).split(d.segment).filter((s) => s !== '');
            expect(written).toEqual(body.map((s) => s.replace(new RegExp(`\\${d.element}+$`), '')));
          }
        }
      }
    }
  });

  it('knows GS01 for the standard\'s sets, and none for a code that is no X12 set', () => {
    expect([functionalIdOf('850'), functionalIdOf('811'), functionalIdOf('999'), functionalIdOf('830'), functionalIdOf('275')]).toEqual(['PO', 'CI', 'FA', 'PS', 'PI']);
    expect(functionalIdOf('000')).toBeUndefined();
    expect(functionalIdOf('constructor')).toBeUndefined();
  });

  it('defaults ISA12 from the release', () => {
    expect(['004010', '005010X222A1', '003060', '00501', 'VICS'].map(interchangeVersionOf)).toEqual(['00401', '00501', '00306', '00501', '00401']);
    const text = writeInterchange(settings, [{ controlNumber: 1, release: '005010X222A1', functionalId: 'HC', sets: [{ transactionSetIdentifier: '837', controlNumber: 1, segments: [] }] }]);
    expect(text.slice(82, 89)).toBe('^*00501');
  });

  it('chooses delimiters no value uses, keeping the ones the caller fixed', () => {
    expect(chooseDelimiters(new Set(), '00501')).toEqual({ element: '*', component: '>', repetition: '^', segment: '~' });
    const d = chooseDelimiters(new Set(['*', '>', '~']), '00501');
    expect(new Set([d.element, d.component, d.segment, d.repetition]).size).toBe(4);
    expect([d.element, d.component, d.segment]).not.toContain('*');
    expect([d.element, d.component, d.segment, d.repetition]).not.toContain('>');
    expect(chooseDelimiters(new Set(['*']), '00401', { fixed: { element: '*' } })).toEqual({ element: '*', component: '>', repetition: null, segment: '~' });
    expect(chooseDelimiters(new Set(['|']), '00401', { prefer: { element: '|', segment: '\n' } })).toMatchObject({ element: '*', segment: '\n' });
  });

  it('writes ST03 on as the set gives it, and SE computed with SE02 the ST02 as written', () => {
    const segments = [{ id: 'BEG', elements: ['00'] }, { id: 'REF', elements: ['ZZ', 'A'] }];
    const text = writeInterchange(settings, [{ controlNumber: 1, release: '004010', functionalId: 'PO', sets: [{ transactionSetIdentifier: '850', controlNumber: '12 ', headerElements: ['X1'], segments }] }]);
    expect(text).toContain('ST*850*12 *X1~BEG*00~REF*ZZ*A~SE*4*12 ~');
    const read = readInterchanges(text);
    expect(allFindings(read)).toEqual([]);
    expect(setTrailer(0, '0001')).toEqual(['2', '0001']);
    expect(setTrailer(segments.length, ' 7 ')).toEqual(['4', ' 7 ']);
  });
});
