/**
 * The feed's order: one clock that never goes back gives new entries their createdAt in the
 * order they are taken; a repeated request keeps its first time; deliveredAt comes from a
 * transaction's first success entry.
 */
import { describe, expect, it } from 'vitest';
import { MonotonicClock, sequence } from '../../../src/domain/feed-sequence.ts';
import type { FeedEntryRecord, FeedRequest } from '../../../src/domain/records.ts';

const req = (id: string, over: Partial<FeedRequest> = {}): FeedRequest => ({
  id, organizationId: 'o', direction: 'inbound', status: 'success', partnerKey: 'P', traceGuid: `t-${id}`, resultId: `r-${id}`, transactionId: null, detail: '{}', requestedAt: 0, ...over,
});

describe('MonotonicClock', () => {
  it('never gives the same value twice and never goes back, even when the wall clock does', () => {
    const c = new MonotonicClock(100);
    expect([c.next(50), c.next(50), c.next(200), c.next(150)]).toEqual([101, 102, 200, 201]);
    c.observe(500);
    expect(c.next(300)).toBe(501);
  });
});

describe('sequence', () => {
  it('orders new entries as taken, whatever their request times, and keeps a stored entry as it is', () => {
    const clock = new MonotonicClock(0);
    const stored = new Map<string, FeedEntryRecord>([['o|b', { id: 'b', organizationId: 'o', direction: 'inbound', status: 'success', partnerKey: 'P', traceGuid: 't-b', resultId: 'r-b', detail: '{}', createdAt: 1000 }]]);
    const s = sequence([req('a', { requestedAt: 9 }), req('b'), req('c', { requestedAt: 1 }), req('a')], stored, clock, 900);
    expect(s.entries.map((e) => [e.id, e.createdAt])).toEqual([
      ['a', 900],
      ['b', 1000],
      ['c', 1001],
    ]);
    expect(s.fresh.map((e) => e.id)).toEqual(['a', 'c']);
  });

  it('takes deliveredAt from the first success entry of each transaction, never from an error', () => {
    const s = sequence([req('e', { status: 'error', transactionId: 'x' }), req('s1', { transactionId: 'x' }), req('s2', { transactionId: 'x' })], new Map(), new MonotonicClock(0), 10);
    expect(s.deliveries.get('x')).toEqual({ organizationId: 'o', traceGuid: 't-s1', createdAt: 11, first: null });
  });

  it('keeps what a first delivery\'s request knew of its transaction, only when that entry is the earliest of the batch', () => {
    const first = { createdAt: 3, transactionSetIdentifier: '850' };
    const s = sequence([req('s1', { transactionId: 'x', firstDelivery: first }), req('s2', { transactionId: 'x' }), req('r1', { transactionId: 'y' }), req('r2', { transactionId: 'y', firstDelivery: first })], new Map(), new MonotonicClock(0), 10);
    expect(s.deliveries.get('x')).toEqual({ organizationId: 'o', traceGuid: 't-s1', createdAt: 10, first });
    // y's earliest entry here is not the one that said it is the first: the stored deliveredAt decides
    expect(s.deliveries.get('y')).toEqual({ organizationId: 'o', traceGuid: 't-r1', createdAt: 12, first: null });
  });
});
