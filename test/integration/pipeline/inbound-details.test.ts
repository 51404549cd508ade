/**
 * The inbound pipeline's details on the real stack: the 997 written into the partner's SFTP
 * directory (read back over SFTP, equal in outcome to `tdx x12 ack` on the same file, linked
 * both ways), `duplicateOf` on a resubmission (never across test and production), and each of
 * the contract's four split warnings raised by a crafted file, with its `detail`.
 */
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { posix } from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAcknowledgment, readInterchanges } from '../../../src/x12/index.ts';
import { runCli } from '../../../src/cli/tdx.ts';
import { statusOf } from '../../../src/domain/records.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { connectSftp, sftpSettings } from '../helpers/sftp.ts';
import { uniqueId } from '../helpers/env.ts';
import { interchange, po850, pollingPartnerDoc, startPipeline, type Pipeline } from './support.ts';

let p: Pipeline;
const base = uniqueId('pipe');
const outDir = posix.join(base, 'to-partner');
const inDir = posix.join(base, 'from-partner');

const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));

async function sftp<T>(fn: (s: Awaited<ReturnType<typeof connectSftp>>['sftp']) => Promise<T>): Promise<T> {
  const session = await connectSftp();
  try {
    return await fn(session.sftp);
  } finally {
    session.end();
  }
}

beforeAll(async () => {
  const s = sftpSettings();
  await sftp(async (c) => {
    await call<void>((cb) => c.mkdir(base, cb));
    await call<void>((cb) => c.mkdir(outDir, cb));
    await call<void>((cb) => c.mkdir(inDir, cb));
  });
  const privateKey = s.privateKeyPath ? readFileSync(s.privateKeyPath, 'utf8') : '';
  const doc = pollingPartnerDoc({ acks: true, sftp: { host: s.host, port: s.port, username: s.username, privateKey, outboundDirectory: outDir, inboundDirectory: inDir } });
  // two more partners whose 850 mapping fails: at run time, and by producing the wrong shape
  const mapped = (key: string, mapping: string) => ({
    key,
    name: key,
    deliveryMethod: 'polling' as const,
    envelopes: { internal: 'us' },
    transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound' as const, usageIndicator: 'P' as const, implementation: 'po-850', mapping }],
  });
  p = await startPipeline({
    ...doc,
    sources: [{ name: 'erp-order', sample: { orderNumber: 'PO-1', quantity: 1 } }],
    mappings: [
      { name: 'fails-at-run', direction: 'inbound', implementation: 'po-850', source: 'erp-order', transformation: '{\n  "orderNumber": $error("no order number here")\n}' },
      { name: 'wrong-shape', direction: 'inbound', implementation: 'po-850', source: 'erp-order', transformation: '{ "orderNumber": 12345, "quantity": "many" }' },
    ],
    partners: [...(doc.partners ?? []), mapped('MAPX', 'fails-at-run'), mapped('MAPV', 'wrong-shape')],
  }, { sharedKeyspace: true });
}, 240_000);

afterAll(async () => {
  await p?.stop();
  await sftp(async (c) => {
    for (const d of [outDir, inDir]) {
      const entries = await call<{ filename: string }[]>((cb) => c.readdir(d, cb)).catch(() => []);
      for (const e of entries) await call<void>((cb) => c.unlink(posix.join(d, e.filename), cb));
      await call<void>((cb) => c.rmdir(d, cb)).catch(() => undefined);
    }
    await call<void>((cb) => c.rmdir(base, cb)).catch(() => undefined);
  }).catch(() => undefined);
});

async function ackOf(edi: string): Promise<string> {
  const dir = mkdtempSync(`${tmpdir()}/tdx-ack-`);
  const file = `${dir}/in.edi`;
  writeFileSync(file, edi);
  let out = '';
  const stdout = new PassThrough();
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  const stderr = new PassThrough();
  stderr.resume();
  expect(await runCli(['x12', 'ack', file], { stdout, stderr })).toBe(0);
  return out;
}

