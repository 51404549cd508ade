/**
 * The demo configuration (deploy/demo/config.yaml, read as `tdx config apply` reads it) works
 * end to end with what a newcomer runs: `tdx dev webhook-receiver` prints each ACME delivery and
 * notification as verified; ACME's and GLOBEX's files dropped into their SFTP outboxes are
 * fetched (ACME's mapped and delivered by webhook, GLOBEX's put on the feed) and each gets its
 * 997 in the partner's inbox. The demo's folders are moved into a folder of the test's own and
 * its webhooks to the receiver's port; its frequencies (5 and 10 minutes) stay, on a
 * shortened minute (TDX_SFTP_POLL_UNIT_MS).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../../src/admin/config-file.ts';
import { x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';
import { statusOf } from '../../../src/domain/records.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { reusableSftp, type SftpSession } from '../helpers/sftp.ts';
import { uniqueId } from '../helpers/env.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const base = uniqueId('demo');
let p: Pipeline;
let receiver: ChildProcessWithoutNullStreams;
let printed = '';

const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));
/** The test's own looks at the server, over one session. */
const remote = reusableSftp();
const sftp = <T>(fn: (s: SftpSession['sftp']) => Promise<T>): Promise<T> => remote.use(fn);
const list = (d: string): Promise<string[]> => sftp(async (c) => (await call<{ filename: string }[]>((cb) => c.readdir(d, cb))).map((e) => e.filename).sort());
async function drop(d: string, name: string, text: string): Promise<void> {
  await sftp(async (c) => {
    await call<void>((cb) => c.writeFile(posix.join(d, `.${name}.part`), text, cb));
    await call<void>((cb) => c.rename(posix.join(d, `.${name}.part`), posix.join(d, name), cb));
  });
}

interface Line {
  verified: boolean;
  path: string;
  partnerKey?: string;
  transactionSetIdentifier?: string;
  traceGuid?: string;
  resultId?: string;
  event?: string;
}
const lines = (): Line[] =>
  printed
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);

beforeAll(async () => {
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  receiver = spawn(process.execPath, ['bin/tdx.mjs', 'dev', 'webhook-receiver', '--port', '0', '--json'], { cwd: root, env });
  receiver.stdout.on('data', (d: Buffer) => (printed += d.toString()));
  // a receiver that exits or never listens fails the set-up at once, with what it printed
  const port = await new Promise<number>((ok, fail) => {
    let err = '';
    const timer = setTimeout(() => fail(new Error(`the webhook receiver did not listen within 60 s: ${err.slice(-800)}`)), 60_000);
    receiver.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        ok(Number(m[1]));
      }
    });
    receiver.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the webhook receiver exited with ${code}: ${err.slice(-800)}`));
    });
  });
  const doc = readConfigFile(posix.join(root, 'deploy/demo/config.yaml'), x12ImplementationEngine, { env: process.env });
  await sftp(async (c) => {
    await call<void>((cb) => c.mkdir(base, cb));
    for (const partner of ['acme', 'globex']) {
      await call<void>((cb) => c.mkdir(posix.join(base, partner), cb));
      for (const leaf of ['inbox', 'outbox']) await call<void>((cb) => c.mkdir(posix.join(base, partner, leaf), cb));
    }
  });
  p = await startPipeline(
    {
      ...doc,
      connections: (doc.connections ?? []).map((c) => (c.kind === 'sftp' ? { ...c, inboundDirectory: posix.join(base, c.inboundDirectory!), outboundDirectory: posix.join(base, c.outboundDirectory!) } : c)),
      webhooks: (doc.webhooks ?? []).map((w) => ({ ...w, url: w.url.replace('http://127.0.0.1:9901', `http://127.0.0.1:${port}`) })),
    },
    // the demo's 5 and 10 minute frequencies, on a 200 ms minute
    { env: { TDX_SFTP_POLL_TICK_MS: '200', TDX_SFTP_POLL_UNIT_MS: '200', TDX_SFTP_STABILITY_INTERVAL_MS: '300' }, sharedKeyspace: true },
  );
}, 240_000);

afterAll(async () => {
  receiver?.kill('SIGINT');
  await p?.stop();
  const rm = async (c: SftpSession['sftp'], d: string): Promise<void> => {
    const entries = await call<{ filename: string; attrs: { isDirectory(): boolean } }[]>((cb) => c.readdir(d, cb)).catch(() => []);
    for (const e of entries) {
      const full = posix.join(d, e.filename);
      if (e.attrs.isDirectory()) await rm(c, full);
      else await call<void>((cb) => c.unlink(full, cb)).catch(() => undefined);
    }
    await call<void>((cb) => c.rmdir(d, cb)).catch(() => undefined);
  };
  await sftp((c) => rm(c, base)).catch(() => undefined);
  await remote.close();
});

