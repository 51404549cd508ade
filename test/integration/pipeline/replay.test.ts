/**
 * Resend and redeliver on the real stack, over documents that went through the pipeline: a
 * resent 810 arrives again in the SFTP directory with identical bytes and adds no feed entry; a
 * resent 997 arrives under a fresh name with a feed entry of its own; a redelivered webhook
 * document reaches the receiver with the same resultId and webhook-id; a redelivery after a
 * final webhook failure delivers and the status stays `error`; every 422 code from the situation
 * that causes it; the 11th replay of a minute is 429 on either of two API processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path, { posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusOf, type StoredTransaction } from '../../../src/domain/records.ts';
import type { ConfigDocument, ConnectionDoc, PartnerDoc } from '../../../src/domain/configuration.ts';
import { qualify } from '../../../src/adapters/clickhouse/client.ts';
import { CassandraOrganizationStore } from '../../../src/adapters/cassandra/organization-store.ts';
import { createApiKey } from '../../../src/admin/admin-service.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { kafkaQuiet } from '../helpers/quiet.ts';
import { connectSftp, sftpSettings } from '../helpers/sftp.ts';
import { uniqueId } from '../helpers/env.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const SECRET = 'whsec_cmVwbGF5LXRlc3Qtc2lnbmluZy1zZWNyZXQ=';
const base = uniqueId('rply');
const dir = (name: string): string => posix.join(base, name);
const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));
async function sftp<T>(fn: (s: Awaited<ReturnType<typeof connectSftp>>['sftp']) => Promise<T>): Promise<T> {
  const session = await connectSftp();
  try {
    return await fn(session.sftp);
  } finally {
    session.end();
  }
}
const listDir = (d: string): Promise<string[]> => sftp(async (c) => (await call<{ filename: string }[]>((cb) => c.readdir(d, cb))).map((f) => f.filename).filter((f) => !f.startsWith('.')).sort());
const readRemote = (f: string): Promise<Buffer> => sftp((c) => call<Buffer>((cb) => c.readFile(f, cb)));

/** How long the pipeline's processes reuse a configuration record (TDX_CONFIG_CACHE_MS; 5 s by default). */
const CONFIG_CACHE_MS = 1000;

let p: Pipeline;
let receiver: Receiver;
let doc: ConfigDocument;
const children: ChildProcess[] = [];
/** The URL of a second API process (startApi), started with the pipeline. */
let secondApi: Promise<string>;

/** An 810 in the implementation's JSON shape. */
const invoice = (n: string, withNumber = true): Record<string, unknown> => ({
  heading: { beginning_segment_for_invoice_BIG: { date_01: '2026-03-05', ...(withNumber ? { invoice_number_02: `INV-${n}` } : {}), purchase_order_number_04: `PO-${n}` } },
  detail: { baseline_item_data_invoice_IT1_loop: [{ baseline_item_data_invoice_IT1: { assigned_identification_01: '1', quantity_invoiced_02: 10, unit_or_basis_for_measurement_code_03: 'EA', unit_price_04: 2.5, product_service_id_qualifier_06: 'VN', product_service_id_07: 'W-1' } }] },
  summary: { total_monetary_value_summary_TDS: { amount_01: 25 }, transaction_totals_CTT: { number_of_line_items_01: 1 } },
});