/** Per set outcome (group control, set control, status) of an acknowledgment interchange. */
function outcomes(ackText: string): { group: string; status: string; sets: string[] }[] {
  const read = readInterchanges(ackText);
  const out: { group: string; status: string; sets: string[] }[] = [];
  for (const ic of read.interchanges) {
    for (const g of ic.groups) {
      for (const s of g.sets) {
        const ack = readAcknowledgment(s.set)!;
        for (const ag of ack.groups) out.push({ group: ag.groupControlNumber, status: ag.status, sets: ag.sets.map((x) => `${x.controlNumber}:${x.status}`) });
      }
    }
  }
  return out;
}

describe('the 997 back to the partner', () => {
  it('lands in the SFTP outbound directory, acknowledges as tdx x12 ack does, and is linked both ways', async () => {
    // the third set's SE counts two segments too many: rejected (AK5 R 4), the group partially accepted
    const edi = interchange({ control: 501, groups: [{ sets: [po850('PO-A'), po850('PO-B'), po850('PO-C')] }] }).replace(/SE\*(\d+)\*0003/, (_m, n: string) => `SE*${Number(n) + 2}*0003`);
    const r = await p.submitEdi('GLOBEX', edi);
    expect(r.status).toBe(202);
    const trace = r.body['traceGuid'] as string;
    const all = await p.settled(trace, 4);
    const inbound = all.filter((t) => t.direction === 'inbound');
    const ack = all.find((t) => t.transactionSetIdentifier === '997')!;
    expect(inbound).toHaveLength(3);
    expect(ack).toMatchObject({ direction: 'outbound', acknowledges: inbound[0]!.id, acknowledgmentStatus: null, partnerKey: 'GLOBEX', senderExtid: 'US', receiverExtid: 'PARTNER', transactionSetControlNumber: '0001' });
    expect(statusOf(ack)).toBe('delivered');
    const linked = await eventually(async () => {
      const t = (await p.transactions(trace)).filter((x) => x.direction === 'inbound');
      return t.every((x) => x.acknowledgedBy === ack.id) ? t : undefined;
    }, 30_000, 'acknowledgedBy on every answered set');
    expect(linked.map((x) => x.roles.acknowledged?.artifact?.id)).toEqual([ack.roles.output!.artifact!.id, ack.roles.output!.artifact!.id, ack.roles.output!.artifact!.id]);

    // the upload step has reported success once the file is in place under its final name
    await eventually(async () => ((await p.results(trace)).some((x) => x.service === 'sftp_upload' && x.status === 'success') ? true : undefined), 30_000, 'the upload result');
    const files = await sftp(async (c) => call<{ filename: string }[]>((cb) => c.readdir(outDir, cb)));
    expect(files.map((f) => f.filename)).toEqual([`997_${ack.interchangeControlNumber}.edi`]);
    const text = await sftp(async (c) => (await call<Buffer>((cb) => c.readFile(posix.join(outDir, files[0]!.filename), cb))).toString('utf8'));
    const sent = readInterchanges(text).interchanges[0]!;
    expect(sent.header.sender.id.trim()).toBe('US');
    expect(sent.header.receiver.id.trim()).toBe('PARTNER');
    expect(sent.header.controlNumber).toBe(ack.interchangeControlNumber);
    expect(outcomes(text)).toEqual(outcomes(await ackOf(edi)));
    expect(outcomes(text)[0]).toMatchObject({ status: 'P', sets: ['0001:A', '0002:A', '0003:R'] });

    const results = await p.results(trace);
    const upload = results.find((x) => x.service === 'sftp_upload')!;
    expect(upload.detail.sftp).toMatchObject({ filename: files[0]!.filename, directory: outDir, host: sftpSettings().host });
    expect(upload.detail.sftp).not.toHaveProperty('path');
    expect(upload.detail.direction).toBe('outbound');
    // deliveredAt comes from the upload's feed entry, once the feed sequencer took it
    const stores = await p.reader.stores();
    await eventually(async () => ((await stores.transactions.get(p.org, ack.id))?.deliveredAt ? true : undefined), 30_000, "the 997's deliveredAt");
  });

  it('takes interchange control numbers from the partner counter, one after the other', async () => {
    const traces: string[] = [];
    for (const n of [1, 2]) traces.push((await p.submitEdi('GLOBEX', interchange({ control: 600 + n, groups: [{ sets: [po850(`PO-N${n}`)] }] }))).body['traceGuid'] as string);
    const acks = [];
    for (const t of traces) acks.push((await p.settled(t, 2)).find((x) => x.transactionSetIdentifier === '997')!);
    const numbers = acks.map((a) => Number(a.interchangeControlNumber));
    expect(new Set(numbers).size).toBe(2);
    expect(Math.abs(numbers[1]! - numbers[0]!)).toBe(1);
  });
});

