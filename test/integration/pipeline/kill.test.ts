/**
 * At-least-once transport with idempotent effects, proven by breaking it: the per-set node
 * services run in a child process that is killed with SIGKILL in the middle of a 1500-set
 * interchange and started again. Every set ends delivered, and no transaction, result or feed
 * entry exists twice (in Cassandra, and in ClickHouse as the API reads it, with FINAL).
 * The API, the materializer and the scheduler run in this test process (chDB's data folder
 * belongs to one process), so the test reads the same ClickHouse.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusOf } from '../../../src/domain/records.ts';
import { qualify } from '../../../src/adapters/clickhouse/client.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { root } from '../platform/support.ts';
import { interchange, po850, pollingPartnerDoc, startPipeline, type Pipeline } from './support.ts';

// partner_endpoint too: with in-house steps inline, its pass splits, maps, validates and places the sets
const NODES = 'node:partner_endpoint,node:x12_split,node:mapping,node:validation,node:feed';
let p: Pipeline;
let child: ChildProcess | undefined;

function startNodes(): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, ...p.iso.env, TDX_LOG_LEVEL: 'warn', TDX_LOG_FORMAT: 'json' };
  delete env['NODE_OPTIONS'];
  const c = spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', NODES], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  return c;
}

beforeAll(async () => {
  p = await startPipeline(pollingPartnerDoc(), { roles: 'api,materializer,scheduler', sharedKeyspace: true });
  child = startNodes();
}, 240_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await p?.stop();
});

describe('SIGKILL in the middle of a 1500-set interchange', () => {
  it('delivers every set once: no transaction, result or feed entry duplicated', async () => {
    const sets = Array.from({ length: 1500 }, (_, i) => po850(`PO-K${String(i).padStart(4, '0')}`));
    const trace = (await p.submitEdi('GLOBEX', interchange({ control: 4242, groups: [{ sets }] }))).body['traceGuid'] as string;
    const stores = await p.reader.stores();
    // Kill once the per-set work is under way: the pass writes a large file's sets in parts (a
    // few hundred at a time), so the first part is stored while most sets are still to do.
    // Polled tightly, because on a fast machine those 1500 sets take a few seconds.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const rs = await stores.results.byTrace(p.org, trace);
      if (rs.some((r) => r.service === 'x12_split' || r.service === 'mapping' || r.service === 'feed')) break;
      if (Date.now() > deadline) throw new Error('timed out waiting for the split');
      await new Promise((r) => setTimeout(r, 25));
    }
    child!.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    const partial = (await stores.results.byTrace(p.org, trace)).filter((r) => r.service === 'feed').length;
    expect(partial, 'sets on the feed when the node services were killed').toBeLessThan(1500);
    child = startNodes();

    const txs = await p.settled(trace, 1500, 240_000);
    expect(txs).toHaveLength(1500);
    expect(new Set(txs.map((t) => t.id)).size).toBe(1500);
    expect(txs.every((t) => statusOf(t) === 'delivered')).toBe(true);
    expect(txs.map((t) => t.reference)).toEqual(sets.map((_, i) => `PO-K${String(i).padStart(4, '0')}`));

    const results = await stores.results.byTrace(p.org, trace);
    const perTx = new Map<string, string[]>();
    for (const r of results) if (r.transactionId) perTx.set(r.transactionId, [...(perTx.get(r.transactionId) ?? []), r.service]);
    for (const t of txs) expect((perTx.get(t.id) ?? []).sort()).toEqual(['feed', 'mapping', 'validation', 'x12_split']);
    expect(new Set(results.map((r) => r.id)).size).toBe(results.length);

    const ch = await p.reader.clickhouse();
    const db = ch.database;
    const count = async (table: string, extra = ''): Promise<{ n: number; ids: number }> => {
      const rs = await ch.client.query({
        query: `SELECT count() AS n, uniqExact(id) AS ids FROM ${qualify(db, table)} FINAL WHERE org_id = {org:String} AND trace_guid = {trace:String} ${extra}`,
        query_params: { org: p.org, trace },
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<{ n: number | string; ids: number | string }>();
      return { n: Number(row?.n ?? 0), ids: Number(row?.ids ?? 0) };
    };
    const feed = await eventually(async () => {
      const c = await count('feed_entries');
      return c.n >= 1500 ? c : undefined;
    }, 60_000, 'every feed entry materialized');
    expect(feed).toEqual({ n: 1500, ids: 1500 });
    const delivered = await eventually(async () => {
      const t = await stores.transactions.byTrace(p.org, trace);
      return t.every((x) => x.deliveredAt !== null) ? t : undefined;
    }, 60_000, 'deliveredAt of every set');
    expect(delivered).toHaveLength(1500);
    const chResults = await eventually(async () => {
      const c = await count('results');
      return c.n >= results.length ? c : undefined;
    }, 60_000, 'every result materialized');
    expect(chResults).toEqual({ n: results.length, ids: results.length });
    const chTx = await eventually(async () => {
      const c = await count('transactions', "AND status = 'delivered' AND delivered_at IS NOT NULL");
      return c.n >= 1500 ? c : undefined;
    }, 60_000, 'every transaction projected delivered');
    expect(chTx).toEqual({ n: 1500, ids: 1500 });
  }, 600_000);
});
