/**
 * The feed's readable state on the real engine: the rows the feed sequencer writes with each
 * move of the watermark (migrations/0022) give every organization its newest entry, read in the
 * same query as the watermark, and the feed read from a cursor at that entry has nothing after
 * it (GET /platform/feed_entries answers such a cursor without the read).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chTime, createClickHouse, qualify, type ClickHouseHandle } from '../../../src/adapters/clickhouse/client.ts';
import { feedRow, insertFeedWatermark, insertRows } from '../../../src/adapters/clickhouse/materialize.ts';
import { migrateClickHouse } from '../../../src/adapters/clickhouse/migrate.ts';
import { ClickHouseRecordLists } from '../../../src/adapters/clickhouse/records-store.ts';
import type { FeedEntryRecord } from '../../../src/domain/records.ts';
import { newestByOrganization } from '../../../src/nodes/feed-sequencer.ts';
import { isolatedConfig } from '../helpers/isolated-config.ts';

const iso = isolatedConfig();
let ch: ClickHouseHandle;
let lists: ClickHouseRecordLists;
const base = Date.now() * 1000 - 60_000_000;

const entry = (org: string, id: string, createdAt: number): FeedEntryRecord => ({ id, organizationId: org, direction: 'inbound', status: 'success', partnerKey: 'acme', traceGuid: `t-${id}`, resultId: `r-${id}`, detail: '{}', createdAt });

/** One batch as the sequencer writes it: the entries, then the watermark with the newest entry of each organization. */
async function sequenced(entries: FeedEntryRecord[], watermark: number): Promise<void> {
  await insertRows(ch, 'feed_entries', entries.map(feedRow), 1000);
  await insertFeedWatermark(ch, watermark, newestByOrganization(entries));
}

beforeAll(async () => {
  ch = createClickHouse(iso.config);
  await migrateClickHouse(ch, iso.config);
  lists = new ClickHouseRecordLists(ch, { retentionSeconds: iso.config.cassandra.retentionSeconds, watermarkReuseMs: 0 });
});

afterAll(async () => {
  await ch?.close();
  await iso.cleanup();
});

describe('the feed\'s readable state', () => {
  it('gives each organization its newest entry with the watermark, and nothing follows a cursor at it', async () => {
    // before any move written by this version (a feed written before it): no newest entry
    await ch.client.insert({ table: qualify(ch.database, 'feed_watermark'), values: [{ name: 'feed', position: chTime(base - 10) }], format: 'JSONEachRow' });
    expect((await lists.feedReadable('org-a')).newest).toBeNull();

    await sequenced([entry('org-a', 'a1', base + 1), entry('org-b', 'b1', base + 2), entry('org-a', 'a2', base + 3)], base + 3);
    await sequenced([entry('org-b', 'b2', base + 4)], base + 4);
    // a redelivered batch: an entry sequenced before keeps its createdAt, and the newest stays the newest
    await sequenced([entry('org-a', 'a1', base + 1)], base + 4);

    const a = await lists.feedReadable('org-a');
    expect(a).toEqual({ watermark: base + 4, newest: { createdAt: base + 3, id: 'a2' } });
    expect((await lists.feedReadable('org-b')).newest).toEqual({ createdAt: base + 4, id: 'b2' });
    expect((await lists.feedReadable('org-c')).newest).toBeNull();

    const page = (after: { createdAt: number; id: string } | null) => lists.feed('org-a', {}, after, null, a.watermark, 10);
    expect((await page(null)).rows.map((r) => r.id)).toEqual(['a1', 'a2']);
    expect((await page({ createdAt: base + 1, id: 'a1' })).rows.map((r) => r.id)).toEqual(['a2']);
    expect((await page(a.newest)).rows).toEqual([]);

    // the next batch of org-a moves its newest entry on
    await sequenced([entry('org-a', 'a3', base + 5)], base + 5);
    const next = await lists.feedReadable('org-a');
    expect(next).toEqual({ watermark: base + 5, newest: { createdAt: base + 5, id: 'a3' } });
    expect((await lists.feed('org-a', {}, a.newest, null, next.watermark, 10)).rows.map((r) => r.id)).toEqual(['a3']);
  });
});
