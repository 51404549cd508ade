/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
/**
 * The records API on the real stack, over documents that went through the pipeline (submitted
 * through the partner endpoint, split, mapped, validated, delivered to the feed or failed):
 * transactions, results, payloads, artifacts, the feed, logs and traces; every filter, both
 * orders (the transaction list's newest first, oldest first with its order extension, the feed's
 * oldest first), paging with limit=3 through everything, the 400/401/403/404 answers, the key-kind
 * matrix, organization isolation on every id-taking path, the visibility lags, the shared rate
 * limit, and every response checked against the OpenAPI document.
 *
 * Lists read ClickHouse and single records read Cassandra, so the tests compare the two: every
 * list row equals the fields of its detail, and the expected rows of each filter are computed
 * from the records in Cassandra (the system of record).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionRowView } from '../../../src/domain/views.ts';
import { statusOf, type ResultRecord, type StoredTransaction } from '../../../src/domain/records.ts';
import { TOPICS } from '../../../src/wire/topics.ts';
import type { TransactionChange } from '../../../src/wire/transaction-change.v1.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { startPipeline, type Pipeline, type Tenant } from '../pipeline/support.ts';
import { from, interchange, invoice810, otherOrgDoc, partsWithSftpInput, po850, recordsDoc, sftpFolder } from './fixture.ts';
import { closeObjects, pointer, templateOf, validators } from './openapi-check.ts';

type Res = { status: number; body: any; text: string; headers: Headers };

let p: Pipeline;
let other: Tenant;
let folder: Awaited<ReturnType<typeof sftpFolder>>;
/** Trace of each submission, by name. */
const T: Record<string, string> = {};
/** The bytes submitted, by name. */
const EDI: Record<string, string> = {};
let txs: StoredTransaction[] = [];
let results: ResultRecord[] = [];
let otherTx: StoredTransaction;
let otherResult: ResultRecord;
/** From this time on, everything the set-up wrote is older than the log lag (5 s) and the feed lag (2 s). */
let readableAt = 0;
/**
 * Waits until what the set-up wrote is readable through the lagged lists (feed entries, logs).
 * Called by the cases that read them; the cases before them run meanwhile.
 */
const untilReadable = (): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, readableAt - Date.now())));

const get = (path: string, key: string): Promise<Res> => p.api(path, { headers: { authorization: `Key ${key}` } });
const ids = (rows: { id: string }[]): string[] => rows.map((r) => r.id);
const sorted = (xs: string[]): string[] => [...xs].sort();
const byNewest = <X extends { createdAt: number; id: string }>(a: X, b: X): number => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1);
const byOldest = <X extends { createdAt: number; id: string }>(a: X, b: X): number => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1);
const tx = (reference: string): StoredTransaction => txs.find((t) => t.reference === reference)!;
const iso = (us: number): string => new Date(Math.floor(us / 1000)).toISOString().replace('Z', `${String(us % 1000).padStart(3, '0')}Z`);

