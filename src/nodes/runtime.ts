/**
 * Writes a step's effects, always in this order, then produces its messages:
 *
 *   1. artifacts (bytes before rows, so a visible artifact is complete)
 *   2. transactions recorded
 *   3. results
 *   4. partial updates of transactions and failures noted on traces (a state a reader sees
 *      always has its result stored)
 *   5. one produce: result, transaction-change, log and feed-request events, then the next work
 *
 * A transaction recorded in the same effects as partial updates of it (an inline pass records
 * a set and maps, validates and places it on the feed) is written once, with the updates folded
 * into its row, at step 4: one write instead of a row and an update per step, and still no
 * state visible before its result. Its fields are written as of its createdAt, like every
 * recorded row, so a pass run again after a crash never undoes what a later step wrote.
 *
 * Every write is idempotent (deterministic keys), so a crash anywhere is repaired by the
 * redelivery of the same work: the same rows are rewritten and the same messages produced.
 */
import { TOPICS } from '../wire/topics.ts';
import type { ResultEvent } from '../wire/result-event.v1.ts';
import type { LogEvent } from '../wire/log-event.v1.ts';
import type { FeedRequestMessage } from '../wire/feed-request.v1.ts';
import { SNAPSHOT_FIELDS, type TransactionChange, type TransactionSnapshot } from '../wire/transaction-change.v1.ts';
import type { RecordEvents } from '../wire/record-events.v1.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import { delayTierFor, type DelayedMessage } from '../wire/delayed.v1.ts';
import { stageTopic } from '../wire/topics.ts';
import type { NodeService } from '../domain/node-services.ts';
import type { FeedRequest, LogRecord, Micros, ResultRecord, StoredTransaction, TransactionUpdate } from '../domain/records.ts';
import type { StoredBytes } from '../domain/processing-ports.ts';
import { mapLimit } from '../domain/concurrency.ts';
import type { Effects } from './step.ts';
import type { Emitter, OutgoingMessage, ProcessingStores } from './ports.ts';

const WRITE_CONCURRENCY = 64;

export function resultEvent(r: ResultRecord): ResultEvent {
  return {
    id: r.id,
    organizationId: r.organizationId,
    traceGuid: r.traceGuid,
    transactionId: r.transactionId,
    flowId: r.flowId,
    nodeId: r.nodeId,
    nodeName: r.nodeName,
    service: r.service,
    status: r.status,
    direction: r.direction,
    partnerKey: r.partnerKey,
    errorMessage: typeof r.detail.errorMessage === 'string' ? r.detail.errorMessage : null,
    resend: r.resend,
    detail: JSON.stringify(r.detail),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    version: r.updatedAt,
  };
}

export function logEvent(l: LogRecord): LogEvent {
  return { id: l.id, organizationId: l.organizationId, traceGuid: l.traceGuid, level: l.level, message: l.message, nodeName: l.nodeName, createdAt: l.createdAt };
}

export function feedRequestMessage(f: FeedRequest): FeedRequestMessage {
  return {
    id: f.id,
    organizationId: f.organizationId,
    direction: f.direction,
    status: f.status,
    partnerKey: f.partnerKey,
    traceGuid: f.traceGuid,
    resultId: f.resultId,
    transactionId: f.transactionId,
    detail: f.detail,
    requestedAt: f.requestedAt,
    transactionCreatedAt: f.firstDelivery?.createdAt ?? null,
    transactionSetIdentifier: f.firstDelivery?.transactionSetIdentifier ?? null,
  };
}

/** A feed request as its message carries it (the inverse of `feedRequestMessage`). */
export function feedRequestOf(m: FeedRequestMessage): FeedRequest {
  const { transactionCreatedAt, transactionSetIdentifier, ...rest } = m;
  const firstDelivery = transactionCreatedAt !== null && transactionSetIdentifier !== null ? { createdAt: transactionCreatedAt, transactionSetIdentifier } : null;
  return { ...rest, firstDelivery };
}

/** Estimated encoded bytes most of one `events.records` message. */
export const RECORD_EVENTS_BYTES = 256 * 1024;

/** Estimated encoded bytes of one transaction change in an `events.records` message. */
export const CHANGE_EVENT_BYTES = 120;

/**
 * The `events.records` messages of a pass: per trace, its results, log entries and transaction
 * changes, in as few messages as the size bound allows (each in the order written).
 */
