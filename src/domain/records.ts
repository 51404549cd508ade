/**
 * The records of document processing: what node steps write (artifacts, transactions, results,
 * logs, feed requests) and what the API reads back. Pure types and small pure helpers; the
 * stores that keep them are ports (processing-ports.ts) implemented in src/adapters.
 *
 * Times are microseconds since the Unix epoch (`Micros`) everywhere inside the service; the API
 * renders them as ISO 8601 with microseconds.
 */
import type { Direction } from './configuration.ts';

export type Micros = number;

export const RESULT_STATUSES = ['success', 'error'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];
export const TRANSACTION_STATUSES = ['processing', 'error', 'delivered'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
export const ACKNOWLEDGMENT_STATUSES = ['accepted', 'rejected', 'unacknowledged'] as const;
export type AcknowledgmentStatus = (typeof ACKNOWLEDGMENT_STATUSES)[number];
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const ARTIFACT_ROLES = ['input', 'output', 'errored', 'acknowledged'] as const;
export type ArtifactRole = (typeof ARTIFACT_ROLES)[number];

/** Content types of stored documents. */
export const EDI_CONTENT_TYPE = 'application/edi-x12';
export const JSON_CONTENT_TYPE = 'application/json';

/**
 * A pointer to stored document bytes (contract: result `detail.artifacts[]`). `usage`:
 * `input` the document the flow received, `output` the document it delivered, `translation`
 * the parsed JSON a mapping received, `mapped` a mapping's output.
 */
export interface ArtifactPointer {
  readonly id: string;
  readonly usage: string;
  readonly contentType: string | null;
  readonly filename: string | null;
}

/**
 * A stored artifact. Its bytes live in chunks under `blobId`: an artifact made from bytes
 * already stored (the delivered copy of a translation) shares them and costs one row.
 */
export interface ArtifactRecord extends ArtifactPointer {
  readonly organizationId: string;
  readonly traceGuid: string;
  /** The result that produced it. */
  readonly resultId: string;
  readonly nodeName: string;
  readonly size: number;
  readonly sha256: string;
  /** Owner of the chunks: the artifact's own id, or the id of the artifact it shares bytes with. */
  readonly blobId: string;
  readonly createdAt: Micros;
}

/** Contract: Warning. `resultId` is added when read through a transaction. */
export interface WarningRecord {
  readonly code: string;
  readonly message: string;
  readonly detail?: Readonly<Record<string, unknown>>;
}

/** The `x12` part of a result's detail. */
export interface X12Detail {
  readonly sender: { readonly isa: { readonly qualifier: string; readonly id: string } };
  readonly receiver: { readonly isa: { readonly qualifier: string; readonly id: string } };
  readonly transaction: { readonly transactionSetIdentifier: string; readonly controlNumber: number };
  readonly interchange: { readonly controlNumber: number };
  readonly functionalGroup: { readonly controlNumber: number };
}

/**
 * A result's `detail` (contract: Result). Every field is present only when it applies; the
 * object is stored and served as it is.
 */
export interface ResultDetail {
  direction?: Direction;
  partner?: { key: string };
  errorMessage?: string;
  incomingResultId?: string;
  errors?: string[];
  webhook?: Record<string, unknown>;
  resend?: true;
  mappingFailed?: true;
  mappingError?: { kind: 'expression' | 'validation'; message: string; errors?: string[] };
  warnings?: WarningRecord[];
  x12?: X12Detail;
  usageIndicator?: string;
  artifacts?: ArtifactPointer[];
  transformations?: string[];
  sftp?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** What `GET /platform/results/:id/payload` serves for a result. */
export interface PayloadRef {
  readonly artifactId: string;
  readonly format: 'json' | 'edi';
}

export interface ResultRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly traceGuid: string;
  readonly transactionId: string | null;
  readonly flowId: string | null;
  readonly nodeId: string;
  readonly nodeName: string;
  readonly service: string;
  readonly status: ResultStatus;
  readonly direction: Direction | null;
  readonly partnerKey: string | null;
  readonly resend: boolean;
  readonly detail: ResultDetail;
  /** The document the step produced or kept; null for a step that kept none (error results: the message is the payload). */
  readonly payload: PayloadRef | null;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
}

/** Artifact role object of a transaction (contract: "Artifact role object"). */
export interface ArtifactRoleRecord {
  readonly resultId: string;
  readonly nodeName: string;
  readonly artifact: ArtifactPointer | null;
}

/** An EDI transaction as stored: every contract field plus what processing and replay need. */
export interface TransactionRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly traceGuid: string;
  readonly direction: Direction;
  readonly usageIndicator: string;
  readonly partnerKey: string | null;
  readonly transactionSetIdentifier: string;
  /** GS08. */
  readonly release: string;
  readonly reference: string | null;
  readonly senderQualifier: string;
  readonly senderExtid: string;
  readonly receiverQualifier: string;
  readonly receiverExtid: string;
  readonly interchangeControlNumber: string;
  readonly groupControlNumber: string;
  readonly transactionSetControlNumber: string;
  readonly duplicateOf: string | null;
  readonly flowId: string | null;
  readonly flowVersion: number | null;
  readonly flowName: string | null;
  readonly createdAt: Micros;
}

/**
 * The state of a transaction that changes after it is recorded. Each field is written by the
 * step that knows it, as a partial update (no read-modify-write): status is derived
 * (`statusOf`) from `failed` and `completed`, so an error never reverts.
 */
