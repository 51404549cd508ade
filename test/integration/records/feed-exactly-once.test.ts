/**
 * The feed's exactly-once paging while the materializer falls behind. The pipeline runs without
 * its materializer role; a reader follows nextCursor the whole time (visibility lag 0, so only
 * the feed watermark holds entries back) while documents are submitted, the materializer is
 * started, stopped and started again. The reader must see every entry once, in order, and no
 * entry before the feed sequencer has declared it readable.
 *
 * One entry is put into ClickHouse directly while the sequencer is stopped: it stands for rows
 * that became visible before the sequencer finished their batch (an insert landing in several
 * parts, one day partition each, visible one by one). Younger than the watermark, it must stay
 * withheld until the sequencer moves the watermark past it; the reader then sees it once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_SERVICES } from '../../../src/domain/node-services.ts';
import { chTime } from '../../../src/adapters/clickhouse/client.ts';
import { createLogger } from '../../../src/logger.ts';
import { startService } from '../../../src/main.ts';
import { readFeedWatermark } from '../../../src/roles/materializer.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { interchange, po850, pollingPartnerDoc, startPipeline, type Pipeline } from '../pipeline/support.ts';

interface Entry {
  id: string;
  createdAt: string;
  traceGuid: string;
  status: string;
}

let p: Pipeline;
let stopMaterializer: (() => Promise<void>) | null = null;
const logger = createLogger({ logLevel: 'silent', serviceName: 'feed-test' });

async function startMaterializer(): Promise<void> {
  stopMaterializer = await startService(p.iso.config, logger, ['materializer'], { write: () => undefined });
}

async function haltMaterializer(): Promise<void> {
  await stopMaterializer?.();
  stopMaterializer = null;
}

beforeAll(async () => {
  const roles = ['api', 'scheduler', ...NODE_SERVICES.map((s) => `node:${s}`)].join(',');
  // the reader below polls every 50 ms with one key for as long as the waves take: under the
  // contract's 240 a minute it would be refused (429) once the test runs past a quarter minute
  // everything read here is the pipeline's organization's: the worker's shared keyspace serves
  p = await startPipeline(pollingPartnerDoc(), { roles, env: { TDX_FEED_VISIBILITY_LAG_MS: '0', TDX_RATE_LIMIT_PER_MINUTE: '1000000' }, sharedKeyspace: true });
}, 180_000);

afterAll(async () => {
  await haltMaterializer();
  await p?.stop();
});

/** Submits `n` interchanges of two sets each; returns their traces once every set is delivered in Cassandra. */
async function wave(base: number, n: number): Promise<string[]> {
  const traces: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await p.submitEdi('globex', interchange({ control: base + i, groups: [{ sets: [po850(`W${base + i}-1`), po850(`W${base + i}-2`)] }] }));
    expect(r.status).toBe(202);
    traces.push(r.body['traceGuid'] as string);
  }
  for (const t of traces) await p.settled(t, 2);
  return traces;
}

describe('GET /platform/feed_entries while the materializer falls behind', () => {
  it('shows every entry exactly once, in order, and none before it is declared readable', async () => {
    const key = await p.newKey('read-only');
    const seen: Entry[] = [];
    let cursor: string | null = null;
    let reading = true;
    let pagesRead = 0;
    const poll = async (): Promise<void> => {
      const r = await p.api(`/platform/feed_entries?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { authorization: `Key ${key}` } });
      if (r.status === 429) {
        // a reader polling this often for longer than a minute meets the key's 240 a minute:
        // it waits as told, as a client following the feed would, and reads on from its cursor
        await new Promise((res) => setTimeout(res, 1000 * Number(r.headers.get('retry-after') ?? '1')));
        return;
      }
      expect(r.status, r.text).toBe(200);
      pagesRead += 1;
      seen.push(...(r.body['feedEntries'] as Entry[]));
      const pg = r.body['pagination'] as { hasMore: boolean; nextCursor: string | null };
      if (pg.nextCursor) cursor = pg.nextCursor;
    };
    const reader = (async () => {
      while (reading) {
        await poll();
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    const fed = (traces: string[]) => seen.filter((e) => traces.includes(e.traceGuid)).length;

    // 1. nothing is sequenced while the materializer is held back
    const first = await wave(1000, 3);
    const before = pagesRead;
    await eventually(() => (pagesRead > before + 5 ? true : undefined), 30_000, 'the reader to poll');
    expect(seen).toEqual([]);

    // 2. the materializer catches up while more documents arrive
    await startMaterializer();
    const second = await wave(2000, 3);
    await eventually(() => (fed([...first, ...second]) >= 12 ? true : undefined), 90_000, 'waves 1 and 2 on the feed');

    // 3. held back again: an entry visible in ClickHouse but younger than the watermark stays withheld
    await haltMaterializer();
    const ch = await p.reader.clickhouse();
    // just past the watermark: younger than every entry the reader may have seen, older than
    // anything sequenced after the resume (a fixed "half a second ago" can fall behind the
    // watermark when the sequencer stops quickly)
    const early = (await readFeedWatermark(ch)) + 1000;
    const planted = { id: '01a20aca-feed-8000-8000-000000000001', trace: '01a20aca-feed-7000-8000-000000000001' };
    await ch.client.insert({
      table: `${ch.database}.feed_entries`,
      values: [{ org_id: p.org, id: planted.id, created_at: chTime(early), direction: 'inbound', status: 'success', partner_key: 'GLOBEX', trace_guid: planted.trace, result_id: planted.id, detail: '{}' }],
      format: 'JSONEachRow',
    });
    const third = await wave(3000, 2);
    const held = pagesRead;
    await eventually(() => (pagesRead > held + 10 ? true : undefined), 30_000, 'the reader to poll');
    expect(seen.some((e) => e.id === planted.id)).toBe(false);
    expect(fed(third)).toBe(0);

    // 4. resumed: the watermark passes the planted entry, then the third wave follows
    await startMaterializer();
    await eventually(() => (fed(third) >= 4 && seen.some((e) => e.id === planted.id) ? true : undefined), 90_000, 'wave 3 on the feed');
    await new Promise((res) => setTimeout(res, 1000));
    reading = false;
    await reader;
    await poll();

    const all = await (
      await ch.client.query({ query: `SELECT id FROM ${ch.database}.feed_entries FINAL WHERE org_id = {org:String} ORDER BY created_at, id`, query_params: { org: p.org }, format: 'JSONEachRow' })
    ).json<{ id: string }>();
    expect(seen.map((e) => e.id)).toEqual(all.map((r) => r.id));
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    expect(seen.length).toBe(12 + 4 + 1);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.createdAt > seen[i - 1]!.createdAt || seen[i]!.id > seen[i - 1]!.id).toBe(true);
    expect(seen.filter((e) => [...first, ...second, ...third].includes(e.traceGuid)).every((e) => e.status === 'success')).toBe(true);
  });
});
