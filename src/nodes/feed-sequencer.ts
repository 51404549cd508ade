/**
 * The feed sequencer's rules (the materializer role runs it as the single consumer of the
 * one-partition `events.feed` topic, src/roles/materializer.ts): for a batch of feed requests,
 * gives each new entry its createdAt (src/domain/feed-sequence.ts), records it in Cassandra,
 * sets each transaction's deliveredAt from its first success entry, makes the entries readable
 * (the feed projection: ClickHouse `feed_entries`, then the feed watermark), and publishes the
 * entries on the public `feed` topic with the changed transactions (a few `events.records`
 * messages, `changeMessages`), in that order; then counts the new documents. Idempotent: a batch
 * delivered again rewrites the same rows and publishes the same entries.
 *
 * A request that says it is its transaction's first delivery (`FeedRequest.firstDelivery`: the
 * pass that recorded the transaction delivered it) carries the transaction's createdAt and set,
 * and its deliveredAt is written without a read; any other success entry (a replay's, or one of
 * a delivery step that runs apart from the recording pass) is compared with the stored
 * deliveredAt first, so a later success never moves it.
 */
import { documentCounts, type BusinessMeter } from '../domain/metrics.ts';
import { sequence, type MonotonicClock, type Sequenced } from '../domain/feed-sequence.ts';
import { positionBefore } from '../domain/records-query.ts';
import type { FeedEntryKey, FeedStore, TransactionsByIds, TransactionStore } from '../domain/processing-ports.ts';
import type { FeedEntryRecord, FeedRequest, Micros, TransactionUpdate } from '../domain/records.ts';
import { TOPICS } from '../wire/topics.ts';
import type { FeedEntry } from '../wire/feed-entry.v1.ts';
import type { TransactionChange } from '../wire/transaction-change.v1.ts';
import type { RecordEvents } from '../wire/record-events.v1.ts';
import type { Emitter, OutgoingMessage } from './ports.ts';
import { CHANGE_EVENT_BYTES, RECORD_EVENTS_BYTES } from './runtime.ts';

/** Where sequenced entries become readable through the API. */
export interface FeedProjection {
  /** Inserts the entries of a batch (every entry, new or sequenced before). */
  insert(entries: readonly FeedEntryRecord[]): Promise<void>;
  /**
   * Moves the readable position (every entry with a createdAt at or before it is inserted) and,
   * in the same write, records the newest entry of each organization of the batch.
   */
  moveWatermark(position: Micros, newest: readonly NewestEntry[]): Promise<void>;
}

/** An organization's newest feed entry of a batch. */
export interface NewestEntry {
  readonly organizationId: string;
  readonly createdAt: Micros;
  readonly id: string;
}

/** The newest entry (by createdAt, then id: the feed's order) of each organization of `entries`. */
export function newestByOrganization(entries: readonly FeedEntryRecord[]): NewestEntry[] {
  const newest = new Map<string, NewestEntry>();
  for (const e of entries) {
    const n = newest.get(e.organizationId);
    if (!n || positionBefore(n, e)) newest.set(e.organizationId, { organizationId: e.organizationId, createdAt: e.createdAt, id: e.id });
  }
  return [...newest.values()];
}

export interface FeedSequencerPorts {
  readonly feed: FeedStore;
  readonly transactions: Pick<TransactionStore, 'update'> & Pick<TransactionsByIds, 'deliveryStates'>;
  readonly projection: FeedProjection;
  readonly emitter: Pick<Emitter, 'produce'>;
  readonly business: BusinessMeter;
  /** Wall clock in microseconds. */
  readonly wallClock: () => Micros;
}

/** Transaction changes at most in one `events.records` message of the sequencer: the passes' bound on its size. */
export const CHANGES_PER_MESSAGE = Math.floor(RECORD_EVENTS_BYTES / CHANGE_EVENT_BYTES);

/**
 * The changes of a batch's deliveredAt writes, in `events.records` messages of at most
 * `CHANGES_PER_MESSAGE`, not a message each: they carry no row (the projector reads each
 * transaction's current row, and projects it with the row's own version), so the order in which
 * they and any other change of the same transaction are projected does not matter, and a
 * message may hold changes of many traces (keyed by its first).
 */
