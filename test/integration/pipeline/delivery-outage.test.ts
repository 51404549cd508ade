/**
 * Deliveries that outlast an outage, on the real stack (Kafka, Cassandra, chDB, the stack's
 * sshd, a real HTTP receiver), with the retry schedule scaled down through the configuration
 * (TDX_RETRY_DELAYS_SECONDS = 1, 2, 3, 4, 5 s, the default jitter of up to +10 %; the default
 * schedule itself is pinned by test/unit/domain/retry-policy.test.ts):
 *
 * - a receiver that answers 503 for 8 seconds, then 200: every document submitted during the
 *   outage is delivered exactly once afterwards, with no operator action, each attempt spaced
 *   as the schedule says (never earlier, at most the jitter and the scheduler's latency later);
 * - a resend of an outbound document whose file is still in the partner's SFTP folder makes
 *   the file arrive again, byte for byte (a new file: a newer modification time, and a watcher
 *   that sees the name replaced), with nothing else left in the folder;
 * - a partner whose SFTP server accepts connections and never answers delays no other
 *   partner's upload (on the same partition: the tests run one partition per topic) by more
 *   than a second;
 * - the scheduler: a retry written to a tier narrower than its wait (as an AS2 Retry-After of
 *   300 s on the 60 s tier) hops from tier to tier and is forwarded at its due time, and the
 *   shorter retry behind it on the same partition is not held back.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigDocument, ConnectionDoc, PartnerDoc } from '../../../src/domain/configuration.ts';
import { statusOf, type StoredTransaction } from '../../../src/domain/records.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { connectSftp, sftpSettings, type SftpSession } from '../helpers/sftp.ts';
import { uniqueId } from '../helpers/env.ts';
import { createKafka } from '../../../src/adapters/kafka/client.ts';
import { createLogger } from '../../../src/logger.ts';
import type { DelayedMessage } from '../../../src/wire/delayed.v1.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const SECRET = 'whsec_b3V0YWdlLXRlc3Qtc2lnbmluZy1zZWNyZXQ=';
const DELAYS_S = [1, 2, 3, 4, 5];
const OUTAGE_MS = 8_000;
const base = posix.join(sftpSettings().baseDir, uniqueId('outg'));
const dir = (name: string): string => posix.join(base, name);
const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));

let p: Pipeline;
let rx: Receiver;
let hang: Server;
let session: SftpSession;
const hung: Socket[] = [];
let outageUntil = 0;

const invoice = (n: string): Record<string, unknown> => ({
  heading: { beginning_segment_for_invoice_BIG: { date_01: '2026-03-05', invoice_number_02: `INV-${n}`, purchase_order_number_04: `PO-${n}` } },
  detail: { baseline_item_data_invoice_IT1_loop: [{ baseline_item_data_invoice_IT1: { assigned_identification_01: '1', quantity_invoiced_02: 10, unit_or_basis_for_measurement_code_03: 'EA', unit_price_04: 2.5, product_service_id_qualifier_06: 'VN', product_service_id_07: 'W-1' } }] },
  summary: { total_monetary_value_summary_TDS: { amount_01: 25 }, transaction_totals_CTT: { number_of_line_items_01: 1 } },
});

function configDoc(hangPort: number): ConfigDocument {
  const s = sftpSettings();
  const privateKey = s.privateKeyPath ? readFileSync(s.privateKeyPath, 'utf8') : undefined;
  const conn = (name: string): ConnectionDoc => ({ name, kind: 'sftp', host: s.host, port: s.port, username: s.username, ...(privateKey ? { privateKey } : {}), ...(s.password ? { password: s.password } : {}), inboundDirectory: dir(`${name}-in`), outboundDirectory: dir(`${name}-out`) });
  const settings = [
    { transactionSetIdentifier: '850', release: '004010', direction: 'inbound' as const, usageIndicator: 'P' as const, implementation: 'po' },
    { transactionSetIdentifier: '810', release: '004010', direction: 'outbound' as const, usageIndicator: 'P' as const, implementation: 'inv' },
  ];
  const partner = (key: string, extra: Partial<PartnerDoc>): PartnerDoc => ({ key, name: key, deliveryMethod: 'polling', envelopes: { internal: 'us', external: 'them' }, frequency: 0, transactionSets: settings, ...extra });
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    connections: [
      conn('ship'),
      conn('other'),
      // accepts the TCP connection and never says a word (not even the SSH banner)
      { name: 'hang', kind: 'sftp', host: '127.0.0.1', port: hangPort, username: 'nobody', password: 'never-checked', outboundDirectory: 'out', retry: { delaysSeconds: [30, 30, 30, 30, 30], attemptTimeoutSeconds: 20 } },
    ],
    webhooks: [{ name: 'erp', url: `${rx.url}/erp`, signingSecret: SECRET }],
    implementations: [
      { name: 'po', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } },
      { name: 'inv', version: '1', status: 'published', transactionSet: { identifier: '810', release: '004010' }, definition: { base: true } },
    ],
    partners: [
      partner('SHIP', { connection: 'ship', generateAcknowledgments: false, trackAcknowledgments: false }),
      partner('OTHER', { connection: 'other', generateAcknowledgments: false, trackAcknowledgments: false }),
      partner('HANG', { connection: 'hang', generateAcknowledgments: false, trackAcknowledgments: false }),
      partner('HOOK', { deliveryMethod: 'webhook', webhooks: { inbound: 'erp' }, generateAcknowledgments: false }),
    ],
  };
}

beforeAll(async () => {
  rx = await startReceiver(SECRET);
  rx.script('/erp', [(res) => void res.writeHead(Date.now() < outageUntil ? 503 : 200, { 'content-type': 'text/plain' }).end('ok')]);
  hang = createServer((socket) => {
    hung.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
  session = await connectSftp();
  await call<void>((cb) => session.sftp.mkdir(base, cb));
  for (const n of ['ship', 'other']) for (const s of ['in', 'out']) await call<void>((cb) => session.sftp.mkdir(dir(`${n}-${s}`), cb));
  p = await startPipeline(configDoc((hang.address() as AddressInfo).port), { env: { TDX_RETRY_DELAYS_SECONDS: DELAYS_S.join(','), TDX_RETRY_JITTER_PERCENT: '10' }, sharedKeyspace: true });
}, 240_000);

afterAll(async () => {
  for (const s of hung) s.destroy();
  await p?.stop();
  await rx?.close();
  await new Promise<void>((resolve) => (hang ? hang.close(() => resolve()) : resolve()));
  if (session) {
    for (const n of ['ship', 'other']) {
      for (const s of ['in', 'out']) {
        const d = dir(`${n}-${s}`);
        const entries = await call<{ filename: string }[]>((cb) => session.sftp.readdir(d, cb)).catch(() => []);
        for (const e of entries) await call<void>((cb) => session.sftp.unlink(posix.join(d, e.filename), cb)).catch(() => undefined);
        await call<void>((cb) => session.sftp.rmdir(d, cb)).catch(() => undefined);
      }
    }
    await call<void>((cb) => session.sftp.rmdir(base, cb)).catch(() => undefined);
    session.end();
  }
}, 60_000);

const listDir = async (d: string): Promise<string[]> => (await call<{ filename: string }[]>((cb) => session.sftp.readdir(d, cb))).map((f) => f.filename).sort();
const stat = (f: string): Promise<{ mtime: number; size: number }> => call((cb) => session.sftp.stat(f, cb));
const readRemote = (f: string): Promise<Buffer> => call<Buffer>((cb) => session.sftp.readFile(f, cb));

async function submit810(partner: string, n: string): Promise<string> {
  const r = await p.submitDocument(partner, { transactionSetIdentifier: '810', document: invoice(n) });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  return r.body['traceGuid'] as string;
}

/** Polls `d` every 25 ms until a file shows up; its name and when it was first seen. */
async function firstFile(d: string, timeoutMs = 60_000): Promise<{ name: string; at: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const names = (await listDir(d)).filter((f) => !f.startsWith('.'));
    if (names.length > 0) return { name: names[0]!, at: Date.now() };
    if (Date.now() > deadline) throw new Error(`no file in ${d} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// The first three cases wait on different things (a receiver's outage and the retry schedule,
// an SFTP folder, the scheduler's tiers) and run at once; the last compares upload times, so it
// runs on its own, after them.
describe.concurrent('a webhook receiver down for 8 seconds', () => {
  it('gets every document submitted during the outage exactly once afterwards, each attempt on the schedule', async ({ expect }) => {
    outageUntil = Date.now() + OUTAGE_MS;
    const traces: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await p.submitEdi('HOOK', interchange({ control: 7000 + i, groups: [{ sets: [po850(`PO-OUT-${i}`)] }] }));
      expect(r.status).toBe(202);
      traces.push(r.body['traceGuid'] as string);
      await new Promise((res) => setTimeout(res, 250));
    }
    const txs = await Promise.all(traces.map((t) => p.settled(t, 1, 120_000)));
    // a little longer, so a duplicate call would have come
    await new Promise((res) => setTimeout(res, 3_000));
    const byId = new Map<string, number[]>();
    for (const c of rx.callsTo('/erp')) {
      expect(c.error).toBeUndefined();
      const id = String(c.headers['webhook-id']);
      byId.set(id, [...(byId.get(id) ?? []), c.at]);
    }
    expect(byId.size).toBe(traces.length);
    const gapsSeen: number[][] = [];
    for (const [id, times] of byId) {
      const after = times.filter((t) => t >= outageUntil);
      expect(after, `calls of ${id} after the outage`).toHaveLength(1);
      // the only 200 was the last call: nothing came after it
      expect(times[times.length - 1]).toBe(after[0]);
      expect(times.length).toBeGreaterThanOrEqual(2);
      expect(times.length).toBeLessThanOrEqual(6);
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      gapsSeen.push(gaps);
      gaps.forEach((g, i) => {
        const d = DELAYS_S[i]! * 1000;
        expect(g, `gap ${i + 1} of ${id}`).toBeGreaterThanOrEqual(d - 20);
        expect(g, `gap ${i + 1} of ${id}`).toBeLessThanOrEqual(d * 1.1 + 1_500);
      });
    }
    console.log(`outage ${OUTAGE_MS} ms, schedule ${DELAYS_S.join(', ')} s: gaps between attempts per document (ms): ${gapsSeen.map((g) => g.join('/')).join('; ')}`);
    for (const [t] of txs) expect(statusOf(t!)).toBe('delivered');
    for (const trace of traces) {
      const delivered = (await p.results(trace)).filter((r) => r.service === 'webhook');
      expect(delivered.map((r) => r.status)).toEqual(['success']);
    }
  }, 180_000);
});

describe.concurrent('an SFTP resend while the file is still in the partner folder', () => {
  it('makes the file arrive again, byte for byte', async ({ expect }) => {
    const trace = await submit810('SHIP', 'RS1');
    const [t] = await p.settled(trace, 1);
    expect(statusOf(t!)).toBe('delivered');
    const { name } = await firstFile(dir('ship-out'));
    const path = dir(`ship-out/${name}`);
    const before = await readRemote(path);
    const statBefore = await stat(path);
    // SFTP times have whole seconds: let one pass so a new file shows a newer time
    await new Promise((res) => setTimeout(res, 1_200));
    // a watcher on the partner's side: the name is held by the old file until it is replaced
    let replacedAt = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const s = await stat(path).catch(() => undefined);
        if (s && s.mtime > statBefore.mtime) {
          replacedAt = Date.now();
          return;
        }
        await new Promise((res) => setTimeout(res, 25));
      }
    })();
    const r = await p.api(`/platform/edi_transactions/${t!.id}/resend`, { method: 'POST' });
    expect(r.status, r.text).toBe(202);
    await eventually(() => (replacedAt > 0 ? true : undefined), 60_000, 'the file to arrive again');
    watching = false;
    await watcher;
    const after = await readRemote(path);
    expect(after.equals(before)).toBe(true);
    expect((await stat(path)).mtime).toBeGreaterThan(statBefore.mtime);
    // nothing else in the folder: no second copy, no temporary file left
    expect(await listDir(dir('ship-out'))).toEqual([name]);
    const stores = await p.reader.stores();
    expect((await stores.transactions.get(p.org, t!.id))!.resendCount).toBe(1);
    const resent = await eventually(async () => {
      const rs = (await p.results(trace)).filter((x) => x.service === 'sftp_upload' && x.resend);
      return rs.length > 0 ? rs : undefined;
    }, 30_000, 'the resend result');
    expect(resent.map((x) => x.status)).toEqual(['success']);
  }, 120_000);
});

describe.concurrent('the scheduler, a wait longer than its tier', () => {
  it('hops from tier to tier and is forwarded when due, never holding back the shorter retry behind it', async ({ expect }) => {
    const wire = await p.reader.wire();
    const producer = await p.reader.producer();
    const kafka = createKafka(p.iso.config, createLogger({ ...p.iso.config, logLevel: 'silent' }), '-it-hops');
    const consumer = kafka.consumer({ groupId: `${p.iso.config.kafka.groupPrefix}hops-${uniqueId()}` });
    const arrived = new Map<string, number>();
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: wire.topic('deadletter'), fromBeginning: true });
      await consumer.run({
        eachMessage: ({ message }) => {
          const id = message.headers?.['tdx-delay-id']?.toString();
          if (id) arrived.set(id, Number(message.timestamp));
          return Promise.resolve();
        },
      });
      // both on the 1 s tier (one partition), the long one first: it must wait 4 s
      const run = uniqueId('hop');
      const at = Date.now();
      const delayed = (id: string, inMs: number): DelayedMessage => ({ id: `${run}-${id}`, dueAt: (at + inMs) * 1000, targetTopic: 'deadletter', key: run, value: Buffer.from(id), headers: {}, reason: 'test', attempt: 1 });
      await producer.send([
        { topic: wire.topic('delay.1s'), key: run, value: wire.encode('delay.1s', delayed('long', 4_000)) },
        { topic: wire.topic('delay.1s'), key: run, value: wire.encode('delay.1s', delayed('short', 1_000)) },
      ]);
      await eventually(() => (arrived.has(`${run}-long`) && arrived.has(`${run}-short`) ? true : undefined), 30_000, 'both forwarded');
      const short = arrived.get(`${run}-short`)! - at;
      const long = arrived.get(`${run}-long`)! - at;
      console.log(`forwarded after: short (due in 1 s) ${short} ms, long (due in 4 s, on the 1 s tier) ${long} ms`);
      expect(short).toBeGreaterThanOrEqual(1_000);
      expect(short).toBeLessThan(2_000);
      expect(long).toBeGreaterThanOrEqual(4_000);
      expect(long).toBeLessThan(5_000);
    } finally {
      await consumer.disconnect();
    }
  }, 60_000);
});

describe('a partner SFTP server that accepts and never answers', () => {
  it('delays no other partner upload by more than a second', async ({ expect }) => {
    // the time an upload takes on its own, from the submission to the file in the folder
    const alone: number[] = [];
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      await submit810('OTHER', `ALONE-${i}`);
      const seen = await firstFile(dir('other-out'));
      alone.push(seen.at - started);
      await call<void>((cb) => session.sftp.unlink(dir(`other-out/${seen.name}`), cb));
    }
    const connectionsBefore = hung.length;
    const hangTrace = await submit810('HANG', 'H1');
    // the upload to HANG is in flight: its server holds the connection open
    await eventually(() => (hung.length > connectionsBefore ? true : undefined), 30_000, 'the hanging server to be called');
    const started = Date.now();
    const otherTrace = await submit810('OTHER', 'BESIDE');
    const seen = await firstFile(dir('other-out'));
    const beside = seen.at - started;
    console.log(`upload on its own: ${alone.join(', ')} ms; beside a hanging server: ${beside} ms`);
    expect(beside).toBeLessThanOrEqual(Math.max(...alone) + 1_000);
    const [other] = await p.settled(otherTrace, 1);
    expect(statusOf(other!)).toBe('delivered');
    // and the hanging one is still waiting for its answer, not failed or delivered
    const hangTx: StoredTransaction[] = await p.transactions(hangTrace);
    expect(hangTx.map((x) => statusOf(x))).toEqual(['processing']);
  }, 120_000);
});