/** Every page of a list (`limit` rows at a time), following nextCursor. */
async function pages(path: string, arrayName: string, key: string, limit = 3): Promise<{ items: any[]; sizes: number[]; more: boolean[] }> {
  const items: any[] = [];
  const sizes: number[] = [];
  const more: boolean[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  for (let i = 0; i < 200; i++) {
    const r = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    expect(r.status, `${path} page ${i}: ${r.text}`).toBe(200);
    items.push(...r.body[arrayName]);
    sizes.push(r.body[arrayName].length);
    more.push(r.body.pagination.hasMore);
    if (!r.body.pagination.hasMore) return { items, sizes, more };
    cursor = r.body.pagination.nextCursor;
    expect(typeof cursor).toBe('string');
  }
  throw new Error(`${path}: more than 200 pages`);
}

/** The records of the pipeline's organization, read back from Cassandra. */
async function records(): Promise<{ txs: StoredTransaction[]; results: ResultRecord[] }> {
  const t: StoredTransaction[] = [];
  const r: ResultRecord[] = [];
  for (const trace of Object.values(T)) {
    t.push(...(await p.transactions(trace)));
    r.push(...(await p.results(trace)));
  }
  return { txs: t, results: r };
}

/** Waits until ClickHouse holds every transaction and result of the organization in its stored state. */
async function materialized(org: string, read: () => Promise<{ txs: StoredTransaction[]; results: ResultRecord[] }>): Promise<void> {
  const ch = await p.reader.clickhouse();
  const q = async (sql: string) => (await ch.client.query({ query: sql, query_params: { org }, format: 'JSONEachRow' })).json<{ id: string; u: number }>();
  await eventually(
    async () => {
      const now = await read();
      const [tRows, rRows] = await Promise.all([
        q(`SELECT id, toUnixTimestamp64Micro(updated_at) AS u FROM ${ch.database}.transactions FINAL WHERE org_id = {org:String}`),
        q(`SELECT id, toUnixTimestamp64Micro(updated_at) AS u FROM ${ch.database}.results FINAL WHERE org_id = {org:String}`),
      ]);
      const tm = new Map(tRows.map((r) => [r.id, Number(r.u)]));
      const rm = new Map(rRows.map((r) => [r.id, Number(r.u)]));
      const ok =
        tRows.length === now.txs.length &&
        now.txs.every((t) => tm.get(t.id) === Math.max(t.updatedAt, t.createdAt) && (statusOf(t) !== 'delivered' || t.deliveredAt !== null)) &&
        rRows.length === now.results.length &&
        now.results.every((r) => rm.get(r.id) === r.updatedAt);
      return ok ? true : undefined;
    },
    90_000,
    'the projections to catch up',
  );
}

beforeAll(async () => {
  folder = await sftpFolder();
  p = await startPipeline(recordsDoc(folder), {
    parts: partsWithSftpInput,
    env: { TDX_FEED_VISIBILITY_LAG_MS: '2000', TDX_LOG_VISIBILITY_LAG_MS: '5000', TDX_RESULTS_STATUS_SCAN_LIMIT: '6' },
    sharedKeyspace: true,
  });
  other = await p.tenant('Other organization', otherOrgDoc());
  const submit = async (name: string, partner: string, edi: string, filename?: string, tenant: { submitEdi: Pipeline['submitEdi'] } = p) => {
    EDI[name] = edi;
    const r = filename
      ? await p.api(`/platform/partners/${partner}/edi`, { method: 'POST', body: edi, headers: { 'content-type': 'application/edi-x12', 'content-disposition': `attachment; filename="${filename}"` } })
      : await tenant.submitEdi(partner, edi);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    T[name] = r.body['traceGuid'] as string;
  };
  await submit('a', 'globex', interchange({ sender: from('GLOBEX'), control: 101, groups: [{ sets: [po850('PO-100'), po850('PO-101', 3)] }] }));
  await submit('b', 'GLOBEX', interchange({ sender: from('GLOBEX'), control: 102, groups: [{ sets: [po850('PO-102'), invoice810('INV-1')] }] }));
  await submit('c', 'acme', interchange({ sender: from('ACME'), control: 201, usage: 'T', groups: [{ sets: [po850('PX-7')] }] }), 'acme-po.edi');
  await submit('d', 'acme', 'ISA*00*an interchange nobody can read~');
  await submit('e', 'acme', EDI['c']!);
  await submit('f', 'globex', interchange({ sender: from('OTHER'), control: 103, groups: [{ sets: [po850('PO-103')] }] }));
  await submit('g', 'acme', interchange({ sender: from('ACME'), control: 202, groups: [{ sets: [po850('PB-500', 60)] }] }));
  const o = await other.submitEdi('initech', interchange({ sender: from('INITECH'), receiver: from('THEM2'), control: 301, groups: [{ sets: [po850('PO-900')] }] }));
  const otherTrace = o.body['traceGuid'] as string;
  for (const [name, n] of [['a', 2], ['b', 2], ['c', 1], ['e', 1], ['f', 1], ['g', 1]] as const) await p.settled(T[name]!, n);
  await eventually(async () => ((await p.results(T['d']!)).some((r) => r.status === 'error') ? true : undefined), 60_000, 'the unreadable file to fail');
  const stores = await p.reader.stores();
  const settledOther = await eventually(async () => {
    const t = await stores.transactions.byTrace(other.org, otherTrace);
    return t.length === 1 && statusOf(t[0]!) !== 'processing' ? t : undefined;
  }, 60_000, 'the other organization');
  otherTx = settledOther[0]!;
  otherResult = (await stores.results.byTrace(other.org, otherTrace))[0]!;

  // Acknowledgment states, as the 997 reconciliation records them: written through the store,
  // announced as a change so the projection follows.
  const acks = [
    ['PO-100', 'accepted'],
    ['PO-101', 'rejected'],
    ['PO-102', 'unacknowledged'],
  ] as const;
  let { txs: now } = await records();
  const byRef = (r: string) => now.find((t) => t.reference === r)!;
  await stores.transactions.update(acks.map(([ref, status]) => ({ organizationId: p.org, id: byRef(ref).id, traceGuid: byRef(ref).traceGuid, acknowledgmentStatus: status })));
  const [producer, wire] = await Promise.all([p.reader.producer(), p.reader.wire()]);
  await producer.send(
    acks.map(([ref]) => {
      const change: TransactionChange = { id: byRef(ref).id, organizationId: p.org, traceGuid: byRef(ref).traceGuid, changedAt: Date.now() * 1000, snapshot: null };
      return { topic: wire.topic(TOPICS.transactions), key: change.traceGuid, value: wire.encode(TOPICS.transactions, change) };
    }),
  );
  await materialized(p.org, records);
  await materialized(other.org, async () => ({ txs: await stores.transactions.byTrace(other.org, otherTrace), results: await stores.results.byTrace(other.org, otherTrace) }));
  ({ txs: now, results } = await records());
  txs = now;
  // everything older than the log lag (5 s) and the feed lag (2 s) is readable 5.5 s from here
  // on: the cases that read the feed or the logs wait for it (untilReadable), the others not
  readableAt = Date.now() + 5500;
}, 300_000);

afterAll(async () => {
  await p?.stop();
  await folder?.remove();
});

describe('GET /platform/edi_transactions', () => {
  it('pages through every transaction newest first, 3 at a time, each row equal to its detail and to the stored record', async () => {
    const key = await p.newKey('standard');
    const all = await pages('/platform/edi_transactions', 'ediTransactions', key);
    // a: 2 + 997, b: 2 + 997, c: 1, e: 1, f: 1 + 997, g: 1 (d is unreadable: no transaction)
    expect(txs.length).toBe(11);
    expect(all.items.length).toBe(txs.length);
    expect(new Set(ids(all.items)).size).toBe(txs.length);
    expect(ids(all.items)).toEqual(ids([...txs].sort(byNewest)));
    expect(all.sizes).toEqual([3, 3, 3, 2]);
    expect(all.more).toEqual([true, true, true, false]);
    for (const row of all.items) {
      const stored = txs.find((t) => t.id === row.id)!;
      expect(row).toEqual(transactionRowView(stored));
      const detail = (await get(`/platform/edi_transactions/${row.id}`, key)).body;
      const listFields = Object.fromEntries(Object.keys(row).map((k) => [k, detail[k]]));
      expect(listFields).toEqual(row);
    }
  });

  it('applies every filter as the stored records say', async () => {
    const key = await p.newKey('standard');
    const want = (pred: (t: StoredTransaction) => boolean): string[] => ids(txs.filter(pred).sort(byNewest));
    const got = async (query: string): Promise<string[]> => {
      const r = await get(`/platform/edi_transactions?limit=100&${query}`, key);
      expect(r.status, `${query}: ${r.text}`).toBe(200);
      expect(r.body.pagination).toEqual({ hasMore: false, nextCursor: null });
      return ids(r.body.ediTransactions);
    };
    const pivot = [...txs].sort((a, b) => a.createdAt - b.createdAt)[5]!.createdAt;
    const cases: [string, (t: StoredTransaction) => boolean][] = [
      ['direction=inbound', (t) => t.direction === 'inbound'],
      ['direction=outbound', (t) => t.direction === 'outbound'],
      ['incoming=true', (t) => t.direction === 'inbound'],
      ['incoming=false', (t) => t.direction === 'outbound'],
      ['direction=outbound&incoming=false', (t) => t.direction === 'outbound'],
      ['transaction_set_identifier=810', (t) => t.transactionSetIdentifier === '810'],
      ['transaction_set_identifier=997', (t) => t.transactionSetIdentifier === '997'],
      ['partner=globex', (t) => t.partnerKey === 'GLOBEX'],
      ['partner=Acme', (t) => t.partnerKey === 'ACME'],
      ['partner=nobody', () => false],
      ['reference=PO-10', (t) => t.reference?.startsWith('PO-10') === true],
      ['reference=PO-101', (t) => t.reference === 'PO-101'],
      ['reference=po-10', () => false],
      [`trace=${T['a']}`, (t) => t.traceGuid === T['a']],
      ['status=error', (t) => statusOf(t) === 'error'],
      ['status=delivered', (t) => statusOf(t) === 'delivered'],
      ['status=processing', (t) => statusOf(t) === 'processing'],
      ['warnings=true', (t) => t.warningCount > 0],
      ['warnings=false', (t) => t.warningCount === 0],
      ['ack_status=accepted', (t) => t.acknowledgmentStatus === 'accepted'],
      ['ack_status=rejected', (t) => t.acknowledgmentStatus === 'rejected'],
      ['ack_status=unacknowledged', (t) => t.acknowledgmentStatus === 'unacknowledged'],
      ['ack_status=acknowledged', (t) => t.acknowledgmentStatus === 'accepted' || t.acknowledgmentStatus === 'rejected'],
      [`since=${iso(pivot)}`, (t) => t.createdAt >= pivot],
      [`until=${iso(pivot)}`, (t) => t.createdAt < pivot],
      [`since=${iso(pivot)}&until=${iso(pivot)}`, () => false],
      ['direction=inbound&partner=GLOBEX&status=delivered', (t) => t.direction === 'inbound' && t.partnerKey === 'GLOBEX' && statusOf(t) === 'delivered'],
    ];
    for (const [query, pred] of cases) expect(await got(query), query).toEqual(want(pred));
    // the filters are not vacuous on this data
    for (const q of ['status=error', 'warnings=true', 'ack_status=acknowledged', 'transaction_set_identifier=997', 'reference=PO-10']) expect((await got(q)).length, q).toBeGreaterThan(0);
    // consecutive windows never count a boundary row twice, and miss none
    const before = await got(`until=${iso(pivot)}`);
    const after = await got(`since=${iso(pivot)}`);
    expect(sorted([...before, ...after])).toEqual(sorted(ids(txs)));
  });

  it('pages a filtered list with limit=3 without gap or repeat', async () => {
    const key = await p.newKey('standard');
    const all = await pages('/platform/edi_transactions?direction=inbound', 'ediTransactions', key);
    expect(ids(all.items)).toEqual(ids(txs.filter((t) => t.direction === 'inbound').sort(byNewest)));
  });

  it('lists oldest first with order=asc (extension), paging 3 at a time, each row equal to the stored record', async () => {
    const key = await p.newKey('standard');
    const all = await pages('/platform/edi_transactions?order=asc', 'ediTransactions', key);
    expect(ids(all.items)).toEqual(ids([...txs].sort(byOldest)));
    expect(all.sizes).toEqual([3, 3, 3, 2]);
    expect(all.more).toEqual([true, true, true, false]);
    for (const row of all.items) expect(row).toEqual(transactionRowView(txs.find((t) => t.id === row.id)!));
    // compact rows too
    const compact = (await get('/platform/edi_transactions?order=asc&compact=true&limit=100', key)).body.ediTransactions;
    expect(ids(compact)).toEqual(ids(all.items));
  });

  it('applies every filter and time window oldest first, paging through each without gap or repeat', async () => {
    const key = await p.newKey('standard');
    const byTime = [...txs].sort(byOldest);
    const pivot = byTime[5]!.createdAt;
    const cases: [string, (t: StoredTransaction) => boolean][] = [
      ['direction=inbound', (t) => t.direction === 'inbound'],
      ['partner=Acme', (t) => t.partnerKey === 'ACME'],
      ['reference=PO-10', (t) => t.reference?.startsWith('PO-10') === true],
      [`trace=${T['a']}`, (t) => t.traceGuid === T['a']],
      ['status=delivered', (t) => statusOf(t) === 'delivered'],
      ['ack_status=acknowledged', (t) => t.acknowledgmentStatus === 'accepted' || t.acknowledgmentStatus === 'rejected'],
      [`since=${iso(pivot)}`, (t) => t.createdAt >= pivot],
      [`until=${iso(pivot)}`, (t) => t.createdAt < pivot],
      [`since=${iso(byTime[2]!.createdAt)}&until=${iso(byTime[8]!.createdAt)}`, (t) => t.createdAt >= byTime[2]!.createdAt && t.createdAt < byTime[8]!.createdAt],
      [`since=${iso(pivot)}&until=${iso(pivot)}`, () => false],
      ['partner=nobody', () => false],
    ];
    for (const [query, pred] of cases) {
      const want = txs.filter(pred);
      const asc = await pages(`/platform/edi_transactions?order=asc&${query}`, 'ediTransactions', key, 2);
      expect(ids(asc.items), query).toEqual(ids([...want].sort(byOldest)));
      const desc = await pages(`/platform/edi_transactions?order=desc&${query}`, 'ediTransactions', key, 2);
      expect(ids(desc.items), query).toEqual(ids([...want].sort(byNewest)));
    }
    // consecutive windows oldest first never count the boundary row twice, and miss none
    const below = await pages(`/platform/edi_transactions?order=asc&until=${iso(pivot)}`, 'ediTransactions', key);
    const above = await pages(`/platform/edi_transactions?order=asc&since=${iso(pivot)}`, 'ediTransactions', key);
    expect([...ids(below.items), ...ids(above.items)]).toEqual(ids(byTime));
  });

  it('answers exactly as the contract without order and with order=desc, and takes a cursor only in the order that returned it', async () => {
    const key = await p.newKey('standard');
    const plain = await get('/platform/edi_transactions?limit=3', key);
    const desc = await get('/platform/edi_transactions?limit=3&order=desc', key);
    const asc = await get('/platform/edi_transactions?limit=3&order=asc', key);
    // the same bytes, the same cursor: desc is the contract's order
    expect(desc.text).toBe(plain.text);
    expect(ids(plain.body.ediTransactions)).toEqual(ids([...txs].sort(byNewest).slice(0, 3)));
    const plainCursor = encodeURIComponent(plain.body.pagination.nextCursor as string);
    const ascCursor = encodeURIComponent(asc.body.pagination.nextCursor as string);
    const second = await get(`/platform/edi_transactions?limit=3&cursor=${plainCursor}`, key);
    expect((await get(`/platform/edi_transactions?limit=3&order=desc&cursor=${plainCursor}`, key)).text).toBe(second.text);
    expect(ids(second.body.ediTransactions)).toEqual(ids([...txs].sort(byNewest).slice(3, 6)));
    expect(ids((await get(`/platform/edi_transactions?limit=3&order=asc&cursor=${ascCursor}`, key)).body.ediTransactions)).toEqual(ids([...txs].sort(byOldest).slice(3, 6)));
    for (const query of [`order=asc&cursor=${plainCursor}`, `cursor=${ascCursor}`, `order=desc&cursor=${ascCursor}`, `order=asc&direction=inbound&cursor=${ascCursor}`]) {
      const r = await get(`/platform/edi_transactions?limit=3&${query}`, key);
      expect(r.status, query).toBe(400);
      expect(r.body.error.code, query).toBe('invalid_parameter');
      expect(r.body.error.message, query).toContain('"cursor"');
    }
  });

  it('gives exactly the twelve compact fields with compact=true', async () => {
    const key = await p.newKey('standard');
    const full = (await get('/platform/edi_transactions?limit=100', key)).body.ediTransactions;
    const compact = (await get('/platform/edi_transactions?limit=100&compact=true', key)).body.ediTransactions;
    const twelve = ['id', 'createdAt', 'direction', 'usageIndicator', 'partnerKey', 'transactionSetIdentifier', 'reference', 'status', 'acknowledgmentStatus', 'warningCount', 'deliveredAt', 'traceGuid'];
    expect(compact.length).toBe(full.length);
    compact.forEach((row: any, i: number) => {
      expect(Object.keys(row).sort()).toEqual([...twelve].sort());
      for (const k of twelve) expect(row[k]).toEqual(full[i][k]);
    });
    expect((await get('/platform/edi_transactions?compact=false&limit=1', key)).body.ediTransactions[0]).toHaveProperty('senderExtid');
  });

  it('answers 400 invalid_parameter naming each bad parameter', async () => {
    const key = await p.newKey('standard');
    const other = (await get('/platform/edi_transactions?limit=1&direction=inbound', key)).body.pagination.nextCursor as string;
    const bad: [string, string][] = [
      ['direction=sideways', 'direction'],
      ['incoming=yes', 'incoming'],
      ['direction=inbound&incoming=false', 'incoming'],
      ['direction=outbound&incoming=true', 'incoming'],
      ['status=done', 'status'],
      ['warnings=1', 'warnings'],
      ['ack_status=maybe', 'ack_status'],
      ['compact=yes', 'compact'],
      ['since=yesterday', 'since'],
      ['until=2026-13-01T00:00:00Z', 'until'],
      ['since=2026-03-01T10:00:00', 'since'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=nonsense', 'cursor'],
      [`cursor=${encodeURIComponent(other)}`, 'cursor'],
      ['partnr=GLOBEX', 'partnr'],
      ['order=ASC', 'order'],
      ['order=newest', 'order'],
      ['order=', 'order'],
      ['order=asc&order=desc', 'order'],
    ];
    for (const [query, name] of bad) {
      const r = await get(`/platform/edi_transactions?${query}`, key);
      expect(r.status, query).toBe(400);
      expect(r.body.error.code, query).toBe('invalid_parameter');
      expect(r.body.error.message, query).toContain(`"${name}"`);
    }
  });
});

describe('GET /platform/edi_transactions/:id', () => {
  it('carries every detail field: acknowledgment links, warnings with their result, flow, failures elsewhere, artifact roles and results oldest first', async () => {
    const key = await p.newKey('standard');
    const detail = async (t: StoredTransaction) => {
      const r = await get(`/platform/edi_transactions/${t.id}`, key);
      expect(r.status).toBe(200);
      return r.body;
    };
    const ack = (trace: string) => txs.find((t) => t.traceGuid === trace && t.transactionSetIdentifier === '997')!;
    // a 997 answers its group: each set names it, it names the first set
    const inv = txs.find((t) => t.transactionSetIdentifier === '810')!;
    const d810 = await detail(inv);
    expect(d810.status).toBe('error');
    expect(d810.acknowledgedBy).toBe(ack(T['b']!).id);
    expect((await detail(tx('PO-102'))).acknowledgedBy).toBe(ack(T['b']!).id);
    expect((await detail(ack(T['b']!))).acknowledges).toBe(tx('PO-102').id);
    // an error role holds only the result and node; the input role the whole artifact
    const failed = results.find((r) => r.transactionId === inv.id && r.status === 'error')!;
    expect(d810.artifacts.errored).toEqual({ resultId: failed.id, nodeName: failed.nodeName });
    expect(d810.artifacts.input).toMatchObject({ usage: 'input', contentType: 'application/edi-x12', nodeName: 'Fetch from SFTP' });
    expect(Object.keys(d810.artifacts).sort()).toEqual(['acknowledged', 'errored', 'input', 'output']);
    expect(d810.flowName).toBe('Globex Inc inbound');
    // another document of the trace failed while this one did not
    const d102 = await detail(tx('PO-102'));
    expect(d102.status).toBe('delivered');
    expect(d102.traceErroredElsewhere).toBe(true);
    expect(d102.traceErroredElsewhereNodeName).toBe('Split interchange');
    expect(d810.traceErroredElsewhere).toBe(false);
    expect(d810.traceErroredElsewhereNodeName).toBeNull();
    const dPx = await detail(tx('PX-7'));
    expect(dPx.traceErroredElsewhere).toBe(false);
    expect(dPx.artifacts.output).toMatchObject({ usage: 'output', contentType: 'application/json', nodeName: 'Feed delivery' });
    // warnings, each with the result that raised it
    expect(dPx.warningCount).toBe(1);
    expect(dPx.warnings).toEqual([expect.objectContaining({ code: 'usage_indicator_mismatch', resultId: expect.any(String), detail: { usageIndicator: 'T', expected: ['P'] } })]);
    expect(results.find((r) => r.id === dPx.warnings[0].resultId)!.transactionId).toBe(tx('PX-7').id);
    const d103 = await detail(tx('PO-103'));
    expect(d103.warnings.map((w: any) => w.code)).toEqual(['sender_mismatch']);
    // duplicateOf names the earlier transaction of the same interchange, and only on the repeat
    const original = txs.find((t) => t.traceGuid === T['c'])!;
    const repeat = txs.find((t) => t.traceGuid === T['e'])!;
    expect(original.id).toBe(tx('PX-7').id);
    expect((await detail(repeat)).duplicateOf).toBe(original.id);
    expect(dPx).not.toHaveProperty('duplicateOf');
    // the transaction's own results, oldest first, identical to GET /results/:id
    for (const t of [tx('PO-100'), inv, ack(T['a']!)]) {
      const d = await detail(t);
      const own = results.filter((r) => r.transactionId === t.id).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      expect(own.length).toBeGreaterThan(0);
      expect(ids(d.results)).toEqual(ids(own));
      for (const r of d.results) expect(r).toEqual((await get(`/platform/results/${r.id}`, key)).body);
    }
  });

  it('answers 404 not_found for an unknown, malformed or other organization\'s id, with one body', async () => {
    const key = await p.newKey('standard');
    const absent = '01a20aca-0000-7000-8000-000000000000';
    const a = await get(`/platform/edi_transactions/${absent}`, key);
    const b = await get(`/platform/edi_transactions/${otherTx.id}`, key);
    const c = await get('/platform/edi_transactions/not-an-id', key);
    for (const r of [a, b, c]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
      expect(r.body.error.reason).toBe('transaction');
    }
    expect(b.text.replace(otherTx.id, 'X')).toBe(a.text.replace(absent, 'X'));
    expect((await get(`/platform/edi_transactions/${otherTx.id}`, other.keys.standard)).status).toBe(200);
  });
});

describe('GET /platform/results', () => {
  it('pages through every result newest first, each row identical to GET /results/:id', async () => {
    const key = await p.newKey('standard');
    const all = await pages('/platform/results', 'results', key);
    expect(all.items.length).toBe(results.length);
    expect(ids(all.items)).toEqual(ids([...results].sort(byNewest)));
    for (const row of all.items.slice(0, 12)) expect((await get(`/platform/results/${row.id}`, key)).body).toEqual(row);
  });

  it('filters by trace, by node name in any case or node id, and gives compact rows', async () => {
    const key = await p.newKey('standard');
    const list = async (q: string) => ids((await get(`/platform/results?limit=100&${q}`, key)).body.results);
    const want = (pred: (r: ResultRecord) => boolean) => ids(results.filter(pred).sort(byNewest));
    expect(await list(`trace=${T['a']}`)).toEqual(want((r) => r.traceGuid === T['a']));
    expect(await list('node=split%20INTERCHANGE')).toEqual(want((r) => r.nodeName === 'Split interchange'));
    const nodeId = results.find((r) => r.nodeName === 'Feed delivery' && r.traceGuid === T['c'])!.nodeId;
    expect(await list(`node=${encodeURIComponent(nodeId)}`)).toEqual(want((r) => r.nodeId === nodeId));
    expect(await list('node=nobody')).toEqual([]);
    const compact = (await get(`/platform/results?limit=100&trace=${T['d']}&compact=true`, key)).body.results;
    expect(compact.length).toBeGreaterThan(0);
    for (const row of compact) {
      expect(Object.keys(row).sort()).toEqual(['createdAt', 'errorMessage', 'id', 'nodeName', 'partnerKey', 'status', 'traceGuid']);
      const full = results.find((r) => r.id === row.id)!;
      expect(row.partnerKey).toBe('ACME');
      expect(row.errorMessage).toBe(typeof full.detail.errorMessage === 'string' ? [...full.detail.errorMessage].slice(0, 200).join('') : null);
    }
    expect(compact.some((r: any) => r.status === 'error' && r.errorMessage.length > 0)).toBe(true);
  });

  it('sifts a status filter over a bounded scan, with the cursor at the last row examined', async () => {
    const key = await p.newKey('standard');
    // TDX_RESULTS_STATUS_SCAN_LIMIT is 6 here: each page examines at most 6 rows
    const errorsPaged = await pages('/platform/results?status=error', 'results', key, 2);
    expect(ids(errorsPaged.items)).toEqual(ids(results.filter((r) => r.status === 'error').sort(byNewest)));
    // the unreadable file (d) and the 810 without a setting (b), on more pages than results/6
    expect(errorsPaged.items.length).toBeGreaterThanOrEqual(2);
    expect(errorsPaged.sizes.length).toBeGreaterThanOrEqual(Math.ceil(results.length / 6));
    expect(errorsPaged.sizes.some((n, i) => n < 2 && errorsPaged.more[i])).toBe(true);
    const success = await pages('/platform/results?status=success', 'results', key, 100);
    expect(sorted(ids(success.items))).toEqual(sorted(ids(results.filter((r) => r.status === 'success'))));
  });

  it('answers 400 for a bad status, compact, limit or cursor, and 404 for another organization\'s result', async () => {
    const key = await p.newKey('standard');
    for (const [q, name] of [['status=failed', 'status'], ['compact=1', 'compact'], ['limit=500', 'limit'], ['cursor=x.y', 'cursor'], ['nodes=a', 'nodes']]) {
      const r = await get(`/platform/results?${q}`, key);
      expect(r.status, q).toBe(400);
      expect(r.body.error.message).toContain(`"${name}"`);
    }
    const absent = '01a20aca-0000-8000-8000-000000000000';
    const a = await get(`/platform/results/${absent}`, key);
    const b = await get(`/platform/results/${otherResult.id}`, key);
    expect([a.status, b.status]).toEqual([404, 404]);
    expect(b.text.replace(otherResult.id, 'X')).toBe(a.text.replace(absent, 'X'));
  });
});

describe('GET /platform/results/:id/payload and GET /platform/artifacts/:id', () => {
  it('serves JSON, EDI and error payloads, with jsonPath and keysOnly', async () => {
    const key = await p.newKey('standard');
    const pay = (id: string, q = '') => get(`/platform/results/${id}/payload${q}`, key);
    // the input step keeps the interchange as it arrived
    const input = results.find((r) => r.traceGuid === T['a'] && r.service === 'sftp_fetch')!;
    const edi = await pay(input.id);
    expect(edi.status).toBe(200);
    expect(edi.body).toEqual({ format: 'edi', contents: EDI['a'] });
    // a delivery keeps the JSON it delivered
    const delivered = results.find((r) => r.transactionId === tx('PB-500').id && r.service === 'feed')!;
    const json = await pay(delivered.id);
    expect(json.body.format).toBe('json');
    const artifactId = delivered.payload!.artifactId;
    const bytes = await fetch(`${p.url}/platform/artifacts/${artifactId}`, { headers: { authorization: `Key ${key}` } });
    expect(json.body.contents).toEqual(JSON.parse(await bytes.text()));
    const lines = json.body.contents.detail.baseline_item_data_PO1_loop;
    expect(lines).toHaveLength(60);
    // jsonPath: dot-separated, numeric segments index arrays, value as contents, path echoed
    const path = 'heading.beginning_segment_for_purchase_order_BEG.purchase_order_number_03';
    expect((await pay(delivered.id, `?jsonPath=${path}`)).body).toEqual({ format: 'json', contents: 'PB-500', jsonPath: path });
    const second = await pay(delivered.id, '?jsonPath=detail.baseline_item_data_PO1_loop.1');
    expect(second.body.contents).toEqual(lines[1]);
    const missing = await pay(delivered.id, '?jsonPath=detail.baseline_item_data_PO1_loop.60');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('"detail.baseline_item_data_PO1_loop.60"');
    expect((await pay(delivered.id, '?jsonPath=heading..x')).status).toBe(400);
    // keysOnly: keys, types, array lengths with the first element as sample, four levels deep
    const shape = (await pay(delivered.id, '?keysOnly=true')).body;
    expect(shape.format).toBe('json');
    expect(shape.contents.type).toBe('object');
    expect(shape.contents.keys.detail.keys.baseline_item_data_PO1_loop).toEqual({ type: 'array', length: 60, sample: { type: 'object', keyCount: expect.any(Number) } });
    expect(shape.contents.keys.heading.keys.beginning_segment_for_purchase_order_BEG.keys.purchase_order_number_03).toEqual({ type: 'string' });
    const sub = (await pay(delivered.id, '?keysOnly=true&jsonPath=detail.baseline_item_data_PO1_loop')).body;
    expect(sub).toMatchObject({ jsonPath: 'detail.baseline_item_data_PO1_loop', contents: { type: 'array', length: 60 } });
    // a failed step's payload is its error message
    const failed = results.find((r) => r.traceGuid === T['d'] && r.status === 'error')!;
    expect((await pay(failed.id)).body).toEqual({ format: 'error', contents: failed.detail.errorMessage });
  });

  it('answers payload 404s that name the unknown id, and isolates organizations', async () => {
    const key = await p.newKey('standard');
    const absent = '01a20aca-0000-8000-8000-00000000abcd';
    const a = await get(`/platform/results/${absent}/payload`, key);
    expect(a.status).toBe(404);
    expect(a.body.error.message).toContain(absent);
    const b = await get(`/platform/results/${otherResult.id}/payload`, key);
    expect(b.text.replace(otherResult.id, 'X')).toBe(a.text.replace(absent, 'X'));
  });

  it('streams artifact bytes equal to what was submitted, with the original filename and content type', async () => {
    const key = await p.newKey('standard');
    const input = results.find((r) => r.traceGuid === T['c'] && r.service === 'partner_endpoint')!;
    const artifact = input.detail.artifacts!.find((a) => a.usage === 'input')!;
    const res = await fetch(`${p.url}/platform/artifacts/${artifact.id}`, { headers: { authorization: `Key ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/edi-x12');
    expect(res.headers.get('content-disposition')).toContain('filename="acme-po.edi"');
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(EDI['c']!))).toBe(true);
    const out = (await get(`/platform/edi_transactions/${tx('PX-7').id}`, key)).body.artifacts.output;
    const json = await fetch(`${p.url}/platform/artifacts/${out.id}`, { headers: { authorization: `Key ${key}` } });
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(json.headers.get('content-disposition')).toContain(out.filename);
    expect(JSON.parse(await json.text()).heading.beginning_segment_for_purchase_order_BEG.purchase_order_number_03).toBe('PX-7');
    const absent = '01a20aca-0000-8000-8000-00000000ffff';
    const a = await get(`/platform/artifacts/${absent}`, key);
    expect(a.status).toBe(404);
    expect(a.body.error.reason).toBe('artifact');
    const theirs = otherResult.detail.artifacts![0]!.id;
    const b = await get(`/platform/artifacts/${theirs}`, key);
    expect(b.text.replace(theirs, 'X')).toBe(a.text.replace(absent, 'X'));
  });
});

describe('GET /platform/feed_entries', () => {
  beforeAll(untilReadable);

  it('pages through the whole feed oldest first, exactly as materialized, each entry embedding its full result', async () => {
    const key = await p.newKey('standard');
    const ch = await p.reader.clickhouse();
    const rows = await (
      await ch.client.query({ query: `SELECT id FROM ${ch.database}.feed_entries FINAL WHERE org_id = {org:String} ORDER BY created_at, id`, query_params: { org: p.org }, format: 'JSONEachRow' })
    ).json<{ id: string }>();
    const all = await pages('/platform/feed_entries', 'feedEntries', key);
    expect(ids(all.items)).toEqual(ids(rows));
    expect(all.items.length).toBeGreaterThan(8);
    for (let i = 1; i < all.items.length; i++) expect(all.items[i].createdAt > all.items[i - 1].createdAt || all.items[i].id > all.items[i - 1].id).toBe(true);
    for (const e of all.items.slice(0, 8)) {
      expect(e.detail).toEqual((await get(`/platform/results/${e.resultId}`, key)).body);
      expect(e.createdAt).toMatch(/\.\d{6}Z$/);
    }
    // the delivered transactions' deliveredAt is the time of their first success entry
    for (const t of txs.filter((x) => x.direction === 'inbound' && statusOf(x) === 'delivered')) {
      const first = all.items.filter((e) => e.status === 'success' && e.traceGuid === t.traceGuid && results.find((r) => r.id === e.resultId)?.transactionId === t.id)[0];
      expect((await get(`/platform/edi_transactions/${t.id}`, key)).body.deliveredAt).toBe(first.createdAt);
    }
  });

  it('filters by partner in any case, direction, status, trace (with the 997 entry) and since', async () => {
    const key = await p.newKey('standard');
    const all = (await pages('/platform/feed_entries', 'feedEntries', key, 100)).items;
    const list = async (q: string) => ids((await pages(`/platform/feed_entries?${q}`, 'feedEntries', key, 100)).items);
    expect(await list('partner=acme')).toEqual(ids(all.filter((e) => e.partnerKey === 'ACME')));
    expect(await list('partner=GLOBEX')).toEqual(ids(all.filter((e) => e.partnerKey === 'GLOBEX')));
    expect(await list('partner=nobody')).toEqual([]);
    expect(await list('direction=outbound')).toEqual(ids(all.filter((e) => e.direction === 'outbound')));
    expect(await list('status=error')).toEqual(ids(all.filter((e) => e.status === 'error')));
    const traced = await list(`trace=${T['a']}`);
    expect(traced).toEqual(ids(all.filter((e) => e.traceGuid === T['a'])));
    const ackTx = txs.find((t) => t.traceGuid === T['a'] && t.transactionSetIdentifier === '997')!;
    const ackEntries = all.filter((e) => e.traceGuid === T['a'] && results.find((r) => r.id === e.resultId)?.transactionId === ackTx.id);
    expect(ackEntries.length).toBeGreaterThan(0);
    expect(traced).toEqual(expect.arrayContaining(ids(ackEntries)));
    expect(await list('trace=01a20aca-0000-7000-8000-000000000000')).toEqual([]);
    const mid = all[Math.floor(all.length / 2)];
    expect(await list(`since=${encodeURIComponent(mid.createdAt)}`)).toEqual(ids(all.filter((e) => e.createdAt >= mid.createdAt)));
    for (const [q, name] of [['since=soon', 'since'], ['direction=up', 'direction'], ['status=ok', 'status'], ['limit=0', 'limit']]) {
      const r = await get(`/platform/feed_entries?${q}`, key);
      expect(r.status, q).toBe(400);
      expect(r.body.error.message).toContain(`"${name}"`);
    }
  });

  it('withholds entries younger than the visibility lag, and a saved cursor sees each new entry once', async () => {
    const key = await p.newKey('standard');
    const start = await pages('/platform/feed_entries', 'feedEntries', key, 100);
    let cursor = (await get(`/platform/feed_entries?limit=100&since=${encodeURIComponent(start.items[start.items.length - 1].createdAt)}`, key)).body.pagination.nextCursor as string;
    const r = await p.submitEdi('acme', interchange({ sender: from('ACME'), control: 203, groups: [{ sets: [po850('PL-1'), po850('PL-2')] }] }));
    const trace = r.body['traceGuid'] as string;
    T['late'] = trace;
    const seen: any[] = [];
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const page = await get(`/platform/feed_entries?limit=100&cursor=${encodeURIComponent(cursor)}`, key);
      const answered = Date.now();
      expect(page.status).toBe(200);
      for (const e of page.body.feedEntries) {
        // nothing younger than 2 s is shown
        expect(Date.parse(e.createdAt)).toBeLessThanOrEqual(answered - 2000);
        seen.push(e);
      }
      cursor = page.body.pagination.nextCursor;
      if (seen.filter((e) => e.traceGuid === trace).length >= 2) break;
      await new Promise((res) => setTimeout(res, 300));
    }
    expect(seen.filter((e) => e.traceGuid === trace).map((e) => e.status)).toEqual(['success', 'success']);
    expect(new Set(ids(seen)).size).toBe(seen.length);
  });

  it('refuses sandbox keys', async () => {
    const r = await get('/platform/feed_entries', p.keys.sandbox);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('forbidden');
  });
});

describe('GET /platform/logs', () => {
  beforeAll(untilReadable);

  it('lists a trace oldest first, filters by level, pages, and gives an empty list for an unknown trace', async () => {
    const key = await p.newKey('standard');
    const all = await pages(`/platform/logs?trace=${T['e']}`, 'logs', key, 1);
    expect(all.items.length).toBeGreaterThan(0);
    expect(all.items.every((l) => l.traceGuid === T['e'])).toBe(true);
    for (let i = 1; i < all.items.length; i++) expect(all.items[i].createdAt >= all.items[i - 1].createdAt).toBe(true);
    const dup = all.items.find((l) => l.level === 'info' && /duplicate/.test(l.message));
    expect(dup).toMatchObject({ nodeName: 'Split interchange' });
    const info = (await get(`/platform/logs?trace=${T['e']}&level=info`, key)).body.logs;
    expect(ids(info)).toEqual(ids(all.items.filter((l) => l.level === 'info')));
    const errs = (await get(`/platform/logs?trace=${T['d']}&level=error`, key)).body.logs;
    expect(errs.length).toBe(1);
    expect(errs[0].message).toMatch(/not readable X12/);
    expect((await get(`/platform/logs?trace=${T['d']}&level=warn`, key)).body.logs).toEqual([]);
    expect((await get(`/platform/logs?trace=${T['d']}&since=${encodeURIComponent(errs[0].createdAt)}`, key)).body.logs.length).toBe(1);
    expect((await get('/platform/logs?trace=01a20aca-0000-7000-8000-000000000000', key)).body).toEqual({ logs: [], pagination: { hasMore: false, nextCursor: null } });
    expect((await get(`/platform/logs?trace=${T['d']}`, other.keys.standard)).body.logs).toEqual([]);
  });

  it('answers 400 missing_parameter without trace and invalid_parameter for a bad level, since or cursor', async () => {
    const key = await p.newKey('standard');
    const missing = await get('/platform/logs', key);
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('missing_parameter');
    expect(missing.body.error.message).toContain('"trace"');
    for (const [q, name] of [['level=debug', 'level'], ['level=fatal', 'level'], ['since=now', 'since'], ['cursor=zzz', 'cursor']]) {
      const r = await get(`/platform/logs?trace=${T['d']}&${q}`, key);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('invalid_parameter');
      expect(r.body.error.message).toContain(`"${name}"`);
    }
  });

  it('withholds entries younger than 5 seconds', async () => {
    const key = await p.newKey('standard');
    const r = await p.submitEdi('acme', 'ISA*00*another unreadable interchange~');
    const trace = r.body['traceGuid'] as string;
    T['late-log'] = trace;
    // Asked from the submission on until both entries (the input's receipt and the split's
    // failure, written by two steps) are listed: an entry listed in an answer received at time A
    // was created at least 5 s before A, in every answer; and the first answers, received within
    // 5 s of the submission, list nothing.
    const early: string[] = [];
    let answers = 0;
    let firstEmpty: boolean | undefined;
    const logs = await eventually(async () => {
      const res = await get(`/platform/logs?trace=${trace}`, key);
      const answered = Date.now();
      const listed = res.body.logs as { level: string; traceGuid: string; createdAt: string }[];
      answers += 1;
      firstEmpty ??= listed.length === 0;
      for (const l of listed) if (answered - Date.parse(l.createdAt) < 5000) early.push(`${l.level} entry created ${l.createdAt} listed at ${new Date(answered).toISOString()}`);
      return listed.length >= 2 ? listed : undefined;
    }, 60_000, 'both log entries to be listed');
    expect(early).toEqual([]);
    expect(firstEmpty).toBe(true);
    expect(answers).toBeGreaterThan(1);
    expect(logs.map((l) => l.level)).toEqual(['info', 'error']);
    expect(logs.every((l) => l.traceGuid === trace)).toBe(true);
  });
});

describe('GET /platform/traces/:guid', () => {
  beforeAll(untilReadable);

  it('returns the whole run with every artifact once, named with the node that produced it', async () => {
    const key = await p.newKey('standard');
    const r = await get(`/platform/traces/${T['a']}`, key);
    expect(r.status).toBe(200);
    const t = r.body;
    expect(t).toMatchObject({ traceGuid: T['a'], direction: 'inbound', partnerKey: 'GLOBEX', flow: { name: 'Globex Inc inbound', versionNumber: 1 } });
    expect(sorted(ids(t.transactions))).toEqual(sorted(ids(txs.filter((x) => x.traceGuid === T['a']))));
    for (const x of t.transactions) expect(x.status).toBe(statusOf(txs.find((y) => y.id === x.id)!));
    const own = results.filter((x) => x.traceGuid === T['a']);
    expect(ids(t.results)).toEqual(ids([...own].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))));
    expect(Object.keys(t.results[0]).sort()).toEqual(['createdAt', 'errorMessage', 'id', 'nodeName', 'partnerKey', 'status', 'traceGuid']);
    const pointed = new Set(own.flatMap((x) => (x.detail.artifacts ?? []).map((a) => a.id)));
    expect(sorted(ids(t.artifacts))).toEqual(sorted([...pointed]));
    expect(new Set(ids(t.artifacts)).size).toBe(t.artifacts.length);
    const stores = await p.reader.stores();
    for (const a of t.artifacts) {
      const rec = (await stores.artifacts.get(p.org, a.id))!;
      expect({ resultId: a.resultId, nodeName: a.nodeName }).toEqual({ resultId: rec.resultId, nodeName: rec.nodeName });
    }
    expect(t.artifacts.find((a: any) => a.usage === 'input').nodeName).toBe('Fetch from SFTP');
    // a run that failed before any transaction was recorded is a trace all the same
    const d = (await get(`/platform/traces/${T['d']}`, key)).body;
    expect(d.transactions).toEqual([]);
    expect(d.results.some((x: any) => x.status === 'error')).toBe(true);
    const absent = '01a20aca-0000-7000-8000-00000000000a';
    const a404 = await get(`/platform/traces/${absent}`, key);
    const b404 = await get(`/platform/traces/${otherTx.traceGuid}`, key);
    expect([a404.status, b404.status]).toEqual([404, 404]);
    expect(b404.text.replace(otherTx.traceGuid, 'X')).toBe(a404.text.replace(absent, 'X'));
  });
});

describe('keys', () => {
  beforeAll(untilReadable);

  const paths = (): string[] => {
    const r = results.find((x) => x.traceGuid === T['a'] && x.service === 'feed')!;
    return [
      '/platform/edi_transactions',
      `/platform/edi_transactions/${tx('PO-100').id}`,
      '/platform/results',
      `/platform/results/${r.id}`,
      `/platform/results/${r.id}/payload`,
      `/platform/artifacts/${r.payload!.artifactId}`,
      '/platform/feed_entries',
      `/platform/logs?trace=${T['d']}`,
      `/platform/traces/${T['a']}`,
    ];
  };

  it('lets a read-only key read everything a standard key reads', async () => {
    const std = await p.newKey('standard');
    for (const path of paths()) {
      const a = await get(path, std);
      const b = await get(path, p.keys.readOnly);
      expect([a.status, b.status], path).toEqual([200, 200]);
      expect(b.text, path).toBe(a.text);
    }
  });

  it('gives a sandbox key only the results, payloads and artifacts its sandbox sink received', async () => {
    const sandbox = await p.newKey('sandbox');
    for (const path of ['/platform/edi_transactions', `/platform/edi_transactions/${tx('PO-100').id}`, '/platform/feed_entries', `/platform/logs?trace=${T['d']}`, `/platform/traces/${T['a']}`]) {
      const r = await get(path, sandbox);
      expect(r.status, path).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
    const r = results.find((x) => x.traceGuid === T['c'] && x.service === 'feed')!;
    const kept = r.payload!.artifactId;
    for (const path of [`/platform/results/${r.id}`, `/platform/results/${r.id}/payload`, `/platform/artifacts/${kept}`]) expect((await get(path, sandbox)).status, path).toBe(404);
    expect((await get('/platform/results?limit=100', sandbox)).body.results).toEqual([]);
    const stores = await p.reader.stores();
    await stores.sandboxReceipts.record({ organizationId: p.org, resultIds: [r.id], artifactIds: [kept], receivedAt: Date.now() * 1000 });
    const std = await p.newKey('standard');
    for (const path of [`/platform/results/${r.id}`, `/platform/results/${r.id}/payload`, `/platform/artifacts/${kept}`]) {
      const a = await get(path, sandbox);
      expect(a.status, path).toBe(200);
      expect(a.text).toBe((await get(path, std)).text);
    }
    // the list sifts what the sink received, page by page
    const listed = await pages('/platform/results', 'results', sandbox, 100);
    expect(ids(listed.items)).toEqual([r.id]);
    // another result of the same trace stays out of reach
    const sibling = results.find((x) => x.traceGuid === T['c'] && x.id !== r.id)!;
    expect((await get(`/platform/results/${sibling.id}`, sandbox)).status).toBe(404);
    // a receipt of another organization opens nothing here
    await stores.sandboxReceipts.record({ organizationId: other.org, resultIds: [otherResult.id], artifactIds: [], receivedAt: Date.now() * 1000 });
    expect((await get(`/platform/results/${otherResult.id}`, sandbox)).status).toBe(404);
    expect((await get(`/platform/results/${otherResult.id}`, other.keys.sandbox)).status).toBe(200);
  });

  it("answers another organization's key with 404 on every id-taking path", async () => {
    for (const path of paths().filter((x) => /\/[0-9a-f-]{36}/.test(x))) {
      const r = await get(path, other.keys.standard);
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });

  it('answers 401 unauthorized without a valid key', async () => {
    for (const path of paths()) {
      const none = await p.api(path, { headers: { authorization: '' } });
      expect(none.status, path).toBe(401);
      const bad = await get(path, `tdx_${'A'.repeat(43)}`);
      expect(bad.status, path).toBe(401);
      expect(bad.body.error.code).toBe('unauthorized');
    }
  });

  it('counts every records endpoint against the shared 240 a minute, then answers 429 with Retry-After', async () => {
    const list = paths();
    // The budget is per aligned minute. A run that crossed into the next minute proves nothing
    // (its count started again) and is run once more with a new key, then from near the start of
    // a window; a run within one minute is what the assertions read.
    for (let attempt = 1; ; attempt++) {
      const key = await p.newKey('read-only');
      const minute = Math.floor(Date.now() / 60_000);
      const answers: Res[] = [];
      for (let i = 0; i < 240; i += 20) answers.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => get(list[(i + j) % list.length]!, key)))));
      const over: [string, Res][] = [];
      for (const path of ['/platform/feed_entries', list[1]!, list[5]!]) over.push([path, await get(path, key)]);
      if (Math.floor(Date.now() / 60_000) !== minute && attempt < 3) continue;
      for (const b of answers) expect(b.status).toBe(200);
      expect(Math.min(...answers.map((b) => Number(b.headers.get('x-ratelimit-remaining'))))).toBe(0);
      for (const [path, r] of over) {
        expect(r.status, path).toBe(429);
        expect(r.body.error.code).toBe('rate_limited');
        expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      return;
    }
  });
});

describe('GET /platform/openapi.json', () => {
  it('documents every records endpoint, and every response these tests received matches it', async () => {
    const doc = (await p.api('/platform/openapi.json')).body as any;
    for (const path of ['/platform/edi_transactions', '/platform/edi_transactions/{id}', '/platform/results', '/platform/results/{id}', '/platform/results/{id}/payload', '/platform/artifacts/{id}', '/platform/feed_entries', '/platform/logs', '/platform/traces/{guid}']) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
    closeObjects(doc.paths);
    closeObjects(doc.components);
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(doc, 'openapi');
    const validatorOf = validators(ajv);
    let checked = 0;
    for (const seen of p.responses) {
      const template = templateOf(Object.keys(doc.paths), seen.path);
      expect(template, seen.path).not.toBeNull();
      const op = doc.paths[template!][seen.method.toLowerCase()];
      expect(op, `${seen.method} ${seen.path}`).toBeDefined();
      const response = op.responses[String(seen.status)];
      expect(response, `${seen.method} ${seen.path} ${seen.status}`).toBeDefined();
      const type = seen.contentType.split(';')[0]!;
      if (type !== 'application/json') continue;
      const validate = validatorOf(pointer('paths', template!, seen.method.toLowerCase(), 'responses', String(seen.status), 'content', type, 'schema'));
      expect(validate(seen.body) ? [] : validate.errors, `${seen.method} ${seen.path} ${seen.status}`).toEqual([]);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(300);
  });
});
