import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { x12Command } from '../../../../src/cli/commands/x12.ts';
import { captured } from '../../support/cli-io.ts';
import { readInterchanges, allFindings } from '../../../../src/x12/interchange.ts';
import { fixturesDir } from '../../x12/helpers.ts';

const run = (...args: string[]) => captured((io) => x12Command(args, io));

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
      functionalIdentifierCode: 'PO',
      interchangeVersion: '00401',
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
    // the generic shape keeps values as text: every segment comes back exactly, ST03 included
    const written = read.interchanges[0]!.groups[0]!.sets[0]!.set.segments.map((s) => [s.id, ...s.elements].join('*'));
    expect(written).toEqual(set);
  });

  const isa = (version: string, rep: string) => `ISA*00*          *00*          *ZZ*ACME           *ZZ*WIDGETCO       *240315*0930*${rep}*${version}*000000009*0*T*>~`;
  const envelope = { sender: { qualifier: 'ZZ', id: 'ACME' }, receiver: { qualifier: 'ZZ', id: 'WIDGETCO' }, interchangeControlNumber: 9, date: '2024-03-15T09:30:00Z' };

  async function writeJson(input: unknown) {
    const dir = mkdtempSync(join(tmpdir(), 'tdx-x12-'));
    writeFileSync(join(dir, 'in.json'), JSON.stringify(input));
    return run('write', join(dir, 'in.json'));
  }

  async function parseText(edi: string) {
    const dir = mkdtempSync(join(tmpdir(), 'tdx-x12-'));
    writeFileSync(join(dir, 'in.edi'), edi);
    const r = await run('parse', join(dir, 'in.edi'));
    return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  it('write takes GS01 from the set, else from the table of X12 sets; a code that is no X12 set is refused', async () => {
    const doc = { segments: [{ id: 'BIG', BIG01: '20240315', BIG02: 'INV-1' }] };
    const given = await writeJson({ envelope, transactionSets: [{ transactionSetIdentifier: '811', release: '004010', functionalIdentifierCode: 'ZZ', document: doc }] });
    expect(given.stdout).toContain('GS*ZZ*ACME*WIDGETCO*');
    for (const [set, gs01] of [['811', 'CI'], ['852', 'PD'], ['417', 'WB'], ['322', 'SO'], ['894', 'DX']]) {
      const w = await writeJson({ envelope, transactionSets: [{ transactionSetIdentifier: set, release: '004010', document: doc }] });
      expect(w.stdout).toContain(`GS*${gs01}*ACME*`);
    }
    const none = await writeJson({ envelope, transactionSets: [{ transactionSetIdentifier: '000', release: '005010', document: doc }] });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/No functional identifier \(GS01\) is known for transaction set 000 \(not an X12 transaction set\)/);
  });

  it('write defaults ISA12 from the release, so repetitions of 005010 sets have their separator', async () => {
    const doc = { segments: [{ id: 'EB', EB01: '1', EB03: { repetitions: ['30', '1'] } }] };
    for (const [release, version] of [['005010X279A1', '00501'], ['004010', '00401'], ['003060', '00306']] as const) {
      const w = await writeJson({ envelope, transactionSets: [{ transactionSetIdentifier: '271', release, document: release === '005010X279A1' ? doc : { segments: [{ id: 'EB', EB01: '1' }] } }] });
      expect(w.code, w.stderr).toBe(0);
      const h = readInterchanges(w.stdout).interchanges[0]!.header;
      expect(h.version).toBe(version);
      expect(h.delimiters.repetition).toBe(version === '00501' ? '^' : null);
    }
    const w = await writeJson({ envelope, transactionSets: [{ transactionSetIdentifier: '271', release: '005010X279A1', document: doc }] });
    expect(w.stdout).toContain('EB*1**30^1~');
  });

  it('write chooses delimiters no value uses, and refuses a fixed delimiter a value holds, naming the JSON path', async () => {
    const doc = { segments: [{ id: 'N1', N101: 'ST', N102: 'A*B>C^D~E' }] };
    const w = await writeJson({ envelope, transactionSets: [{ transactionSetIdentifier: '811', release: '005010', document: doc }] });
    expect(w.code, w.stderr).toBe(0);
    const d = readInterchanges(w.stdout).interchanges[0]!.header.delimiters;
    expect([d.element, d.component, d.repetition, d.segment].some((c) => c !== null && 'A*B>C^D~E'.includes(c))).toBe(false);
    const back = await parseText(w.stdout);
    expect((back[0]!['document'] as { segments: unknown[] }).segments[1]).toEqual(doc.segments[0]);
    const fixed = await writeJson({ envelope: { ...envelope, delimiters: { element: '*' } }, transactionSets: [{ transactionSetIdentifier: '811', release: '005010', document: doc }] });
    expect(fixed.code).toBe(2);
    expect(fixed.stderr).toMatch(/x12_document_invalid: \$\.segments\[0\]\.N102: value "A\*B>C\^D~E" contains a delimiter/);
  });

  it('write keeps a document\'s own ST (spaces in ST02, ST03), computes SE with a note when the given one disagrees, and refuses an ST without SE', async () => {
    const set = ['ST*850*0042 *X1', 'BEG*00*SA*PO-1**20240315', 'SE*9*0042'];
    const edi = `${isa('00401', 'U')}GS*PO*ACME*WIDGETCO*20240315*0930*9*X*004010~${set.join('~')}~GE*1*9~IEA*1*000000009~`;
    const lines = await parseText(edi);
    const w = await writeJson({ envelope, transactionSets: lines });
    expect(w.code, w.stderr).toBe(0);
    // the implementation translation drops trailing spaces (not significant in X12): ST02 "0042";
    // SE01 is the count, SE02 the ST02 as written: the result reads back clean
    expect(w.stdout).toContain('ST*850*0042*X1~\nBEG*00*SA*PO-1**20240315~\nSE*3*0042~');
    expect(allFindings(readInterchanges(w.stdout))).toEqual([]);
    expect(w.stderr).toBe('note: transactionSets[0] (850, ST02 "0042"): the document\'s SE (SE01 "9", SE02 "0042") disagrees; written as computed: SE01 "3", SE02 "0042"\n');
    // the generic translation (a release without a base definition) keeps the text as read: ST02 "0042 "
    const generic = await parseText(edi.replace('*004010~', '*004030~'));
    const g = await writeJson({ envelope, transactionSets: generic });
    expect(g.stdout).toContain('ST*850*0042 *X1~\nBEG*00*SA*PO-1**20240315~\nSE*3*0042 ~');
    expect(g.stderr).toBe('note: transactionSets[0] (850, ST02 "0042 "): the document\'s SE (SE01 "9", SE02 "0042") disagrees; written as computed: SE01 "3", SE02 "0042 "\n');
    // a correct SE: written as it is, no note
    const right = await writeJson({ envelope, transactionSets: await parseText(edi.replace('SE*9*0042', 'SE*3*0042 ')) });
    expect(right.stdout).toContain('SE*3*0042~');
    expect(right.stderr).toBe('');
    // edited after parsing: a segment added, the count follows, and the stale SE01 is noted
    const edited = await parseText(edi.replace('SE*9*0042', 'SE*3*0042 '));
    const heading = (edited[0]!['document'] as { heading: Record<string, unknown> }).heading;
    heading['currency_CUR'] = { entity_identifier_code_01: 'BY', currency_code_02: 'USD' };
    const grown = await writeJson({ envelope, transactionSets: edited });
    expect(grown.code, grown.stderr).toBe(0);
    expect(grown.stdout).toContain('BEG*00*SA*PO-1**20240315~\nCUR*BY*USD~\nSE*4*0042~');
    expect(grown.stderr).toMatch(/^note: transactionSets\[0\] \(850, ST02 "0042"\): the document's SE \(SE01 "3", SE02 "0042"\) disagrees; written as computed: SE01 "4", SE02 "0042"\n$/);
    // renumbered: ST02 and SE02 take the new number, SE01 is computed; the given SE01 9 is noted
    const renumbered = await writeJson({ envelope, transactionSets: [{ ...lines[0], controlNumber: 7 }] });
    expect(renumbered.stdout).toContain('ST*850*0007*X1~\nBEG*00*SA*PO-1**20240315~\nSE*3*0007~');
    expect(renumbered.stderr).toMatch(/^note: transactionSets\[0\] \(850, ST02 "0007"\): the document's SE \(SE01 "9", SE02 "0042"\) disagrees; written as computed: SE01 "3", SE02 "0007"\n$/);
    const document = lines[0]!['document'] as { heading: Record<string, unknown>; summary: Record<string, unknown> };
    delete document.summary['transaction_set_trailer_SE'];
    const noSe = await writeJson({ envelope, transactionSets: [{ ...lines[0], document }] });
    expect(noSe.code).toBe(2);
    expect(noSe.stderr).toMatch(/x12_document_invalid: \$\.summary\.transaction_set_trailer_SE: the SE is missing/);
  });

  it('write puts unrecognized segments back where the reader finds them at the same level', async () => {
    // ZZZ fits nowhere: met in the heading before the N1 loop and in the N1 loop before N3
    const set = ['ST*850*0001', 'BEG*00*SA*PO-1**20240315', 'ZZZ*1', 'N1*ST*ACME', 'ZZZ*2', 'N3*1 MAIN ST', 'N1*BT*ACME', 'PO1*1*10*EA*4.5**UP*012345678900', 'CTT*1', 'SE*10*0001'];
    const edi = `${isa('00401', 'U')}GS*PO*ACME*WIDGETCO*20240315*0930*9*X*004010~${set.join('~')}~GE*1*9~IEA*1*000000009~`;
    const lines = await parseText(edi);
    const doc = lines[0]!['document'] as { heading: Record<string, unknown> };
    expect(doc.heading['unrecognized_segments']).toEqual([{ id: 'ZZZ', ZZZ01: '1' }]);
    const w = await writeJson({ envelope, transactionSets: lines });
    expect(w.code, w.stderr).toBe(0);
    expect((await parseText(w.stdout)).map((l) => l['document'])).toEqual(lines.map((l) => l['document']));
  });
});

