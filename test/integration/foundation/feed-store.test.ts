/**
 * The feed sequencer's record of entries (CassandraFeedStore), on a keyspace of its own: the
 * entries of a trace are read and written a partition per trace; an entry sequenced before that
 * table existed (a row of proc_feed_entries) is still found, so a repeated request keeps its
 * first createdAt after an upgrade; keys of another trace or organization find nothing.
 */
import { describe, expect, it } from 'vitest';
import { CassandraFeedStore } from '../../../src/adapters/cassandra/feed-store.ts';
import type { FeedEntryRecord } from '../../../src/domain/records.ts';
import { newId } from '../../../src/domain/ids.ts';
import { migratedCassandra } from '../helpers/cassandra.ts';
import { isolatedConfig } from '../helpers/isolated-config.ts';

const iso = isolatedConfig();
const client = migratedCassandra(iso);

const entry = (org: string, traceGuid: string, n: number): FeedEntryRecord => ({
  id: newId(),
  organizationId: org,
  createdAt: 1_700_000_000_000_000 + n,
  direction: n % 2 ? 'outbound' : 'inbound',
  status: n % 3 ? 'success' : 'error',
  partnerKey: `P${n}`,
  traceGuid,
  resultId: newId(),
  detail: JSON.stringify({ n }),
});

describe('CassandraFeedStore', () => {
  it('reads back the entries of several traces by key, and nothing for a key of another trace or organization', async () => {
    const store = new CassandraFeedStore(client());
    const org = newId();
    const [t1, t2] = [newId(), newId()];
    const entries = [...Array.from({ length: 150 }, (_, i) => entry(org, t1, i)), entry(org, t2, 1000)];
    await store.put(entries);
    const got = await store.get(org, entries.map((e) => ({ id: e.id, traceGuid: e.traceGuid })));
    expect(got.size).toBe(entries.length);
    for (const e of entries) expect(got.get(e.id)).toEqual(e);
    // the trace is part of the key
    expect((await store.get(org, [{ id: entries[0]!.id, traceGuid: t2 }])).size).toBe(0);
    expect((await store.get(newId(), [{ id: entries[0]!.id, traceGuid: t1 }])).size).toBe(0);
    // a repeated put rewrites the same row
    await store.put([{ ...entries[0]! }]);
    expect((await store.get(org, [{ id: entries[0]!.id, traceGuid: t1 }])).get(entries[0]!.id)).toEqual(entries[0]);
  });

  it('finds an entry sequenced before the trace partitions existed (proc_feed_entries) while that table holds rows', async () => {
    const org = newId();
    const trace = newId();
    const old = entry(org, trace, 7);
    const fresh = entry(org, trace, 8);
    // the shape 0008 wrote: a partition per entry
    await client().execute(
      'INSERT INTO proc_feed_entries (org_id, id, created_at, direction, status, partner_key, trace_guid, result_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [org, old.id, old.createdAt, old.direction, old.status, old.partnerKey, old.traceGuid, old.resultId, old.detail],
      { prepare: true },
    );
    const store = new CassandraFeedStore(client());
    await store.put([fresh]);
    const got = await store.get(org, [old, fresh].map((e) => ({ id: e.id, traceGuid: e.traceGuid })));
    expect(got.get(old.id)).toEqual(old);
    expect(got.get(fresh.id)).toEqual(fresh);
    // with the old table empty it is not read: the old entry is no longer found
    await client().execute('TRUNCATE proc_feed_entries');
    const after = new CassandraFeedStore(client());
    expect((await after.get(org, [{ id: old.id, traceGuid: trace }])).size).toBe(0);
    expect((await after.get(org, [{ id: fresh.id, traceGuid: trace }])).get(fresh.id)).toEqual(fresh);
  });
});
