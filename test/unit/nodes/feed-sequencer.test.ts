import { describe, expect, it } from 'vitest';
import { MonotonicClock } from '../../../src/domain/feed-sequence.ts';
import { NO_METERS } from '../../../src/domain/metrics.ts';
import type { FeedEntryRecord, FeedRequest } from '../../../src/domain/records.ts';
import { newestByOrganization, sequenceFeedBatch, type FeedSequencerPorts, type NewestEntry } from '../../../src/nodes/feed-sequencer.ts';

const entry = (org: string, id: string, createdAt: number): FeedEntryRecord => ({ id, organizationId: org, direction: 'inbound', status: 'success', partnerKey: 'acme', traceGuid: `t-${id}`, resultId: `r-${id}`, detail: '{}', createdAt });
const request = (org: string, id: string): FeedRequest => ({ ...entry(org, id, 0), transactionId: null, requestedAt: 1 });

describe('newestByOrganization', () => {
  it('takes the newest entry of each organization in the feed\'s order: createdAt, then id', () => {
    const got = newestByOrganization([entry('o1', 'b', 5), entry('o2', 'a', 3), entry('o1', 'a', 7), entry('o1', 'c', 7), entry('o2', 'z', 2)]);
    expect(got).toEqual([
      { organizationId: 'o1', createdAt: 7, id: 'c' },
      { organizationId: 'o2', createdAt: 3, id: 'a' },
    ]);
    expect(newestByOrganization([])).toEqual([]);
  });
});

describe('sequenceFeedBatch', () => {
  it('moves the watermark with the newest entry of each organization, entries sequenced before included', async () => {
    const moves: { position: number; newest: readonly NewestEntry[] }[] = [];
    const inserted: FeedEntryRecord[] = [];
    // o2's entry was sequenced before (a redelivered request keeps its createdAt)
    const stored = new Map([['o2|x', entry('o2', 'x', 50)]]);
    const ports: FeedSequencerPorts = {
      feed: {
        get: (org, keys) => Promise.resolve(new Map(keys.flatMap((k) => (stored.has(`${org}|${k.id}`) ? [[k.id, stored.get(`${org}|${k.id}`)!] as const] : [])))),
        put: () => Promise.resolve(),
      },
      transactions: { update: () => Promise.resolve(), deliveryStates: () => Promise.resolve(new Map()) },
      projection: {
        insert: (entries) => Promise.resolve(void inserted.push(...entries)),
        moveWatermark: (position, newest) => Promise.resolve(void moves.push({ position, newest })),
      },
      emitter: { produce: () => Promise.resolve() },
      business: NO_METERS.business,
      wallClock: () => 100,
    };
    const clock = new MonotonicClock(60);
    await sequenceFeedBatch(ports, clock, [request('o1', 'a'), request('o2', 'x'), request('o1', 'b')]);
    expect(inserted.map((e) => [e.id, e.createdAt])).toEqual([
      ['a', 100],
      ['x', 50],
      ['b', 101],
    ]);
    expect(moves).toEqual([
      {
        position: 101,
        newest: [
          { organizationId: 'o1', createdAt: 101, id: 'b' },
          { organizationId: 'o2', createdAt: 50, id: 'x' },
        ],
      },
    ]);
  });
});