function configDoc(over: { moveConnection?: string; switchToSandbox?: boolean; dropWebhook?: boolean } = {}): ConfigDocument {
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
    connections: [conn('ship'), conn('move-a'), ...(over.moveConnection === 'move-b' ? [conn('move-b')] : []), ...(over.switchToSandbox ? [{ name: 'sandbox', kind: 'sandbox' as const }] : [conn('switch')])].filter((c) => !(over.moveConnection === 'move-b' && c.name === 'move-a')),
    webhooks: [{ name: 'erp', url: `${receiver.url}/inbound`, signingSecret: SECRET }, ...(over.dropWebhook ? [] : [{ name: 'erp2', url: `${receiver.url}/inbound2`, signingSecret: SECRET }])],
    implementations: [
      { name: 'po', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } },
      { name: 'inv', version: '1', status: 'published', transactionSet: { identifier: '810', release: '004010' }, definition: { base: true } },
    ],
    partners: [
      partner('SHIP', { connection: 'ship', generateAcknowledgments: true, trackAcknowledgments: true }),
      partner('MOVE', { connection: over.moveConnection ?? 'move-a' }),
      partner('SWITCH', { connection: over.switchToSandbox ? 'sandbox' : 'switch' }),
      partner('HOOK', { deliveryMethod: 'webhook', webhooks: { inbound: 'erp' } }),
      partner('HOOK2', { deliveryMethod: 'webhook', webhooks: over.dropWebhook ? {} : { inbound: 'erp2' } }),
      partner('POLL', {}),
    ],
  };
}

beforeAll(async () => {
  receiver = await startReceiver(SECRET);
  await sftp(async (c) => {
    await call<void>((cb) => c.mkdir(base, cb));
    for (const n of ['ship', 'move-a', 'move-b', 'switch']) for (const s of ['in', 'out']) await call<void>((cb) => c.mkdir(dir(`${n}-${s}`), cb));
  });
  doc = configDoc();
  p = await startPipeline(doc, { env: { TDX_REPLAY_RATE_LIMIT_PER_MINUTE: '10', TDX_CONFIG_CACHE_MS: String(CONFIG_CACHE_MS) }, sharedKeyspace: true });
  // the second API process of the rate limit's case starts while the other cases run
  secondApi = startApi();
  void secondApi.catch(() => undefined); // awaited (and its failure reported) by that case
}, 240_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await p?.stop();
  await receiver?.close();
});