/** The example the README has newcomers drop into ACME's outbox. */
const acmeEdi = readFileSync(posix.join(root, 'deploy/demo/acme-850.edi'), 'utf8');
const globexEdi = interchange({ control: 9002, sender: { qualifier: '01', id: '0123456789' }, receiver: { qualifier: 'ZZ', id: 'DEMOCORP' }, groups: [{ sets: [po850('PO-DEMO-2')] }] });

describe('the demo organization', () => {
  it('ACME: the README\'s example in acme/outbox is mapped, delivered to the development receiver (verified), and answered with a 997 in acme/inbox', async () => {
    await drop(posix.join(base, 'acme/outbox'), 'acme-850.edi', acmeEdi);
    const line = await eventually(() => lines().find((l) => l.path === '/edi/inbound'), 60_000, 'the receiver to print the delivery');
    expect(line).toMatchObject({ verified: true, partnerKey: 'ACME', transactionSetIdentifier: '850' });
    const trace = line.traceGuid!;
    const txs = await p.settled(trace, 2);
    expect(txs.map((t) => [t.transactionSetIdentifier, statusOf(t)]).sort()).toEqual([
      ['850', 'delivered'],
      ['997', 'delivered'],
    ]);
    // the delivered document is the demo mapping's output
    const results = await p.results(trace);
    const mapping = results.find((r) => r.service === 'mapping')!;
    expect(mapping.detail.mappingFailed).toBeUndefined();
    const delivery = results.find((r) => r.service === 'webhook')!;
    const output = delivery.detail.artifacts!.find((a) => a.usage === 'output')!;
    const stores = await p.reader.stores();
    const doc = JSON.parse((await stores.artifacts.read((await stores.artifacts.get(p.org, output.id))!)).toString('utf8')) as Record<string, unknown>;
    expect(doc).toEqual({
      orderNumber: 'PO-1001',
      orderDate: '2026-03-01',
      buyer: { name: 'Acme Corporation', id: 'ACME01' },
      lines: [
        { sku: 'WIDGET-1', quantity: 10, unitPrice: 2.5, uom: 'EA' },
        { sku: 'GADGET-7', quantity: 4, unitPrice: 12, uom: 'CA' },
      ],
    });
    expect(line.resultId).toBe(delivery.detail.incomingResultId ?? results.find((r) => r.service === 'validation')!.id);
    await eventually(async () => ((await list(posix.join(base, 'acme/inbox'))).some((f) => f.startsWith('997_')) ? true : undefined), 30_000, 'the 997 in acme/inbox');
    expect(await list(posix.join(base, 'acme/outbox'))).toEqual([]);
    // the 997's upload is an outbound delivery: ACME's outbound webhook is notified of it
    const upload = await eventually(async () => (await p.results(trace)).find((r) => r.service === 'sftp_upload' && r.status === 'success'), 30_000, 'the upload result');
    const note = await eventually(() => lines().find((l) => l.path === '/edi/notifications' && l.event === 'outbound_delivered' && l.traceGuid === trace), 30_000, 'the outbound notification');
    expect(note).toMatchObject({ verified: true, resultId: upload.id });
  });

  it('GLOBEX: a file in globex/outbox is put on the feed and answered with a 997 in globex/inbox', async () => {
    await drop(posix.join(base, 'globex/outbox'), 'PO-DEMO-2.edi', globexEdi);
    const trace = await eventually(async () => {
      const ch = await p.reader.clickhouse();
      const rs = await ch.client.query({ query: `SELECT trace_guid FROM ${ch.database}.transactions WHERE org_id = {org:String} AND reference = 'PO-DEMO-2' LIMIT 1`, query_params: { org: p.org }, format: 'JSONEachRow' });
      return (await rs.json<{ trace_guid: string }>())[0]?.trace_guid;
    }, 60_000, 'the GLOBEX transaction');
    const txs = await p.settled(trace, 2);
    expect(txs.map((t) => [t.transactionSetIdentifier, statusOf(t)]).sort()).toEqual([
      ['850', 'delivered'],
      ['997', 'delivered'],
    ]);
    expect((await p.results(trace)).some((r) => r.service === 'feed' && r.status === 'success')).toBe(true);
    await eventually(async () => ((await list(posix.join(base, 'globex/inbox'))).some((f) => f.startsWith('997_')) ? true : undefined), 30_000, 'the 997 in globex/inbox');
  });

  it('ACME: a file that is no interchange is an error, notified to the error webhook (identifiers only, verified)', async () => {
    await drop(posix.join(base, 'acme/outbox'), 'NOT-EDI.txt', 'hello, this is not X12\n');
    const line = await eventually(() => lines().find((l) => l.path === '/edi/notifications' && l.event === 'processing_failed'), 60_000, 'the error notification');
    expect(line).toMatchObject({ verified: true, event: 'processing_failed' });
    const failed = (await p.results(line.traceGuid!)).find((r) => r.id === line.resultId)!;
    expect(failed).toMatchObject({ status: 'error', service: 'x12_split' });
    expect(failed.detail.errorMessage).toMatch(/ISA/);
  });
});