/**
 * `tdx x12 ... | head -1`: the reader of stdout goes away after the first chunk. The real command
 * (node bin/tdx.mjs) must stop quietly: no EPIPE stack trace on stderr, exit 0. The input makes
 * every subcommand print far more than a pipe holds, so the command is still writing when the
 * pipe closes.
 */
describe('tdx x12 with stdout closed early', () => {
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'tdx-x12-pipe-'));
  const sets = 20_000;
  // every SE01 is wrong, so validate prints a finding per set and ack an AK2..AK5 per set
  const body = Array.from({ length: sets }, (_, i) => {
    const n = String(i + 1).padStart(4, '0');
    return `ST*850*${n}~BEG*00*SA*PO-${i + 1}**20240315~PO1*1*10*EA*4.5**UP*012345678900~SE*9*${n}~`;
  }).join('');
  const isaText = 'ISA*00*          *00*          *ZZ*ACME           *ZZ*WIDGETCO       *240315*0930*U*00401*000000009*0*P*>~';
  writeFileSync(join(dir, 'big.edi'), `${isaText}GS*PO*ACME*WIDGETCO*20240315*0930*9*X*004010~${body}GE*${sets}*9~IEA*1*000000009~`);
  const doc = { segments: [{ id: 'BEG', BEG01: '00', BEG02: 'SA', BEG03: 'PO-1', BEG05: '20240315' }] };
  writeFileSync(
    join(dir, 'big.json'),
    JSON.stringify({
      envelope: { sender: { qualifier: 'ZZ', id: 'ACME' }, receiver: { qualifier: 'ZZ', id: 'WIDGETCO' }, interchangeControlNumber: 9, date: '2024-03-15T09:30:00Z' },
      transactionSets: Array.from({ length: sets }, () => ({ transactionSetIdentifier: '850', release: '004010', document: doc })),
    }),
  );
  const cases = [
    ['parse', 'big.edi'],
    ['validate', 'big.edi'],
    ['ack', 'big.edi'],
    ['write', 'big.json'],
  ] as const;

  it.each(cases)('%s stops quietly with exit 0', async (sub, name) => {
    const file = join(dir, name);
    // the whole output is far larger than a pipe's buffer (64 KiB)
    const full = await run(sub, file);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout.length).toBeGreaterThan(256 << 10);

    const child = spawn(process.execPath, [join(root, 'bin/tdx.mjs'), 'x12', sub, file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let received = 0;
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.stdout.once('data', (chunk: Buffer) => {
      received = chunk.length;
      child.stdout.destroy();
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(full.stdout.length);
    expect(stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
    expect(stderr).toBe('');
    expect(signal).toBeNull();
    expect(code).toBe(0);
  }, 60_000);
});
