/**
 * The worked analyst queries of docs/clickhouse.md, run as written (database name replaced) on
 * documents that went through the pipeline, each answer checked against the records in
 * Cassandra. Webhook deliveries come from webhook results written and published the way a
 * webhook step does (result store, then the result event the materializer projects), since
 * this pipeline has no webhook partner.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultId } from '../../../src/domain/ids.ts';
import type { ResultRecord, StoredTransaction } from '../../../src/domain/records.ts';
import { resultEvent } from '../../../src/nodes/runtime.ts';
import { TOPICS } from '../../../src/wire/topics.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { startPipeline, type Pipeline } from '../pipeline/support.ts';
import { from, interchange, invoice810, partsWithSftpInput, po850, recordsDoc, sftpFolder } from './fixture.ts';

let p: Pipeline;
let folder: Awaited<ReturnType<typeof sftpFolder>>;
const traces: string[] = [];
let txs: StoredTransaction[] = [];
let results: ResultRecord[] = [];

/** The worked queries of docs/clickhouse.md, by title. */
function workedQueries(): Map<string, string> {
  const text = readFileSync('docs/clickhouse.md', 'utf8');
  const section = text.slice(text.indexOf('## Worked queries'));
  const out = new Map<string, string>();
  for (const m of section.matchAll(/^### (.+)\n[\s\S]*?```sql\n([\s\S]*?)```/gm)) out.set(m[1]!.trim(), m[2]!);
  return out;
}

async function run<T>(title: string): Promise<T[]> {
  const sql = workedQueries().get(title);
  if (!sql) throw new Error(`docs/clickhouse.md has no worked query "${title}"`);
  const ch = await p.reader.clickhouse();
  const rs = await ch.client.query({ query: sql.replaceAll('tdx.', `${ch.database}.`), query_params: { org: p.org }, format: 'JSONEachRow' });
  return rs.json<T>();
}

beforeAll(async () => {
  folder = await sftpFolder();
  p = await startPipeline(recordsDoc(folder), { parts: partsWithSftpInput, sharedKeyspace: true });
  const submit = async (partner: string, edi: string) => {
    const r = await p.submitEdi(partner, edi);
    expect(r.status).toBe(202);
    traces.push(r.body['traceGuid'] as string);
    return r.body['traceGuid'] as string;
  };
  const sets: [string, number][] = [];
  sets.push([await submit('globex', interchange({ sender: from('GLOBEX'), control: 501, groups: [{ sets: [po850('A-1'), po850('A-2')] }] })), 2]);
  sets.push([await submit('globex', interchange({ sender: from('GLOBEX'), control: 502, groups: [{ sets: [po850('A-3'), invoice810('I-1')] }] })), 2]);
  sets.push([await submit('acme', interchange({ sender: from('ACME'), control: 601, groups: [{ sets: [po850('B-1')] }] })), 1]);
  sets.push([await submit('acme', interchange({ sender: from('ACME'), control: 602, groups: [{ sets: [invoice810('I-2'), po850('B-2')] }] })), 2]);
  await submit('acme', 'ISA*00*unreadable~');
  for (const [t, n] of sets) await p.settled(t, n);

  // three final webhook deliveries on a real document: two failed after 6 and 1 calls, one succeeded
  const stores = await p.reader.stores();
  const doc = (await p.transactions(sets[2]![0]))[0]!;
  const now = Date.now() * 1000;
  const webhook = (n: number, status: 'success' | 'error', attempts: number | null): ResultRecord => ({
    id: resultId(doc.traceGuid, 'webhook-node', doc.id, n),
    organizationId: p.org,
    traceGuid: doc.traceGuid,
    transactionId: doc.id,
    flowId: doc.flowId,
    nodeId: 'webhook-node',
    nodeName: 'Webhook delivery',
    service: 'webhook',
    status,
    direction: 'outbound',
    partnerKey: doc.partnerKey,
    resend: n > 1,
    detail: { direction: 'outbound', partner: { key: 'ACME' }, webhook: { url: 'https://erp.example/hook', ...(attempts === null ? { statusCode: 200 } : { statusCode: 503, attempts, willRetry: false, maxAttempts: 6 }) }, ...(status === 'error' ? { errorMessage: 'The webhook answered 503.' } : {}) },
    payload: null,
    createdAt: now + n,
    updatedAt: now + n,
  });
  const hooks = [webhook(1, 'error', 6), webhook(2, 'error', 1), webhook(3, 'success', null)];
  await stores.results.put(hooks);
  const [producer, wire] = await Promise.all([p.reader.producer(), p.reader.wire()]);
  await producer.send(hooks.map((h) => ({ topic: wire.topic(TOPICS.results), key: h.traceGuid, value: wire.encode(TOPICS.results, resultEvent(h)) })));

  const ch = await p.reader.clickhouse();
  await eventually(
    async () => {
      txs = (await Promise.all(traces.map((t) => p.transactions(t)))).flat();
      results = (await Promise.all(traces.map((t) => p.results(t)))).flat();
      const q = async (table: string) =>
        Number((await (await ch.client.query({ query: `SELECT count() AS n FROM ${ch.database}.${table} FINAL WHERE org_id = {org:String}`, query_params: { org: p.org }, format: 'JSONEachRow' })).json<{ n: number }>())[0]!.n);
      return (await q('transactions')) === txs.length && (await q('results')) === results.length ? true : undefined;
    },
    60_000,
    'the projections',
  );
}, 300_000);

afterAll(async () => {
  await p?.stop();
  await folder?.remove();
});

const day = (us: number): string => new Date(Math.floor(us / 1000)).toISOString().slice(0, 10);
const countBy = <X>(xs: readonly X[], key: (x: X) => string): Map<string, X[]> => {
  const m = new Map<string, X[]>();
  for (const x of xs) {
    const k = key(x);
    m.set(k, [...(m.get(k) ?? []), x]);
  }
  return m;
};

describe('worked analyst queries of docs/clickhouse.md', () => {
  it('documents per partner and set per day', async () => {
    const rows = await run<{ day: string; partner_key: string; transaction_set_identifier: string; direction: string; documents: number }>('Documents per partner and set per day');
    const want = countBy(txs, (t) => [day(t.createdAt), t.partnerKey, t.transactionSetIdentifier, t.direction].join('|'));
    expect(new Map(rows.map((r) => [[r.day, r.partner_key, r.transaction_set_identifier, r.direction].join('|'), Number(r.documents)]))).toEqual(new Map([...want].map(([k, v]) => [k, v.length])));
    expect(rows.find((r) => r.partner_key === 'GLOBEX' && r.transaction_set_identifier === '997')?.documents).toBe(2);
  });

  it('997 turnaround per partner', async () => {
    const rows = await run<{ partner_key: string; direction: string; acknowledged: number; avg_seconds: number; max_seconds: number }>('997 turnaround per partner');
    const acked = txs.filter((t) => t.acknowledgedBy !== null);
    expect(acked.length).toBe(4);
    const turn = (t: StoredTransaction): number => txs.find((a) => a.id === t.acknowledgedBy)!.createdAt - (t.direction === 'outbound' ? (t.deliveredAt ?? t.createdAt) : t.createdAt);
    const want = countBy(acked, (t) => `${t.partnerKey}|${t.direction}`);
    expect(rows.map((r) => `${r.partner_key}|${r.direction}`)).toEqual([...want.keys()].sort());
    for (const r of rows) {
      const group = want.get(`${r.partner_key}|${r.direction}`)!;
      expect(Number(r.acknowledged)).toBe(group.length);
      expect(Number(r.avg_seconds)).toBeCloseTo(group.reduce((a, t) => a + turn(t), 0) / group.length / 1e6, 2);
      expect(Number(r.max_seconds)).toBeCloseTo(Math.max(...group.map(turn)) / 1e6, 2);
      expect(Number(r.max_seconds)).toBeGreaterThan(0);
    }
  });

  it('error rate by node', async () => {
    const rows = await run<{ node_name: string; results: number; errors: number; error_rate: number }>('Error rate by node');
    const want = countBy(results, (r) => r.nodeName);
    expect(sortedNames(rows.map((r) => r.node_name))).toEqual(sortedNames([...want.keys()]));
    for (const r of rows) {
      const group = want.get(r.node_name)!;
      const errors = group.filter((x) => x.status === 'error').length;
      expect([Number(r.results), Number(r.errors)]).toEqual([group.length, errors]);
      expect(Number(r.error_rate)).toBeCloseTo(errors / group.length, 3);
    }
    // worst first
    for (let i = 1; i < rows.length; i++) expect(Number(rows[i - 1]!.error_rate)).toBeGreaterThanOrEqual(Number(rows[i]!.error_rate));
    expect(rows.find((r) => r.node_name === 'Split interchange')!.errors).toBeGreaterThanOrEqual(3);
  });

  it('webhook attempts distribution', async () => {
    const rows = await run<{ attempts: number; status: string; deliveries: number }>('Webhook attempts distribution');
    const hooks = results.filter((r) => r.service === 'webhook' && typeof (r.detail.webhook as { attempts?: number } | undefined)?.attempts === 'number');
    const want = countBy(hooks, (r) => `${(r.detail.webhook as { attempts: number }).attempts}|${r.status}`);
    expect(rows.map((r) => [`${r.attempts}|${r.status}`, Number(r.deliveries)])).toEqual([...want].map(([k, v]) => [k, v.length]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)));
    expect(rows).toEqual([
      { attempts: 1, status: 'error', deliveries: 1 },
      { attempts: 6, status: 'error', deliveries: 1 },
    ]);
  });
});

function sortedNames(xs: string[]): string[] {
  return [...xs].sort();
}
