import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTdxError, type TdxError } from '../../../src/errors.ts';
import { groupStructuralWarnings } from '../../../src/x12/findings.ts';
import { allFindings, collect, readInterchanges, setsWithWarnings } from '../../../src/x12/interchange.ts';
import { readX12, readX12Stream, type X12Event } from '../../../src/x12/reader.ts';
import { fixture } from './helpers.ts';

function kinds(input: string | Buffer): string[] {
  return allFindings(readInterchanges(input)).map((f) => `${f.kind}:${f.code ?? ''}`);
}

function catchError(fn: () => unknown): TdxError {
  try {
    fn();
  } catch (err) {
    if (isTdxError(err)) return err;
    throw err;
  }
  throw new Error('no error thrown');
}

describe('readX12', () => {
  it('reads envelopes, delimiters and sets of a valid interchange with no finding', () => {
    const read = readInterchanges(fixture('valid-850.edi'));
    expect(read.interchanges).toHaveLength(1);
    const ic = read.interchanges[0]!;
    expect(ic.header).toMatchObject({
      sender: { qualifier: 'ZZ', id: 'ACME' },
      receiver: { qualifier: 'ZZ', id: 'WIDGETCO' },
      controlNumber: '000000101',
      version: '00401',
      usageIndicator: 'T',
      delimiters: { element: '*', component: '>', segment: '~', repetition: null },
    });
    expect(ic.groups[0]!.header).toMatchObject({ functionalId: 'PO', controlNumber: '7', release: '004010' });
    const sets = ic.groups[0]!.sets.map((s) => s.set);
    expect(sets.map((s) => [s.transactionSetIdentifier, s.controlNumber])).toEqual([
      ['850', '0001'],
      ['850', '0002'],
    ]);
    const segs = sets[1]!.segments;
    expect(segs[0]).toMatchObject({ id: 'ST', elements: ['850', '0002'], position: 1 });
    expect(segs.at(-1)).toMatchObject({ id: 'SE', elements: ['8', '0002'], position: 8 });
    expect(segs[1]).toMatchObject({ id: 'BEG', elements: ['00', 'SA', 'PO-1002', '', '20240315'] });
    // byte offsets point at the segment's first byte
    const raw = fixture('valid-850.edi').toString('latin1');
    for (const s of segs) expect(raw.startsWith(s.id, s.offset)).toBe(true);
    expect(allFindings(read)).toEqual([]);
  });

  it('tolerates a BOM, CRLF after a CR terminator, repetition and component separators from 00501', () => {
    const read = readInterchanges(fixture('newline-bom.edi'));
    const ic = read.interchanges[0]!;
    expect(ic.header.delimiters).toEqual({ element: '|', component: ':', repetition: '^', segment: '\r' });
    const set = ic.groups[0]!.sets[0]!.set;
    expect(set.segments.map((s) => s.id)).toEqual(['ST', 'BEG', 'REF', 'SE']);
    expect(set.segments[2]!.elements).toEqual(['ZZ', 'A^B', 'C:D']);
    expect(set.segments[0]!.offset).toBe(fixture('newline-bom.edi').indexOf('ST|'));
    expect(allFindings(read)).toEqual([]);
  });

  it('reads several interchanges with their own delimiters, ignoring a trailing Ctrl-Z', () => {
    const read = readInterchanges(fixture('two-interchanges.edi'));
    expect(read.interchanges.map((i) => i.header.delimiters)).toEqual([
      { element: '*', component: '>', repetition: null, segment: '~' },
      { element: '^', component: '!', repetition: '{', segment: '\x15' },
    ]);
    expect(read.interchanges[1]!.groups[0]!.sets[0]!.set.segments[1]!.elements[5]).toBe('CH');
    expect(allFindings(read)).toEqual([]);
  });

  it('reports trailer arithmetic with X12 codes and the disagreeing values', () => {
    const read = readInterchanges(fixture('trailer-errors.edi'));
    const g = read.interchanges[0]!.groups[0]!;
    expect(g.sets[0]!.findings).toMatchObject([{ kind: 'segment_count_mismatch', code: '4', values: { declared: '99', counted: 7 } }]);
    expect(g.sets[1]!.findings).toMatchObject([{ kind: 'set_control_mismatch', code: '3', values: { header: '0002', trailer: '0003' } }]);
    expect(g.sets[2]!.findings).toEqual([]);
    expect(g.findings).toMatchObject([
      { kind: 'set_count_mismatch', code: '5', values: { declared: '5', counted: 3 } },
      { kind: 'group_control_mismatch', code: '4', values: { header: '9', trailer: '10' } },
    ]);
    expect(read.interchanges[0]!.findings.map((f) => [f.kind, f.code])).toEqual([
      ['group_count_mismatch', '021'],
      ['interchange_control_mismatch', '001'],
    ]);
  });

  it('turns findings into structural_error warnings, group ones once on the first set', () => {
    const rows = setsWithWarnings(readInterchanges(fixture('trailer-errors.edi')));
    expect(rows.map((r) => r.warnings.map((w) => w.detail))).toEqual([
      [
        { ak502: '4', scope: 'transaction_set', declared: '99', counted: 7 },
        { ak905: '5', scope: 'group', declared: '5', counted: 3 },
        { ak905: '4', scope: 'group', header: '9', trailer: '10' },
      ],
      [{ ak502: '3', scope: 'transaction_set', header: '0002', trailer: '0003' }],
      [],
    ]);
    expect(rows.every((r) => r.warnings.every((w) => w.code === 'structural_error'))).toBe(true);
    expect(groupStructuralWarnings([[], []], [])).toEqual([[], []]);
  });

  it('reports missing SE, GE and IEA on a truncated interchange and keeps every set', () => {
    const read = readInterchanges(fixture('truncated.edi'));
    const g = read.interchanges[0]!.groups[0]!;
    expect(g.sets.map((s) => s.set.controlNumber)).toEqual(['0001', '0002']);
    expect(g.sets[0]!.findings).toMatchObject([{ kind: 'missing_se', code: '2', values: { expected: 'SE', found: 'ST' } }]);
    expect(g.sets[0]!.set.segments.map((s) => s.id)).toEqual(['ST', 'BEG', 'REF', 'PO1', 'PO1', 'CTT']);
    expect(g.findings).toMatchObject([{ kind: 'missing_ge', code: '3' }]);
    expect(read.interchanges[0]!.findings).toMatchObject([{ kind: 'missing_iea', code: '023' }]);
  });

  it('accepts a newline as segment terminator and any byte as element separator', () => {
    const isa = 'ISA\x7f00\x7f          \x7f00\x7f          \x7fZZ\x7fA              \x7fZZ\x7fB              \x7f240101\x7f1200\x7fU\x7f00401\x7f000000001\x7f0\x7fP\x7f>\n';
    const text = isa + ['GS\x7fPO\x7fA\x7fB\x7f20240101\x7f1200\x7f1\x7fX\x7f004010', 'ST\x7f850\x7f0001', 'BEG\x7f00\x7fSA\x7f1', 'SE\x7f3\x7f0001', 'GE\x7f1\x7f1', 'IEA\x7f1\x7f000000001'].join('\n');
    const read = readInterchanges(text);
    expect(read.interchanges[0]!.header.delimiters.segment).toBe('\n');
    expect(read.interchanges[0]!.groups[0]!.sets[0]!.set.segments[1]!.elements).toEqual(['00', 'SA', '1']);
    expect(allFindings(read)).toEqual([]);
  });

  it('notes a malformed (short) ISA but still reads it by counting separators', () => {
    const text = fixture('valid-850.edi').toString().replace('ACME           ', 'ACME          ');
    expect(kinds(text)).toEqual(['malformed_isa:022']);
  });

  it('throws x12_unreadable naming offset, segment and element when nothing can be read', () => {
    const noIsa = catchError(() => [...readX12('  GS*PO*A*B~ST*850*1~')]);
    expect(noIsa.code).toBe('x12_unreadable');
    expect(noIsa.details).toMatchObject({ byteOffset: 2, segmentPosition: 1, segmentId: 'GS' });
    const shortIsa = catchError(() => [...readX12('ISA*00*  *00~')]);
    expect(shortIsa.details).toMatchObject({ byteOffset: 0, segmentId: 'ISA', elementPosition: 4 });
    expect(catchError(() => [...readX12('')]).code).toBe('x12_unreadable');
  });

  it('streams in any chunking to the same events as the whole-input read', async () => {
    const inputs = ['valid-850.edi', 'newline-bom.edi', 'two-interchanges.edi', 'trailer-errors.edi', 'truncated.edi'].map(fixture);
    const summary = (events: X12Event[]) =>
      JSON.stringify(
        events.map((e) => (e.type === 'set' ? { set: e.set.segments.map((s) => [s.id, s.elements, s.offset, s.position]), findings: e.findings } : e)),
      );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: inputs.length - 1 }), fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 40 }), async (which, sizes) => {
        const input = inputs[which]!;
        const chunks: Buffer[] = [];
        let at = 0;
        for (let i = 0; at < input.length; i++) {
          const size = sizes[i % sizes.length]!;
          chunks.push(input.subarray(at, at + size));
          at += size;
        }
        const streamed: X12Event[] = [];
        for await (const e of readX12Stream(chunks)) streamed.push(e);
        expect(summary(streamed)).toBe(summary([...readX12(input)]));
      }),
      { seed: 42, numRuns: 150 },
    );
  });

  it('collect keeps sets outside GS in a synthetic group with a missing_gs finding', () => {
    const text = fixture('valid-850.edi').toString().replace(/GS\*[^~]*~\n/, '').replace(/GE\*[^~]*~\n/, '');
    const read = collect(readX12(text));
    const g = read.interchanges[0]!.groups[0]!;
    expect(g.header.controlNumber).toBe('');
    expect(g.sets).toHaveLength(2);
    expect(g.findings.map((f) => f.kind)).toContain('missing_gs');
  });
});