export function recordEventMessages(results: readonly ResultRecord[], logs: readonly LogRecord[], changes: Iterable<TransactionChange>, most = RECORD_EVENTS_BYTES): OutgoingMessage[] {
  interface Open {
    results: ResultEvent[];
    logs: LogEvent[];
    changes: TransactionChange[];
    bytes: number;
  }
  const open = new Map<string, Open>();
  const out: OutgoingMessage[] = [];
  const close = (trace: string, o: Open): void => {
    const value: RecordEvents = { results: o.results, logs: o.logs, changes: o.changes };
    out.push({ topic: TOPICS.records, key: trace, value });
  };
  const add = (trace: string, bytes: number, put: (o: Open) => void): void => {
    let o = open.get(trace);
    if (o && o.bytes + bytes > most) {
      close(trace, o);
      o = undefined;
    }
    if (!o) open.set(trace, (o = { results: [], logs: [], changes: [], bytes: 0 }));
    put(o);
    o.bytes += bytes;
  };
  for (const r of results) {
    const ev = resultEvent(r);
    add(r.traceGuid, 300 + ev.detail.length + (ev.errorMessage?.length ?? 0), (o) => o.results.push(ev));
  }
  for (const l of logs) add(l.traceGuid, 150 + l.message.length, (o) => o.logs.push(logEvent(l)));
  for (const c of changes) add(c.traceGuid, CHANGE_EVENT_BYTES, (o) => o.changes.push(c));
  for (const [trace, o] of open) close(trace, o);
  return out;
}

/** The messages of `e`, in produce order (`encode` gives the registry bytes of a delayed message's payload). */
export function messagesOf(e: Effects, changedAt: Micros, encode: Emitter['encode'], fold: ReturnType<typeof foldUpdates> = foldUpdates(e)): OutgoingMessage[] {
  const out: OutgoingMessage[] = [];
  const changed = new Map<string, TransactionChange>();
  // a transaction this pass wrote whole travels as written; one it only updated is read back
  const { recorded, folded, updates } = fold;
  for (const t of [...recorded, ...folded]) changed.set(t.id, { id: t.id, organizationId: t.organizationId, traceGuid: t.traceGuid, changedAt, snapshot: snapshotOf(t) });
  for (const u of updates) changed.set(u.id, { id: u.id, organizationId: u.organizationId, traceGuid: u.traceGuid, changedAt, snapshot: null });
  out.push(...recordEventMessages(e.results, e.logs, changed.values()));
  for (const f of firstDeliveries(e, fold)) out.push({ topic: TOPICS.feedRequests, key: f.traceGuid, value: feedRequestMessage(f) });
  for (const m of e.emit) out.push({ topic: m.topic, key: m.key, value: m.value });
  for (const l of e.later) {
    const target = stageTopic(l.message.service as NodeService);
    const delayed: DelayedMessage = {
      id: l.message.id,
      dueAt: l.dueAt,
      targetTopic: target,
      key: l.message.traceGuid,
      value: encode(target, l.message),
      headers: {},
      reason: l.reason,
      attempt: Math.max(1, Number(l.message.params['deliveryAttempt'] ?? '1') || 1),
    };
    out.push({ topic: delayTierFor(Math.max(0, l.dueAt / 1000 - changedAt / 1000)), key: l.message.traceGuid, value: delayed });
  }
  return out;
}

/**
 * The feed requests of `e`, each success entry of a transaction this pass recorded marked as its
 * first delivery (`FeedRequest.firstDelivery`) when the pass delivered it itself: its result is
 * one of the pass's and not a replay's. A pass records a transaction once, before anything can
 * deliver or replay it, so no success entry of it can come before this one.
 */
export function firstDeliveries(e: Pick<Effects, 'feed' | 'results'>, fold: Pick<ReturnType<typeof foldUpdates>, 'recorded' | 'folded'>): FeedRequest[] {
  if (e.feed.length === 0 || fold.recorded.length + fold.folded.length === 0) return e.feed;
  const txs = new Map<string, StoredTransaction>();
  for (const t of [...fold.recorded, ...fold.folded]) txs.set(`${t.organizationId}|${t.id}`, t);
  const delivered = new Set<string>();
  for (const r of e.results) if (r.status === 'success' && !r.resend) delivered.add(`${r.organizationId}|${r.id}`);
  return e.feed.map((f) => {
    const t = f.transactionId === null ? undefined : txs.get(`${f.organizationId}|${f.transactionId}`);
    if (!t || f.status !== 'success' || !delivered.has(`${f.organizationId}|${f.resultId}`)) return f;
    return { ...f, firstDelivery: { createdAt: t.createdAt, transactionSetIdentifier: t.transactionSetIdentifier } };
  });
}

/**
 * `e` with the work's transaction createdAt (`StageMessage.transactionCreatedAt`) given to the
 * updates of that transaction that lack one, so the store writes them with the transaction's
 * TTL without reading its createdAt back.
 */
