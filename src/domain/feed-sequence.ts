/**
 * The feed's order (pure part of the feed sequencer). Entries are asked for by many steps in
 * many processes; one sequencer (the single consumer of the one-partition `events.feed` topic)
 * gives each new entry a `createdAt` from a clock that only moves forward, and makes them
 * readable in that order. So `createdAt` order is the order entries become readable, and a
 * reader that remembers the last (createdAt, id) it saw never skips one, however late an entry
 * was asked for. A repeated request (a step re-run) keeps the entry it already has.
 *
 * A transaction's `deliveredAt` is the `createdAt` of its first success entry.
 */
import type { FeedEntryRecord, FeedRequest, FirstDelivery, Micros } from './records.ts';

/** A clock that never goes back and never gives the same value twice. */
export class MonotonicClock {
  constructor(private last: Micros = 0) {}
  /** The next value: now, or just after the last one when the wall clock is behind. */
  next(now: Micros): Micros {
    this.last = Math.max(now, this.last + 1);
    return this.last;
  }
  /** Moves the clock past `value` (an entry sequenced before a restart). */
  observe(value: Micros): void {
    if (value > this.last) this.last = value;
  }
  get current(): Micros {
    return this.last;
  }
}

export interface Sequenced {
  /** Every entry of the batch, in request order (each id once). */
  readonly entries: FeedEntryRecord[];
  /** Entries sequenced now (not seen before). */
  readonly fresh: FeedEntryRecord[];
  /**
   * Transactions whose first success entry this batch may hold: id → its earliest entry here
   * (createdAt, organization, trace), and what its request knew of the transaction when the
   * request said that entry is the first (`FeedRequest.firstDelivery`).
   */
  readonly deliveries: Map<string, Delivery>;
}

export interface Delivery {
  readonly organizationId: string;
  readonly traceGuid: string;
  readonly createdAt: Micros;
  readonly first: FirstDelivery | null;
}

/**
 * Sequences a batch: entries already stored keep their `createdAt`; new ones get the clock's next
 * values in request order.
 */
export function sequence(requests: readonly FeedRequest[], stored: ReadonlyMap<string, FeedEntryRecord>, clock: MonotonicClock, now: Micros): Sequenced {
  const entries: FeedEntryRecord[] = [];
  const fresh: FeedEntryRecord[] = [];
  const deliveries = new Map<string, Delivery>();
  const seen = new Set<string>();
  for (const r of requests) {
    const key = `${r.organizationId}|${r.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let e = stored.get(key);
    if (e) clock.observe(e.createdAt);
    else {
      e = {
        id: r.id,
        organizationId: r.organizationId,
        direction: r.direction,
        status: r.status,
        partnerKey: r.partnerKey,
        traceGuid: r.traceGuid,
        resultId: r.resultId,
        detail: r.detail,
        createdAt: clock.next(now),
      };
      fresh.push(e);
    }
    entries.push(e);
    if (r.status === 'success' && r.transactionId !== null) {
      const had = deliveries.get(r.transactionId);
      if (!had || e.createdAt < had.createdAt) deliveries.set(r.transactionId, { organizationId: r.organizationId, traceGuid: r.traceGuid, createdAt: e.createdAt, first: r.firstDelivery ?? null });
    }
  }
  return { entries, fresh, deliveries };
}
