/**
 * Time-ordered lists of processing records (contract: GET /platform/edi_transactions,
 * /results, /feed_entries, /logs): the filters each list takes, the position a cursor carries,
 * and the port that reads them (the ClickHouse projections, src/adapters/clickhouse/records-store.ts).
 * Single records are read from the system of record (processing-ports.ts); lists and single
 * reads share the views of views.ts, so both show the same values for one record.
 */
import type { Direction } from './configuration.ts';
import type { AcknowledgmentStatus, LogLevel, Micros, ResultRecord, ResultStatus, TransactionStatus } from './records.ts';

/** A place in a time-ordered list: lists order by (createdAt, id). */
export interface Position {
  readonly createdAt: Micros;
  readonly id: string;
}

/** How far the feed is readable, and an organization's newest entry as of that (RecordLists.feedReadable). */
export interface FeedReadable {
  readonly watermark: Micros;
  readonly newest: Position | null;
}

/** Whether `a` comes before `b` in the feed's order (createdAt, then id). */
export function positionBefore(a: Position, b: Position): boolean {
  return a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);
}

/**
 * Order of the transaction list: `desc` (newest first) is the contract's one order and the
 * default; `asc` (oldest first) is an extension (docs/api.md, "Extensions").
 */
export const LIST_ORDERS = ['desc', 'asc'] as const;
export type ListOrder = (typeof LIST_ORDERS)[number];

/** Filters of the transaction list (contract: GET /platform/edi_transactions). */
export interface TransactionFilters {
  readonly direction?: Direction;
  readonly transactionSetIdentifier?: string;
  /** Partner key, compared without regard to case. */
  readonly partner?: string;
  /** Case-sensitive prefix of `reference`. */
  readonly referencePrefix?: string;
  readonly trace?: string;
  readonly status?: TransactionStatus;
  /** true: at least one warning; false: none. */
  readonly warnings?: boolean;
  /** `acknowledged` is accepted or rejected. */
  readonly ackStatus?: AcknowledgmentStatus | 'acknowledged';
  /** createdAt at or after (inclusive). */
  readonly since?: Micros;
  /** createdAt before (exclusive). */
  readonly until?: Micros;
}

/** A transaction list row as the projection holds it (contract: EDI transaction list fields). */
export interface TransactionListRow {
  readonly id: string;
  readonly traceGuid: string;
  readonly direction: Direction;
  readonly usageIndicator: string;
  readonly partnerKey: string | null;
  readonly transactionSetIdentifier: string;
  readonly reference: string | null;
  readonly senderQualifier: string;
  readonly senderExtid: string;
  readonly receiverQualifier: string;
  readonly receiverExtid: string;
  readonly interchangeControlNumber: string;
  readonly groupControlNumber: string;
  readonly transactionSetControlNumber: string;
  readonly status: TransactionStatus;
  readonly deliveredAt: Micros | null;
  readonly warningCount: number;
  readonly acknowledgmentStatus: AcknowledgmentStatus | null;
  readonly resendCount: number;
  readonly lastResentAt: Micros | null;
  readonly duplicateOf: string | null;
  readonly createdAt: Micros;
  /** Already max(updatedAt, createdAt). */
  readonly updatedAt: Micros;
}

/** Filters of the results list besides `status` (which is sifted, see ResultScanRow). */
export interface ResultFilters {
  readonly trace?: string;
  /** Node name (any case) or node id. */
  readonly node?: string;
}

/** What a results page examines per row before it fetches the rows it keeps. */
export interface ResultScanRow extends Position {
  readonly status: ResultStatus;
}

/** Filters of the feed (contract: GET /platform/feed_entries). */
export interface FeedFilters {
  /** Partner key, any case. */
  readonly partner?: string;
  readonly direction?: Direction;
  readonly status?: ResultStatus;
  readonly trace?: string;
}

/** A feed entry as the projection holds it. */
export interface FeedListRow {
  readonly id: string;
  readonly direction: Direction;
  readonly status: ResultStatus;
  readonly createdAt: Micros;
  readonly partnerKey: string;
  readonly traceGuid: string;
  readonly resultId: string;
  /** The embedded result object, JSON text. */
  readonly detail: string;
}

export interface LogListRow {
  readonly id: string;
  readonly level: LogLevel;
  readonly message: string;
  readonly nodeName: string | null;
  readonly traceGuid: string;
  readonly createdAt: Micros;
}

/** Reads of the time-ordered projections. Every read is scoped to one organization. */
export interface RecordLists {
  /**
   * Newest first (`order` absent or `desc`): at most `limit` rows strictly before `from` (or
   * from the newest), and whether more rows follow. Oldest first (`asc`, an extension): at most
   * `limit` rows strictly after `from` (or from the oldest kept), and whether more follow.
   */
  transactions(organizationId: string, filters: TransactionFilters, from: Position | null, limit: number, order?: ListOrder): Promise<{ rows: TransactionListRow[]; more: boolean }>;
  /** Newest first: at most `scan` rows strictly before `before`, light (position and status). */
  scanResults(organizationId: string, filters: ResultFilters, before: Position | null, scan: number): Promise<ResultScanRow[]>;
  /** Newest first, whole rows: at most `limit` results strictly before `before`, and whether more follow. */
  resultsPage(organizationId: string, filters: ResultFilters, before: Position | null, limit: number): Promise<{ rows: ResultRecord[]; more: boolean }>;
  /** Full results by position (the ones a page keeps), in the order given. */
  results(organizationId: string, positions: readonly Position[]): Promise<ResultRecord[]>;
  /**
   * Oldest first: at most `limit` entries strictly after `after` (or from the oldest, or from
   * `since` inclusive), none created after `bound`; and whether more such entries follow.
   */
  feed(organizationId: string, filters: FeedFilters, after: Position | null, since: Micros | null, bound: Micros, limit: number): Promise<{ rows: FeedListRow[]; more: boolean }>;
  /**
   * The feed's readable position (`watermark`: every entry created at or before it is
   * readable), and the organization's newest entry as of the same read (`newest`: at or after,
   * in the feed's order, each of its entries created at or before `watermark`; null when not
   * known, and then only a read of the feed tells).
   */
  feedReadable(organizationId: string): Promise<FeedReadable>;
  /** Oldest first, one trace, as `feed` (level: exactly that level; absent: every level). */
  logs(
    organizationId: string,
    traceGuid: string,
    level: LogLevel | null,
    after: Position | null,
    since: Micros | null,
    bound: Micros,
    limit: number,
  ): Promise<{ rows: LogListRow[]; more: boolean }>;
}
