import { describe, expect, it } from 'vitest';
import { onlySet, renderX12 } from '../../../console/src/edi.ts';
import { writeInterchange } from '../../../src/x12/index.ts';

const edi = (id: string, segments: { id: string; elements: string[] }[], release = '004010'): string =>
  writeInterchange({ sender: { qualifier: 'ZZ', id: 'THEM' }, receiver: { qualifier: 'ZZ', id: 'US' }, interchangeControlNumber: 7, usageIndicator: 'T', date: new Date('2026-03-01T10:00:00Z') }, [
    { controlNumber: 7, release, sets: [{ transactionSetIdentifier: id, controlNumber: '0001', segments }] },
  ]);

describe('renderX12', () => {
  it('names segments and elements from the base definition, with code meanings, and indents loops', () => {
    const segs = renderX12(
      edi('850', [
        { id: 'BEG', elements: ['00', 'SA', 'PO-1', '', '20260301'] },
        { id: 'N1', elements: ['ST', 'Dock 4'] },
        { id: 'N3', elements: ['1 Main St'] },
        { id: 'PO1', elements: ['1', '10', 'EA', '2.5', '', 'VP', 'SKU-1'] },
        { id: 'PO1', elements: ['2', '5', 'CA', '3', '', 'VP', 'SKU-2'] },
        { id: 'CTT', elements: ['2'] },
      ]),
    );
    expect(segs.map((s) => s.id)).toEqual(['ISA', 'GS', 'ST', 'BEG', 'N1', 'N3', 'PO1', 'PO1', 'CTT', 'SE', 'GE', 'IEA']);
    const by = (id: string, n = 0) => segs.filter((s) => s.id === id)[n]!;
    expect(by('BEG').name).toBe('Beginning Segment for Purchase Order');
    expect(by('BEG').elements[1]).toMatchObject({ label: 'BEG02', name: 'Purchase Order Type Code', reference: '92', value: 'SA', meaning: 'Stand-alone Order' });
    expect(by('ISA').elements[14]).toMatchObject({ label: 'ISA15', value: 'T', meaning: 'Test Data' });
    expect(by('ST').elements[0]).toMatchObject({ meaning: 'Purchase Order' });
    // N3 sits inside the N1 loop, one level deeper than N1's siblings; each PO1 begins an iteration
    expect(by('N1').loop).toBe('N1');
    expect(by('N3').depth).toBe(by('N1').depth);
    expect(by('N1').depth).toBe(by('BEG').depth + 1);
    expect([by('PO1', 0).loop, by('PO1', 1).loop]).toEqual(['PO1', 'PO1']);
    expect(by('PO1', 1).elements[2]).toMatchObject({ name: 'Unit or Basis for Measurement Code', meaning: 'Case' });
    expect(by('ISA').depth).toBe(0);
  });

  it('reads a 997 acknowledgment code in words, and leaves an unknown segment unnamed', () => {
    const segs = renderX12(
      edi('997', [
        { id: 'AK1', elements: ['PO', '7'] },
        { id: 'AK2', elements: ['850', '0001'] },
        { id: 'AK5', elements: ['R', '5'] },
        { id: 'ZZZ', elements: ['x'] },
        { id: 'AK9', elements: ['R', '1', '1', '0'] },
      ]),
    );
    const ak5 = segs.find((s) => s.id === 'AK5')!;
    expect(ak5.elements.map((e) => e.meaning)).toEqual(['Rejected', 'One or More Segments in Error']);
    expect(segs.find((s) => s.id === 'AK1')!.elements[0]!.meaning).toBe('Purchase Order (850)');
    expect(segs.find((s) => s.id === 'ZZZ')).toMatchObject({ name: null });
    expect(renderX12('not edi')).toEqual([]);
  });
});

describe('onlySet', () => {
  it('keeps the envelopes and the one set named by its group and set control numbers', () => {
    const text = writeInterchange({ sender: { qualifier: 'ZZ', id: 'THEM' }, receiver: { qualifier: 'ZZ', id: 'US' }, interchangeControlNumber: 9, usageIndicator: 'P', date: new Date('2026-03-01T10:00:00Z') }, [
      {
        controlNumber: 9,
        release: '004010',
        sets: [
          { transactionSetIdentifier: '850', controlNumber: '0001', segments: [{ id: 'BEG', elements: ['00', 'SA', 'PO-A', '', '20260301'] }] },
          { transactionSetIdentifier: '850', controlNumber: '0002', segments: [{ id: 'BEG', elements: ['00', 'SA', 'PO-B', '', '20260301'] }] },
        ],
      },
    ]);
    const { segments, hidden } = onlySet(renderX12(text), '9', '0002');
    expect(hidden).toBe(1);
    expect(segments.map((s) => s.id)).toEqual(['ISA', 'GS', 'ST', 'BEG', 'SE', 'GE', 'IEA']);
    expect(segments[3]!.raw).toContain('PO-B');
    expect(onlySet(renderX12(text), '9', '0404').segments).toHaveLength(renderX12(text).length);
  });
});
