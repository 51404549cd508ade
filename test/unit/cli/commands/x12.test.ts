import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { x12Command } from '../../../../src/cli/commands/x12.ts';
import { readInterchanges, allFindings } from '../../../../src/x12/interchange.ts';
import { fixturesDir } from '../../x12/helpers.ts';

function sink(): { stream: Writable; text: () => string } {
  const parts: string[] = [];
  return {
    stream: new Writable({
      write(chunk: Buffer, _enc, cb) {
        parts.push(chunk.toString());
        cb();
      },
    }),
    text: () => parts.join(''),
  };
}

async function run(...args: string[]) {
  const out = sink();
  const err = sink();
  const code = await x12Command(args, { stdout: out.stream, stderr: err.stream });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('tdx x12', () => {
  it('parse prints one JSON object per set with envelope fields, reference, warnings and document', async () => {
    const r = await run('parse', fixturesDir + 'trailer-errors.edi');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l['transactionSetControlNumber'])).toEqual(['0001', '0002', '0004']);
    expect(lines[0]).toMatchObject({
      transactionSetIdentifier: '850',
      groupControlNumber: '9',
      interchangeControlNumber: '000000103',
      senderQualifier: 'ZZ',
      senderExtid: 'ACME',
      receiverQualifier: 'ZZ',
      receiverExtid: 'WIDGETCO',
      usageIndicator: 'T',
      release: '004010',
      reference: 'PO-1001',
    });
    expect((lines[0]!['warnings'] as { detail: Record<string, unknown> }[]).map((w) => w.detail['ak502'] ?? w.detail['ak905'])).toEqual(['4', '5', '4']);
    expect(lines[2]!['warnings']).toEqual([]);
    expect(lines[0]!['document']).toBeTypeOf('object');
  });

  it('exits 2 with one line on stderr when nothing can be read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tdx-x12-'));
    writeFileSync(join(dir, 'bad.edi'), 'GS*PO*A*B~ST*850*0001~');
    const r = await run('parse', join(dir, 'bad.edi'));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('x12_unreadable');
    expect((await run('parse', join(dir, 'missing.edi'))).code).toBe(2);
  });

  it('validate prints findings one per line; ack prints a 997 per group', async () => {
    const v = await run('validate', fixturesDir + 'trailer-errors.edi');
    expect(v.code).toBe(0);
    const kinds = v.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { kind?: string }).kind);
    expect(kinds).toEqual(expect.arrayContaining(['segment_count_mismatch', 'set_control_mismatch', 'group_control_mismatch', 'interchange_control_mismatch']));
    const a = await run('ack', fixturesDir + 'trailer-errors.edi', '--control-number', '77');
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('AK9*P*5*3*1*5*4~');
    expect(readInterchanges(a.stdout).interchanges[0]!.header.controlNumber).toBe('000000077');
  });

  it('write turns envelope settings and translations into EDI that reads back sound', async () => {
    const parsed = (await run('parse', fixturesDir + 'valid-850.edi')).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const dir = mkdtempSync(join(tmpdir(), 'tdx-x12-'));
    const input = {
      envelope: { sender: { qualifier: 'ZZ', id: 'ACME' }, receiver: { qualifier: 'ZZ', id: 'WIDGETCO' }, interchangeControlNumber: 5, groupControlNumber: 50, usageIndicator: 'T', date: '2024-03-15T09:30:00Z' },
      transactionSets: parsed,
    };
    writeFileSync(join(dir, 'in.json'), JSON.stringify(input));
    const w = await run('write', join(dir, 'in.json'));
    expect(w.stderr).toBe('');
    expect(w.code).toBe(0);
    const read = readInterchanges(w.stdout);
    expect(allFindings(read)).toEqual([]);
    const original = readInterchanges(readFileSync(fixturesDir + 'valid-850.edi'));
    // decimals come back in their shortest form (4.50 → 4.5): the translation carries numbers
    const norm = (v: string) => (/^-?[0-9]+\.[0-9]+$/.test(v) ? String(Number(v)) : v);
    const body = (r: typeof read) => r.interchanges[0]!.groups[0]!.sets.map((s) => s.set.segments.map((x) => [x.id, ...x.elements.map(norm)]));
    expect(body(read)).toEqual(body(original));
  });

  it('write accepts what parse prints for a set without an implementation (generic shape)', async () => {
    const isa = 'ISA*00*          *00*          *ZZ*ACME           *ZZ*WIDGETCO       *240315*0930*^*00501*000000009*0*T*>~';
    const set = ['ST*837*0001*005010X222A1', 'BHT*0019*00*REF 1*20240315*0930*CH', 'HI*ABK>J449^ABF>E119', 'NM1*41*2*ACME**** *46*X1', 'SE*5*0001'];
    const edi = `${isa}GS*HC*ACME*WIDGETCO*20240315*0930*9*X*005010X222A1~${set.join('~')}~GE*1*9~IEA*1*000000009~`;
    const dir = mkdtempSync(join(tmpdir(), 'tdx-x12-'));
    writeFileSync(join(dir, 'in.edi'), edi);
    const line = JSON.parse((await run('parse', join(dir, 'in.edi'))).stdout.trim()) as Record<string, unknown>;
    const doc = line['document'] as { segments: Record<string, unknown>[] };
    expect(doc.segments.map((s) => s['id'])).toEqual(['ST', 'BHT', 'HI', 'NM1', 'SE']);
    expect(doc.segments[2]).toEqual({ id: 'HI', HI01: { repetitions: [['ABK', 'J449'], ['ABF', 'E119']] } });
    const input = {
      envelope: { sender: { qualifier: 'ZZ', id: 'ACME' }, receiver: { qualifier: 'ZZ', id: 'WIDGETCO' }, interchangeControlNumber: 9, version: '00501', date: '2024-03-15T09:30:00Z' },
      transactionSets: [line],
    };
    writeFileSync(join(dir, 'in.json'), JSON.stringify(input));
    const w = await run('write', join(dir, 'in.json'));
    expect(w.stderr).toBe('');
    const read = readInterchanges(w.stdout);
    expect(allFindings(read)).toEqual([]);
    // the generic shape keeps values as text: every segment comes back exactly (ST03 from the line's implementationReference when given)
    const written = read.interchanges[0]!.groups[0]!.sets[0]!.set.segments.map((s) => [s.id, ...s.elements].join('*'));
    expect(written.slice(1)).toEqual(set.slice(1));
  });
});
