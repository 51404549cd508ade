import { describe, expect, it } from 'vitest';
import { MonotonicClock } from '../../../src/domain/feed-sequence.ts';
import { NO_METERS } from '../../../src/domain/metrics.ts';
import type { FeedEntryRecord, FeedRequest } from '../../../src/domain/records.ts';
import { CHANGES_PER_MESSAGE, newestByOrganization, sequenceFeedBatch, type FeedSequencerPorts, type NewestEntry } from '../../../src/nodes/feed-sequencer.ts';
import type { OutgoingMessage } from '../../../src/nodes/ports.ts';
import type { RecordEvents } from '../../../src/wire/record-events.v1.ts';

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

describe('sequenceFeedBatch and deliveredAt', () => {
  interface Harness {
    ports: FeedSequencerPorts;
    reads: string[][];
    updates: { id: string; deliveredAt?: number | null; createdAt?: number }[];
    counted: string[];
    produced: OutgoingMessage[];
  }
  const harness = (stored: ReadonlyMap<string, { deliveredAt: number | null; createdAt: number }>): Harness => {
    const h: Harness = { reads: [], updates: [], counted: [], produced: [], ports: undefined as unknown as FeedSequencerPorts };
    h.ports = {
      feed: { get: () => Promise.resolve(new Map()), put: () => Promise.resolve() },
      transactions: {
        update: (us) => Promise.resolve(void h.updates.push(...us.map((u) => ({ id: u.id, deliveredAt: u.deliveredAt, createdAt: u.createdAt })))),
        deliveryStates: (_org, ids) => {
          h.reads.push([...ids]);
          return Promise.resolve(new Map(ids.flatMap((id) => (stored.has(id) ? [[id, { traceGuid: `t-${id}`, transactionSetIdentifier: '810', ...stored.get(id)! }] as const] : []))));
        },
      },
      projection: { insert: () => Promise.resolve(), moveWatermark: () => Promise.resolve() },
      emitter: { produce: (ms) => Promise.resolve(void h.produced.push(...ms)) },
      business: { ...NO_METERS.business, documents: (_d, _p, set, _s, n) => void h.counted.push(`${set}×${n}`) },
      wallClock: () => 1000,
    };
    return h;
  };
  const success = (id: string, transactionId: string, first?: { createdAt: number; transactionSetIdentifier: string }): FeedRequest => ({ ...request('o1', id), transactionId, ...(first ? { firstDelivery: first } : {}) });

  it('writes a first delivery\'s deliveredAt without reading the transaction, with its createdAt for the TTL and its set for the count', async () => {
    const h = harness(new Map());
    await sequenceFeedBatch(h.ports, new MonotonicClock(), [success('a', 'tx-a', { createdAt: 7, transactionSetIdentifier: '850' })]);
    expect(h.reads).toEqual([]);
    expect(h.updates).toEqual([{ id: 'tx-a', deliveredAt: 1000, createdAt: 7 }]);
    expect(h.counted).toEqual(['850×1']);
  });

  it('reads the transaction for any other success entry, and never moves a deliveredAt already earlier', async () => {
    const h = harness(
      new Map([
        ['tx-b', { deliveredAt: 500, createdAt: 3 }],
        ['tx-c', { deliveredAt: null, createdAt: 4 }],
      ]),
    );
    await sequenceFeedBatch(h.ports, new MonotonicClock(), [success('b', 'tx-b'), success('c', 'tx-c'), success('d', 'tx-d', { createdAt: 9, transactionSetIdentifier: '850' })]);
    expect(h.reads).toEqual([['tx-b', 'tx-c']]);
    // tx-b was delivered before (a redelivery's entry leaves it); tx-c gets its first; tx-d without a read
    expect(h.updates).toEqual([
      { id: 'tx-d', deliveredAt: 1002, createdAt: 9 },
      { id: 'tx-c', deliveredAt: 1001, createdAt: 4 },
    ]);
  });

  it('publishes each entry on the feed topic, and the changed transactions a few to an events.records message, of many traces', async () => {
    const h = harness(new Map());
    const n = CHANGES_PER_MESSAGE + 1;
    await sequenceFeedBatch(h.ports, new MonotonicClock(), Array.from({ length: n }, (_, i) => success(`e${i}`, `tx-${i}`, { createdAt: 7, transactionSetIdentifier: '850' })));
    expect(h.produced.filter((m) => m.topic === 'feed')).toHaveLength(n);
    expect(h.produced.filter((m) => m.topic === 'events.transactions')).toEqual([]);
    const records = h.produced.filter((m) => m.topic === 'events.records');
    expect(records.map((m) => (m.value as RecordEvents).changes.length)).toEqual([CHANGES_PER_MESSAGE, 1]);
    const changes = records.flatMap((m) => (m.value as RecordEvents).changes);
    // every transaction once, carrying no row (the projector reads it), the message keyed by its first change's trace
    expect(changes.map((c) => c.id)).toEqual(Array.from({ length: n }, (_, i) => `tx-${i}`));
    expect(changes.every((c) => c.snapshot === null && c.organizationId === 'o1')).toBe(true);
    expect(records.map((m) => m.key)).toEqual(['t-e0', `t-e${CHANGES_PER_MESSAGE}`]);
    expect(records.every((m) => (m.value as RecordEvents).results.length === 0 && (m.value as RecordEvents).logs.length === 0)).toBe(true);
  });
});