describe('duplicateOf', () => {
  it('names the earlier interchange on a resubmission, never across test and production, and never the document itself', async () => {
    const edi = (usage: string) => interchange({ control: 777, usage, groups: [{ sets: [po850('PO-D1'), po850('PO-D2')] }] });
    const first = (await p.submitEdi('GLOBEX', edi('P'))).body['traceGuid'] as string;
    const firstTx = (await p.settled(first, 3)).filter((t) => t.direction === 'inbound');
    expect(firstTx.map((t) => t.duplicateOf)).toEqual([null, null]);
    const again = (await p.submitEdi('GLOBEX', edi('P'))).body['traceGuid'] as string;
    const againTx = (await p.settled(again, 3)).filter((t) => t.direction === 'inbound');
    expect(againTx.map((t) => t.duplicateOf)).toEqual([firstTx[0]!.id, firstTx[0]!.id]);
    // a duplicate is processed and acknowledged like any document
    expect(againTx.map((t) => statusOf(t))).toEqual(['delivered', 'delivered']);
    const test1 = (await p.submitEdi('GLOBEX', edi('T'))).body['traceGuid'] as string;
    const test1Tx = (await p.settled(test1, 3)).filter((t) => t.direction === 'inbound');
    expect(test1Tx.map((t) => t.duplicateOf)).toEqual([null, null]);
    const test2 = (await p.submitEdi('GLOBEX', edi('T'))).body['traceGuid'] as string;
    const test2Tx = (await p.settled(test2, 3)).filter((t) => t.direction === 'inbound');
    expect(test2Tx.map((t) => t.duplicateOf)).toEqual([test1Tx[0]!.id, test1Tx[0]!.id]);
  });
});