export function changeMessages(changes: readonly TransactionChange[]): OutgoingMessage[] {
  const out: OutgoingMessage[] = [];
  for (let i = 0; i < changes.length; i += CHANGES_PER_MESSAGE) {
    const part = changes.slice(i, i + CHANGES_PER_MESSAGE);
    const value: RecordEvents = { results: [], logs: [], changes: part };
    out.push({ topic: TOPICS.records, key: part[0]!.traceGuid, value });
  }
  return out;
}

/** Sequences one batch of feed requests (see the module comment); answers what was sequenced. */
export async function sequenceFeedBatch(ports: FeedSequencerPorts, clock: MonotonicClock, requests: readonly FeedRequest[]): Promise<Sequenced> {
  const stored = new Map<string, FeedEntryRecord>();
  const byOrg = new Map<string, FeedEntryKey[]>();
  for (const r of requests) {
    let keys = byOrg.get(r.organizationId);
    if (!keys) byOrg.set(r.organizationId, (keys = []));
    keys.push({ id: r.id, traceGuid: r.traceGuid });
  }
  for (const [org, keys] of byOrg) for (const [id, e] of await ports.feed.get(org, keys)) stored.set(`${org}|${id}`, e);
  const s = sequence(requests, stored, clock, ports.wallClock());
  if (s.fresh.length > 0) await ports.feed.put(s.fresh);
  // deliveredAt: the first success entry of each transaction
  const deliveredUpdates: (TransactionUpdate & { traceGuid: string })[] = [];
  const byOrgTx = new Map<string, string[]>();
  const setOfTx = new Map<string, string>();
  for (const [txId, d] of s.deliveries) {
    if (d.first) {
      // the first success entry of a transaction its pass recorded: nothing to read or compare
      setOfTx.set(txId, d.first.transactionSetIdentifier);
      deliveredUpdates.push({ organizationId: d.organizationId, id: txId, traceGuid: d.traceGuid, deliveredAt: d.createdAt, createdAt: d.first.createdAt });
      continue;
    }
    let ids = byOrgTx.get(d.organizationId);
    if (!ids) byOrgTx.set(d.organizationId, (ids = []));
    ids.push(txId);
  }
  for (const [org, ids] of byOrgTx) {
    // a narrow read of what deciding needs; the projector reads the whole row once the change arrives
    for (const [id, tx] of await ports.transactions.deliveryStates(org, ids)) {
      setOfTx.set(id, tx.transactionSetIdentifier);
      const d = s.deliveries.get(id)!;
      if (tx.deliveredAt === null || tx.deliveredAt > d.createdAt) deliveredUpdates.push({ organizationId: org, id, traceGuid: tx.traceGuid, deliveredAt: d.createdAt, createdAt: tx.createdAt });
    }
  }
  if (deliveredUpdates.length > 0) await ports.transactions.update(deliveredUpdates);
  await ports.projection.insert(s.entries);
  await ports.projection.moveWatermark(clock.current, newestByOrganization(s.entries));
  const now = ports.wallClock();
  await ports.emitter.produce([
    ...s.entries.map((e) => {
      const value: FeedEntry = { id: e.id, organizationId: e.organizationId, direction: e.direction, status: e.status, partnerKey: e.partnerKey, traceGuid: e.traceGuid, resultId: e.resultId, detail: e.detail, createdAt: e.createdAt };
      return { topic: TOPICS.feed, key: e.traceGuid, value };
    }),
    ...changeMessages(deliveredUpdates.map((u): TransactionChange => ({ id: u.id, organizationId: u.organizationId, traceGuid: u.traceGuid, changedAt: now, snapshot: null }))),
  ]);
  // documents in and out, counted once each (a redelivered request is not fresh), one increment
  // per label set of the batch (the set is known for the entries that deliver a transaction, read above)
  const txOfEntry = new Map<string, string>();
  for (const r of requests) if (r.transactionId) txOfEntry.set(r.id, r.transactionId);
  for (const d of documentCounts(s.fresh, (e) => setOfTx.get(txOfEntry.get(e.id) ?? '') ?? 'none')) ports.business.documents(d.direction, d.partner, d.set, d.status, d.count);
  return s;
}