export function withTransactionCreatedAt(e: Effects, m: Pick<StageMessage, 'organizationId' | 'transactionId' | 'transactionCreatedAt'>): Effects {
  const createdAt = m.transactionCreatedAt;
  if (createdAt === null || createdAt === undefined || m.transactionId === null) return e;
  const lacks = (u: TransactionUpdate): boolean => u.createdAt === undefined && u.id === m.transactionId && u.organizationId === m.organizationId;
  return e.updates.some(lacks) ? { ...e, updates: e.updates.map((u) => (lacks(u) ? { ...u, createdAt } : u)) } : e;
}

/** The fields of `t` the ClickHouse projection shows (wire: TransactionSnapshot). */
export function snapshotOf(t: StoredTransaction): TransactionSnapshot {
  const out: Record<string, unknown> = {};
  for (const f of SNAPSHOT_FIELDS) out[f] = t[f];
  return out as TransactionSnapshot;
}

/**
 * The transactions of `e` with the partial updates of them that `e` holds folded in (`folded`),
 * the ones with none (`recorded`), and the updates left (of transactions recorded elsewhere, or
 * written as of a step clock: `at`).
 */
export function foldUpdates(e: Pick<Effects, 'transactions' | 'updates'>): { recorded: StoredTransaction[]; folded: StoredTransaction[]; updates: TransactionUpdate[] } {
  if (e.updates.length === 0) return { recorded: e.transactions, folded: [], updates: e.updates };
  const byId = new Map<string, StoredTransaction>();
  for (const t of e.transactions) byId.set(`${t.organizationId}|${t.id}`, t);
  const changed = new Set<string>();
  const updates: TransactionUpdate[] = [];
  for (const u of e.updates) {
    const k = `${u.organizationId}|${u.id}`;
    const t = byId.get(k);
    if (!t || u.at !== undefined) {
      updates.push(u);
      continue;
    }
    const { organizationId: _o, id: _i, traceGuid: _t, at: _at, createdAt: _c, roles, ...fields } = u;
    byId.set(k, { ...t, ...fields, roles: { ...t.roles, ...(roles ?? {}) } });
    changed.add(k);
  }
  const recorded: StoredTransaction[] = [];
  const folded: StoredTransaction[] = [];
  for (const [k, t] of byId) (changed.has(k) ? folded : recorded).push(t);
  return { recorded, folded, updates };
}

/** Writes `e` and produces its messages. */
export async function applyEffects(stores: ProcessingStores, emitter: Emitter, e: Effects, changedAt: Micros): Promise<void> {
  const withBytes = e.artifacts.filter((a) => a.bytes !== null);
  const aliases = e.artifacts.filter((a) => a.bytes === null);
  const stored = await stores.artifacts.putAll(withBytes.map((a) => ({ record: a.record, bytes: a.bytes! })));
  // an alias of bytes written here (or of an alias of them) copies what was written: no read
  const known = new Map<string, StoredBytes>();
  withBytes.forEach((a, i) => known.set(`${a.record.organizationId}/${a.record.id}`, stored[i]!));
  const sources = aliases.map((a) => {
    const source = known.get(`${a.record.organizationId}/${a.record.blobId}`);
    if (source) known.set(`${a.record.organizationId}/${a.record.id}`, source);
    return source;
  });
  await stores.artifacts.aliasAll(aliases.map((a, i) => ({ record: a.record, source: sources[i] })));
  if (e.sightings.length > 0) await stores.transactions.recordSightings(e.sightings);
  // notes kept beside the records (reconciliation of acknowledgments, their deadlines, sandbox
  // receipts): before the results that end the step, so a step redelivered after a crash writes
  // them again, and a sandbox key can read every result it is shown
  await mapLimit(e.outboundSets, WRITE_CONCURRENCY, (n) => stores.transactions.outboundSet(n.key, n.setControlNumber, n.transactionId, n.createdAt, n.tracked));
  if (e.deadlines.length > 0 && stores.deadlines) await stores.deadlines.watch(e.deadlines);
  const receipts = stores.sandboxReceipts;
  if (receipts) await mapLimit(e.sandboxReceipts, WRITE_CONCURRENCY, (r) => receipts.record(r));
  const fold = foldUpdates(e);
  const { recorded, folded, updates } = fold;
  if (recorded.length > 0) await stores.transactions.record(recorded);
  if (e.results.length > 0) await stores.results.put(e.results);
  // State changes last: a transaction reads delivered (or failed) only once the result that
  // says so is stored.
  if (folded.length > 0) await stores.transactions.record(folded);
  if (updates.length > 0) await stores.transactions.update(updates);
  await mapLimit(e.traceErrors, WRITE_CONCURRENCY, (t) => stores.transactions.recordTraceError(t.organizationId, t.traceGuid, t.error));
  const messages = messagesOf(e, changedAt, (t, v) => emitter.encode(t, v), fold);
  if (messages.length > 0) await emitter.produce(messages);
}
