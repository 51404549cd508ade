/**
 * Rows of the ClickHouse tables the materializer writes, mapped from the event topics, and
 * their batch insert. Mappers are pure; `insertBatch` groups rows by table and inserts each
 * group with one JSONEachRow insert (idempotent: tables are ReplacingMergeTree keyed so a
 * re-delivered event rewrites the same row).
 */
import type { FeedEntry } from '../../wire/feed-entry.v1.ts';
import type { LogEvent } from '../../wire/log-event.v1.ts';
import type { ResultEvent } from '../../wire/result-event.v1.ts';
import type { TransactionEvent } from '../../wire/transaction-event.v1.ts';
import { TOPICS } from '../../wire/topics.ts';
import { TdxError } from '../../errors.ts';
import { chTime, qualify, type ClickHouseHandle } from './client.ts';

export type Row = Record<string, string | number | boolean | null>;

const t = (us: number | null): string | null => (us === null ? null : chTime(us));

export function feedRow(e: FeedEntry): Row {
  return {
    org_id: e.organizationId,
    id: e.id,
    created_at: chTime(e.createdAt),
    direction: e.direction,
    status: e.status,
    partner_key: e.partnerKey,
    trace_guid: e.traceGuid,
    result_id: e.resultId,
    detail: e.detail,
  };
}

export function logRow(e: LogEvent): Row {
  return {
    org_id: e.organizationId,
    trace_guid: e.traceGuid,
    created_at: chTime(e.createdAt),
    id: e.id,
    level: e.level,
    message: e.message,
    node_name: e.nodeName,
  };
}

export function resultRow(e: ResultEvent): Row {
  return {
    org_id: e.organizationId,
    id: e.id,
    created_at: chTime(e.createdAt),
    updated_at: chTime(e.updatedAt),
    trace_guid: e.traceGuid,
    transaction_id: e.transactionId,
    flow_id: e.flowId,
    node_id: e.nodeId,
    node_name: e.nodeName,
    service: e.service,
    status: e.status,
    direction: e.direction,
    partner_key: e.partnerKey,
    error_message: e.errorMessage,
    resend: e.resend,
    detail: e.detail,
    version: e.version,
  };
}

export function transactionRow(e: TransactionEvent): Row {
  return {
    org_id: e.organizationId,
    id: e.id,
    created_at: chTime(e.createdAt),
    updated_at: chTime(e.updatedAt),
    trace_guid: e.traceGuid,
    direction: e.direction,
    usage_indicator: e.usageIndicator,
    partner_key: e.partnerKey,
    transaction_set_identifier: e.transactionSetIdentifier,
    reference: e.reference,
    sender_extid: e.senderExtid,
    sender_qualifier: e.senderQualifier,
    receiver_extid: e.receiverExtid,
    receiver_qualifier: e.receiverQualifier,
    interchange_control_number: e.interchangeControlNumber,
    group_control_number: e.groupControlNumber,
    transaction_set_control_number: e.transactionSetControlNumber,
    status: e.status,
    delivered_at: t(e.deliveredAt),
    warning_count: e.warningCount,
    acknowledgment_status: e.acknowledgmentStatus,
    resend_count: e.resendCount,
    last_resent_at: t(e.lastResentAt),
    duplicate_of: e.duplicateOf,
    version: e.version,
  };
}

/** Topic (without prefix) → table and row mapper. */
export const MATERIALIZED: ReadonlyMap<string, { table: string; row: (value: never) => Row }> = new Map([
  [TOPICS.feed, { table: 'feed_entries', row: feedRow }],
  [TOPICS.logs, { table: 'logs', row: logRow }],
  [TOPICS.results, { table: 'results', row: resultRow }],
  [TOPICS.transactions, { table: 'transactions', row: transactionRow }],
]);

/** Inserts `values` of `topic`, at most `maxRows` per insert. Returns the rows written. */
export async function insertBatch(handle: ClickHouseHandle, topic: string, values: readonly unknown[], maxRows: number): Promise<number> {
  const target = MATERIALIZED.get(topic);
  if (!target) throw new TdxError('topic_unknown', `Topic "${topic}" is not materialized.`, { details: { topic } });
  const rows = values.map((v) => target.row(v as never));
  for (let i = 0; i < rows.length; i += maxRows) {
    await handle.client.insert({ table: qualify(handle.database, target.table), values: rows.slice(i, i + maxRows), format: 'JSONEachRow' });
  }
  return rows.length;
}