async function submit810(partner: string, n: string, withNumber = true): Promise<StoredTransaction> {
  const r = await p.api(`/platform/partners/${partner}/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transactionSetIdentifier: '810', document: invoice(n, withNumber) }) });
  expect(r.status, r.text).toBe(202);
  const [t] = await p.settled(r.body['traceGuid'] as string, 1);
  return t!;
}

async function submit850(partner: string, po: string): Promise<StoredTransaction[]> {
  const r = await p.submitEdi(partner, interchange({ control: Math.floor(Math.random() * 1e8), groups: [{ sets: [po850(po)] }] }));
  return p.settled(r.body['traceGuid'] as string, 1);
}

const replay = (kind: 'resend' | 'redeliver', id: string) => p.api(`/platform/edi_transactions/${id}/${kind}`, { method: 'POST' });

async function feedEntries(trace: string): Promise<{ id: string; detail: string }[]> {
  const ch = await p.reader.clickhouse();
  const rs = await ch.client.query({ query: `SELECT id, detail FROM ${qualify(ch.database, 'feed_entries')} FINAL WHERE org_id = {org:String} AND trace_guid = {trace:String} ORDER BY created_at`, query_params: { org: p.org, trace }, format: 'JSONEachRow' });
  return rs.json();
}

describe('resend', () => {
  it('re-uploads a delivered 810 byte for byte, counts the attempt at once, and adds no feed entry', async () => {
    const t = await submit810('SHIP', 'R1');
    expect(statusOf(t)).toBe('delivered');
    const [file] = await eventually(async () => {
      const f = await listDir(dir('ship-out'));
      return f.length > 0 ? f : undefined;
    }, 30_000, 'the 810 file');
    const bytes = await readRemote(dir(`ship-out/${file}`));
    await sftp((c) => call<void>((cb) => c.unlink(dir(`ship-out/${file}`), cb))); // the partner took it
    const entries = await eventually(async () => {
      const e = await feedEntries(t.traceGuid);
      return e.length >= 1 ? e : undefined;
    }, 30_000, 'the delivery feed entry');
    const r = await replay('resend', t.id);
    expect(r.status, r.text).toBe(202);
    expect(r.body).toEqual({ message: expect.any(String) as string, ediTransactionId: t.id, traceGuid: t.traceGuid });
    const stores = await p.reader.stores();
    const counted = (await stores.transactions.get(p.org, t.id))!;
    expect(counted.resendCount).toBe(1);
    expect(counted.lastResentAt).not.toBeNull();
    const again = await eventually(async () => ((await listDir(dir('ship-out'))).includes(file!) ? true : undefined), 60_000, 'the resent file');
    expect(again).toBe(true);
    expect((await readRemote(dir(`ship-out/${file}`))).equals(bytes)).toBe(true);
    const results = await eventually(async () => {
      const rs = (await p.results(t.traceGuid)).filter((x) => x.service === 'sftp_upload');
      return rs.length === 2 ? rs : undefined;
    }, 30_000, 'the resend result');
    expect(results.map((x) => x.detail.resend ?? false)).toEqual([false, true]);
    expect(await p.transactions(t.traceGuid)).toHaveLength(1);
    await kafkaQuiet(p.iso.config); // a feed entry of the resend would be written by now
    expect((await feedEntries(t.traceGuid)).map((e) => e.id)).toEqual(entries.map((e) => e.id));
  });

  it('resends our 997 under a fresh file name, with a feed entry of its own marked resend', async () => {
    const [inbound] = await submit850('SHIP', 'PO-997');
    const trace = inbound!.traceGuid;
    const ack = (await p.settled(trace, 2)).find((t) => t.transactionSetIdentifier === '997')!;
    const before = await eventually(async () => {
      const e = await feedEntries(trace);
      return e.length >= 2 ? e : undefined;
    }, 30_000, "the 997's feed entry");
    const firstName = `997_${ack.interchangeControlNumber}.edi`;
    await eventually(async () => ((await listDir(dir('ship-out'))).includes(firstName) ? true : undefined), 30_000, 'the 997 file');
    expect((await replay('resend', ack.id)).status).toBe(202);
    const renamed = `997_${ack.interchangeControlNumber}_r2.edi`;
    await eventually(async () => ((await listDir(dir('ship-out'))).includes(renamed) ? true : undefined), 60_000, 'the resent 997 under a fresh name');
    expect((await readRemote(dir(`ship-out/${renamed}`))).equals(await readRemote(dir(`ship-out/${firstName}`)))).toBe(true);
    const after = await eventually(async () => {
      const e = await feedEntries(trace);
      return e.length > before.length ? e : undefined;
    }, 30_000, 'the resend feed entry');
    const added = after.filter((e) => !before.some((b) => b.id === e.id));
    expect(added).toHaveLength(1);
    expect((JSON.parse(added[0]!.detail) as { detail: { resend?: boolean } }).detail.resend).toBe(true);
  });
});

describe('redeliver', () => {
  it('delivers the same document again with the same resultId and webhook-id, and a feed entry of its own', async () => {
    const [t] = await submit850('HOOK', 'PO-HOOK');
    expect(statusOf(t!)).toBe('delivered');
    const [first] = await receiver.waitFor('/inbound', 1);
    expect((await replay('redeliver', t!.id)).status).toBe(202);
    const calls = await receiver.waitFor('/inbound', 2, 60_000);
    const second = calls[1]!;
    expect(second.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second.payload?.['resultId']).toBe(first!.payload?.['resultId']);
    expect(second.payload?.['document']).toEqual(first!.payload?.['document']);
    const feed = await eventually(async () => {
      const e = (await feedEntries(t!.traceGuid)).map((x) => JSON.parse(x.detail) as { nodeName: string; detail: { resend?: boolean } });
      return e.length >= 2 ? e : undefined;
    }, 30_000, 'the redelivery feed entry');
    expect(feed.map((e) => e.detail.resend ?? false)).toEqual([false, true]);
  });

  it('delivers after a final webhook failure, and the status stays error', async () => {
    receiver.script('/inbound2', [400, 200]);
    const [t] = await submit850('HOOK2', 'PO-FAIL');
    expect(statusOf(t!)).toBe('error');
    expect((await replay('redeliver', t!.id)).status).toBe(202);
    await receiver.waitFor('/inbound2', 2, 60_000);
    const results = await eventually(async () => {
      const rs = (await p.results(t!.traceGuid)).filter((x) => x.service === 'webhook');
      return rs.some((x) => x.status === 'success') ? rs : undefined;
    }, 30_000, 'the redelivery result');
    expect(results.map((x) => [x.status, x.detail.resend ?? false])).toEqual([
      ['error', false],
      ['success', true],
    ]);
    // deliveredAt comes from the success feed entry, which the feed sequencer writes afterwards
    const now = await eventually(async () => {
      const x = (await (await p.reader.stores()).transactions.get(p.org, t!.id))!;
      return x.deliveredAt !== null ? x : undefined;
    }, 30_000, 'deliveredAt from the redelivery feed entry');
    expect(statusOf(now)).toBe('error');
    expect(now.resendCount).toBe(1);
  });
});

describe('replay errors', () => {
  it('answers every 422 of the contract from the situation that causes it, and 404 for an unknown id', async () => {
    const stores = await p.reader.stores();
    const client = await p.reader.cassandra();
    // the budget counts every replay request, refused or not: each check gets a key of its own
    const orgs = new CassandraOrganizationStore(client);
    const codeOf = async (kind: 'resend' | 'redeliver', id: string): Promise<string> => {
      const { key } = await createApiKey(orgs, p.org, 'standard', `check-${kind}-${id}`);
      const r = await fetch(`${p.url}/platform/edi_transactions/${id}/${kind}`, { method: 'POST', headers: { authorization: `Key ${key}` } });
      const body = (await r.json()) as { error?: { code?: string } };
      return `${r.status} ${body.error?.code ?? ''}`;
    };
    const [inbound] = await submit850('POLL', 'PO-POLL');
    const outbound = await submit810('MOVE', 'M1');
    const failed = await submit810('SWITCH', 'F1', false);
    expect(statusOf(failed)).toBe('error');
    const switched = await submit810('SWITCH', 'S1');
    const [noSetting] = await p.settled((await p.submitEdi('HOOK', interchange({ control: 555, groups: [{ sets: [{ id: '855', segments: [{ id: 'BAK', elements: ['00', 'AC', 'PO-855', '20260301'] }] }] }] }))).body['traceGuid'] as string, 1);
    const [hook2] = await submit850('HOOK2', 'PO-H2');
    const [hookGone] = await submit850('HOOK', 'PO-GONE');
    // a 997 whose stored copy is not recorded (sent before copies were stored)
    const [withAck] = await submit850('SHIP', 'PO-NOCOPY');
    const ack997 = (await p.settled(withAck!.traceGuid, 2)).find((t) => t.transactionSetIdentifier === '997')!;
    await client.execute("DELETE roles['output'] FROM proc_transactions WHERE org_id = ? AND id = ?", [p.org, ack997.id], { prepare: true });
    // content aged out: its chunks deleted
    const aged = await submit810('SHIP', 'AGED');
    const blob = (await stores.artifacts.get(p.org, aged.roles.output!.artifact!.id))!.blobId;
    await client.execute('DELETE FROM proc_artifact_chunks WHERE blob_id = ?', [blob], { prepare: true });
    const redeliverAged = hookGone!;
    const input = (await p.results(redeliverAged.traceGuid)).find((x) => x.service === 'validation')!;
    const docBlob = (await stores.artifacts.get(p.org, input.payload!.artifactId))!.blobId;

    expect(await codeOf('resend', inbound!.id)).toBe('422 not_outbound');
    expect(await codeOf('redeliver', outbound.id)).toBe('422 not_inbound');
    expect(await codeOf('resend', failed.id)).toBe('422 document_not_generated');
    expect(await codeOf('resend', ack997.id)).toBe('422 not_flow_delivered');
    expect(await codeOf('resend', aged.id)).toBe('422 content_unavailable');
    expect(await codeOf('redeliver', inbound!.id)).toBe('422 poll_delivery');
    expect(await codeOf('redeliver', noSetting!.id)).toBe('422 delivery_not_reached');
    expect(await codeOf('resend', '01a20000-0000-7000-8000-000000000000')).toBe('404 not_found');

    // the rest needs the configuration changed: MOVE's connection replaced, SWITCH moved to a
    // sandbox connection, HOOK2's webhook removed, HOOK's delivered document aged out
    await client.execute('DELETE FROM proc_artifact_chunks WHERE blob_id = ?', [docBlob], { prepare: true });
    await p.apply(configDoc({ moveConnection: 'move-b', switchToSandbox: true, dropWebhook: true }));
    await new Promise((res) => setTimeout(res, CONFIG_CACHE_MS + 200)); // the configuration cache's lifetime
    expect(await codeOf('redeliver', redeliverAged.id)).toBe('422 content_unavailable');
    expect(await codeOf('resend', outbound.id)).toBe('422 delivery_target_missing');
    expect(await codeOf('resend', switched.id)).toBe('422 delivery_node_missing');
    expect(await codeOf('redeliver', hook2!.id)).toBe('422 delivery_target_missing');
  });

  it('allows 10 replays a minute per key across every API process, the 11th is 429', async () => {
    const second = await secondApi;
    const t = await submit810('SHIP', 'RATE');
    // The budget is per aligned minute. A run that crossed into the next minute proves nothing
    // (its count started again) and is run once more with a new key, then from near the start of
    // a window; a run within one minute is what the assertions read.
    for (let attempt = 1; ; attempt++) {
      const { key } = await createApiKey(new CassandraOrganizationStore(await p.reader.cassandra()), p.org, 'standard', `rate-${attempt}`);
      const minute = Math.floor(Date.now() / 60_000);
      const answers: { status: number; retryAfter: string | null; code: string | undefined }[] = [];
      for (let i = 0; i < 12; i++) {
        const url = i % 2 === 0 ? p.url : second;
        const r = await fetch(`${url}/platform/edi_transactions/${t.id}/resend`, { method: 'POST', headers: { authorization: `Key ${key}` } });
        const body = (await r.json()) as { error?: { code?: string } };
        answers.push({ status: r.status, retryAfter: r.headers.get('retry-after'), code: body.error?.code });
      }
      if (Math.floor(Date.now() / 60_000) !== minute && attempt < 3) continue;
      expect(answers.map((a) => a.status)).toEqual([...Array<number>(10).fill(202), 429, 429]);
      for (const a of answers.filter((x) => x.status === 429)) {
        expect(a.retryAfter).toMatch(/^\d+$/);
        expect(a.code).toBe('rate_limited');
      }
      break;
    }
    // read-only and sandbox keys may not replay at all
    const orgs = new CassandraOrganizationStore(await p.reader.cassandra());
    for (const kind of ['read-only', 'sandbox'] as const) {
      const k = (await createApiKey(orgs, p.org, kind, kind)).key;
      const r = await fetch(`${p.url}/platform/edi_transactions/${t.id}/redeliver`, { method: 'POST', headers: { authorization: `Key ${k}` } });
      expect(r.status).toBe(403);
    }
  });
});

function startApi(): Promise<string> {
  const e: NodeJS.ProcessEnv = { ...process.env, ...p.iso.env, TDX_API_PORT: '0', TDX_LOG_LEVEL: 'info', TDX_LOG_FORMAT: 'json', CLICKHOUSE_CHDB_PATH: path.join(p.iso.config.dataDir, 'chdb-api-2') };
  delete e['NODE_OPTIONS'];
  const child = spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', 'api'], { cwd: root, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the API did not listen within 90 s: ${out.slice(-800)}`)), 90_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /API listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the API exited with ${code}: ${out.slice(-800)}`));
    });
  });
}
