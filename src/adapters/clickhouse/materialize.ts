/**
 * Rows of the ClickHouse tables the materializer and the feed sequencer write, and their batch
 * inserts. Mappers are pure; inserts are idempotent (ReplacingMergeTree keyed so a repeated row
 * collapses: the same id and created_at).
 */
import type { FeedEntryRecord, Micros, StoredTransaction } from '../../domain/records.ts';
import type { NewestEntry } from '../../nodes/feed-sequencer.ts';
import { statusOf } from '../../domain/records.ts';
import type { LogEvent } from '../../wire/log-event.v1.ts';
import type { ResultEvent } from '../../wire/result-event.v1.ts';
import type { TransactionSnapshot } from '../../wire/transaction-change.v1.ts';
import { chTime, qualify, type ClickHouseHandle } from './client.ts';

export type Row = Record<string, string | number | boolean | null>;

/** Name of the feed's row in feed_watermark. */
export const FEED_WATERMARK = 'feed';

/** What the name of an organization's newest-entry row in feed_watermark starts with (migrations/0022). */
export const FEED_NEWEST_PREFIX = 'org:';

/** Moves the feed watermark to `position` and records the newest entry of each organization of the batch, in one insert. */
export async function insertFeedWatermark(handle: ClickHouseHandle, position: Micros, newest: readonly NewestEntry[]): Promise<void> {
  const values: Row[] = [
    { name: FEED_WATERMARK, position: chTime(position), entry_id: '' },
    ...newest.map((n) => ({ name: `${FEED_NEWEST_PREFIX}${n.organizationId}`, position: chTime(n.createdAt), entry_id: n.id })),
  ];
  await handle.client.insert({ table: qualify(handle.database, 'feed_watermark'), values, format: 'JSONEachRow' });
}

const t = (us: number | null): string | null => (us === null ? null : chTime(us));

export function feedRow(e: FeedEntryRecord): Row {
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

/** The fields of a transaction its ClickHouse row shows (a stored row, or the snapshot its change carries). */
export type ProjectedTransaction = TransactionSnapshot & Pick<StoredTransaction, 'organizationId' | 'id' | 'traceGuid'>;

/** The list row of a transaction; `version` orders projections of one row. */
export function transactionRow(x: ProjectedTransaction): Row {
  return {
    org_id: x.organizationId,
    id: x.id,
    created_at: chTime(x.createdAt),
    updated_at: chTime(Math.max(x.updatedAt, x.createdAt)),
    trace_guid: x.traceGuid,
    direction: x.direction,
    usage_indicator: x.usageIndicator,
    partner_key: x.partnerKey,
    transaction_set_identifier: x.transactionSetIdentifier,
    reference: x.reference,
    sender_extid: x.senderExtid,
    sender_qualifier: x.senderQualifier,
    receiver_extid: x.receiverExtid,
    receiver_qualifier: x.receiverQualifier,
    interchange_control_number: x.interchangeControlNumber,
    group_control_number: x.groupControlNumber,
    transaction_set_control_number: x.transactionSetControlNumber,
    status: statusOf(x),
    delivered_at: t(x.deliveredAt),
    warning_count: x.warningCount,
    acknowledgment_status: x.acknowledgmentStatus,
    acknowledged_by: x.acknowledgedBy,
    acknowledges: x.acknowledges,
    resend_count: x.resendCount,
    last_resent_at: t(x.lastResentAt),
    duplicate_of: x.duplicateOf,
    version: Math.max(x.updatedAt, x.createdAt),
  };
}

/** Inserts rows into `table`, at most `maxRows` per insert. */
export async function insertRows(handle: ClickHouseHandle, table: string, rows: readonly Row[], maxRows: number): Promise<number> {
  for (let i = 0; i < rows.length; i += maxRows) {
    await handle.client.insert({ table: qualify(handle.database, table), values: rows.slice(i, i + maxRows), format: 'JSONEachRow' });
  }
  return rows.length;
}