describe('warnings of the split', () => {
  async function splitWarnings(edi: string): Promise<{ code: string; detail?: unknown }[]> {
    const trace = (await p.submitEdi('GLOBEX', edi)).body['traceGuid'] as string;
    const txs = (await p.settled(trace, 1)).filter((t) => t.direction === 'inbound');
    const results = await p.results(trace);
    const split = results.find((x) => x.service === 'x12_split' && x.transactionId === txs[0]!.id)!;
    expect(txs[0]!.warningCount).toBe((split.detail.warnings ?? []).length);
    // a warning never stops delivery
    expect(statusOf(txs[0]!)).toBe('delivered');
    return (split.detail.warnings ?? []).map((w) => ({ code: w.code, detail: w.detail }));
  }

  it('sender_mismatch: a sender other than the external envelope', async () => {
    const w = await splitWarnings(interchange({ control: 801, sender: { qualifier: '01', id: 'SOMEONE' }, groups: [{ sets: [po850('PO-W1')] }] }));
    expect(w).toEqual([{ code: 'sender_mismatch', detail: { sender: { qualifier: '01', id: 'SOMEONE' }, expected: { qualifier: 'ZZ', id: 'PARTNER' } } }]);
  });

  it('usage_indicator_mismatch: ISA15 other than the setting', async () => {
    const w = await splitWarnings(interchange({ control: 802, usage: 'T', groups: [{ sets: [po850('PO-W2')] }] }));
    expect(w).toEqual([{ code: 'usage_indicator_mismatch', detail: { usageIndicator: 'T', expected: ['P'] } }]);
  });

  it('invalid_date: a date element that is no date, left out of the translation', async () => {
    const w = await splitWarnings(interchange({ control: 803, groups: [{ sets: [{ id: '850', segments: [{ id: 'BEG', elements: ['00', 'SA', 'PO-W3', '', '20261341'] }, { id: 'PO1', elements: ['1', '1', 'EA', '1', '', 'VP', 'X'] }, { id: 'CTT', elements: ['1'] }] }] }] }));
    expect(w).toEqual([{ code: 'invalid_date', detail: expect.objectContaining({ segment: 'BEG', value: '20261341' }) }]);
  });

  it('structural_error: a segment count that disagrees, as the 997 would report it', async () => {
    const good = interchange({ control: 804, groups: [{ sets: [po850('PO-W4')] }] });
    const bad = good.replace(/SE\*(\d+)\*/, (_m, n: string) => `SE*${Number(n) + 2}*`);
    const w = await splitWarnings(bad);
    expect(w).toEqual([{ code: 'structural_error', detail: expect.objectContaining({ ak502: '4', scope: 'transaction_set' }) }]);
  });
});

describe('a failed inbound mapping never stops delivery', () => {
  async function deliveredThrough(partner: string, po: string) {
    const trace = (await p.submitEdi(partner, interchange({ control: 901, groups: [{ sets: [po850(po)] }] }))).body['traceGuid'] as string;
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('delivered');
    const results = await p.results(trace);
    const mapping = results.find((x) => x.service === 'mapping')!;
    const feed = results.find((x) => x.service === 'feed')!;
    const output = feed.detail.artifacts!.find((a) => a.usage === 'output')!;
    const stores = await p.reader.stores();
    const delivered = JSON.parse((await stores.artifacts.read((await stores.artifacts.get(p.org, output.id))!)).toString('utf8')) as Record<string, unknown>;
    return { tx: tx!, mapping, delivered };
  }

  it('kind expression: delivered untransformed, with mappingFailed, mappingError, errors and a mapping_failed warning', async () => {
    const { tx, mapping, delivered } = await deliveredThrough('MAPX', 'PO-MX');
    expect(mapping.status).toBe('success');
    expect(mapping.detail.mappingFailed).toBe(true);
    expect(mapping.detail.mappingError).toMatchObject({ kind: 'expression', message: expect.stringMatching(/no order number here/i) as string });
    expect(mapping.detail.errors?.[0]).toMatch(/^line 2, column \d+: /);
    expect(mapping.detail.warnings).toEqual([expect.objectContaining({ code: 'mapping_failed', detail: { kind: 'expression' } })]);
    expect(tx.warningCount).toBe(1);
    // the untransformed translation went out
    expect(JSON.stringify(delivered)).toContain('PO-MX');
    expect(delivered).not.toHaveProperty('orderNumber');
  });

  it('kind validation: delivered as produced, with the violations in errors', async () => {
    const { tx, mapping, delivered } = await deliveredThrough('MAPV', 'PO-MV');
    expect(mapping.detail.mappingFailed).toBe(true);
    expect(mapping.detail.mappingError?.kind).toBe('validation');
    const errors = mapping.detail.mappingError?.errors ?? [];
    expect(errors.length).toBe(2);
    expect(errors.join(' ')).toMatch(/orderNumber/);
    expect(errors.join(' ')).toMatch(/quantity/);
    expect(mapping.detail.warnings).toEqual([expect.objectContaining({ code: 'mapping_failed', detail: { kind: 'validation', errors } })]);
    expect(tx.warningCount).toBe(1);
    expect(delivered).toEqual({ orderNumber: 12345, quantity: 'many' });
  });
});