export interface TransactionState {
  readonly failed: boolean;
  readonly failedNodeName: string | null;
  readonly completed: boolean;
  readonly deliveredAt: Micros | null;
  readonly warningCount: number;
  readonly acknowledgmentStatus: AcknowledgmentStatus | null;
  readonly acknowledgedBy: string | null;
  readonly acknowledges: string | null;
  readonly resendCount: number;
  readonly lastResentAt: Micros | null;
  readonly roles: Readonly<Partial<Record<ArtifactRole, ArtifactRoleRecord>>>;
  /** Node that delivered the document and the result of that delivery (replays start from them). */
  readonly deliveryNodeId: string | null;
  readonly deliveryResultId: string | null;
  /** The result whose output the delivery node received (redelivery re-runs the node on it). */
  readonly deliveryInputResultId: string | null;
  readonly updatedAt: Micros;
}

export type StoredTransaction = TransactionRecord & TransactionState;

/** Contract status: `error` once any step failed, `delivered` once the flow completed, else `processing`. */
export function statusOf(s: Pick<TransactionState, 'failed' | 'completed'>): TransactionStatus {
  return s.failed ? 'error' : s.completed ? 'delivered' : 'processing';
}

/** A partial update of a transaction's state; only the fields given are written. */
export type TransactionUpdate = {
  readonly organizationId: string;
  readonly id: string;
  readonly traceGuid: string;
} & Partial<Omit<TransactionState, 'roles' | 'updatedAt'>> & {
    /** Roles to set (others are kept). */
    readonly roles?: Readonly<Partial<Record<ArtifactRole, ArtifactRoleRecord>>>;
    /**
     * Write time of the fields (a step clock): of two updates of the same fields, the one with
     * the later time wins whatever order they are applied in, and a re-run rewrites them with
     * the same time. Used where replicas or re-runs may apply answers out of order (the 997
     * reconciliation: the last 997 taken up wins). Absent: written as of now.
     */
    readonly at?: Micros;
    /**
     * The transaction's `createdAt`, when the caller has it: the update's cells expire with the
     * transaction (createdAt + retention), and the store reads it when absent (docs/retention.md).
     */
    readonly createdAt?: Micros;
  };

export interface LogRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly traceGuid: string;
  readonly level: LogLevel;
  readonly message: string;
  readonly nodeName: string | null;
  readonly createdAt: Micros;
}

/**
 * A feed entry as a step asks for it. The feed sequencer gives it its `createdAt` (a single
 * writer, so the feed's order never lets a reader skip an entry) and sets the transaction's
 * `deliveredAt` from the first success entry.
 */
export interface FeedRequest {
  /** Deterministic from the result (`feedEntryId`): a republished result collapses onto it. */
  readonly id: string;
  readonly organizationId: string;
  readonly direction: Direction;
  readonly status: ResultStatus;
  readonly partnerKey: string;
  readonly traceGuid: string;
  readonly resultId: string;
  /** The transaction whose delivery this reports, when a success entry should set `deliveredAt`. */
  readonly transactionId: string | null;
  /** JSON text of the embedded result object (contract: Feed entry `detail`). */
  readonly detail: string;
  readonly requestedAt: Micros;
  /**
   * Set when the pass that recorded the transaction also delivered it (not a replay): this is
   * the transaction's first success entry, and the sequencer sets `deliveredAt` from it without
   * reading the transaction (its `createdAt` gives the cells' TTL, its set the documents' label).
   */
  readonly firstDelivery?: FirstDelivery | null;
}

/** The transaction of a first delivery, as its pass recorded it. */
export interface FirstDelivery {
  readonly createdAt: Micros;
  readonly transactionSetIdentifier: string;
}

export interface FeedEntryRecord extends Omit<FeedRequest, 'requestedAt' | 'transactionId' | 'firstDelivery'> {
  readonly createdAt: Micros;
}

/** ISO 8601 UTC with microseconds. */
export function isoMicros(us: Micros): string {
  const ms = Math.floor(us / 1000);
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 19)}.${String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0')}Z`;
}

/**
 * The span of time a stored record's timestamp can fall in: 1900-01-01 (ClickHouse DateTime64's
 * floor) to 2255-01-01 (microseconds stay exact JavaScript integers up to 2^53 µs, mid-2255,
 * and the ClickHouse client refuses parameters beyond that).
 */
export const EARLIEST_MICROS: Micros = Date.UTC(1900, 0, 1) * 1000;
export const LATEST_MICROS: Micros = Date.UTC(2255, 0, 1) * 1000;

/**
 * A time bound moved into that span: no record lies outside it, so a bound before it selects
 * the same rows as its start and a bound after it the same as its end (a query parameter such
 * as `since=0594-04-27T00:00:00Z` or `until=9999-12-31T23:59:59Z` is valid ISO 8601 and means
 * "from the beginning" or "up to now").
 */
export function clampMicros(us: Micros): Micros {
  return Math.min(Math.max(us, EARLIEST_MICROS), LATEST_MICROS);
}

/** Parses an ISO 8601 timestamp (any precision, with a zone) into microseconds; null when unreadable. */
export function parseIsoMicros(text: string): Micros | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m;
  if (h !== undefined && m[4] !== undefined && zone === undefined) return null; // a time needs a zone
  const base = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone === undefined || /^z$/i.test(zone) ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
  if (Number.isNaN(base)) return null;
  const date = new Date(base);
  if (zone === undefined || /^z$/i.test(zone)) {
    if (date.getUTCFullYear() !== Number(y) || date.getUTCMonth() + 1 !== Number(mo) || date.getUTCDate() !== Number(d)) return null;
  }
  return base * 1000 + Number(frac.padEnd(6, '0').slice(0, 6));
}

export const nowMicros = (): Micros => Date.now() * 1000;
