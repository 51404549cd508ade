/**
 * The transient-failure tables of every driver and transport, in one place: which failures of
 * Cassandra, ClickHouse, Kafka and the network may pass if the same work is tried again, and
 * which HTTP statuses of a partner's or receiver's server are worth another attempt.
 *
 * - `isTransient(err)`: the consumer runner retries such a failure with backoff (anything else
 *   goes to the dead-letter topic), a store call turns it into `store_unavailable`, and the API
 *   answers it 503 `service_unavailable`;
 * - `NETWORK_TRANSIENT_CODES`, `isRetryableHttpStatus`, `WEBHOOK_RETRYABLE_STATUSES`: the
 *   transports (webhook calls, AS2 posts, SFTP sessions) classify one attempt with them.
 */
import { TdxError, isTdxError } from '../errors.ts';

/** Cassandra driver errors that say the cluster is (briefly) not answering. */
export const CASSANDRA_TRANSIENT_NAMES: ReadonlySet<string> = new Set(['NoHostAvailableError', 'OperationTimedOutError', 'BusyConnectionError']);
/** Cassandra protocol codes: unavailable, overloaded, is bootstrapping, truncate error, write timeout, read timeout. */
export const CASSANDRA_TRANSIENT_CODES: ReadonlySet<number> = new Set([0x1000, 0x1001, 0x1002, 0x1003, 0x1100, 0x1200]);
/** ClickHouse: TIMEOUT_EXCEEDED, TOO_MANY_SIMULTANEOUS_QUERIES, NETWORK_ERROR, SOCKET_TIMEOUT, TOO_MANY_PARTS, MEMORY_LIMIT_EXCEEDED. */
export const CLICKHOUSE_TRANSIENT_CODES: ReadonlySet<string> = new Set(['159', '202', '210', '209', '252', '241']);
/** The socket errors of a refused connection. */
export const NETWORK_REFUSED_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED']);
/** The socket errors of a connection reset or dropped by the other side. */
export const NETWORK_RESET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);
/** The socket errors of a host or network that cannot be reached (a timed-out connect included). */
export const NETWORK_UNREACHABLE_CODES: ReadonlySet<string> = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
/** The resolver's errors for a host name it could not resolve (now). */
export const NETWORK_UNRESOLVED_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_FAIL']);
/** Socket-level errors after which the same request may succeed: all of the above, and an aborted request. */
export const NETWORK_TRANSIENT_CODES: ReadonlySet<string> = new Set([...NETWORK_REFUSED_CODES, ...NETWORK_RESET_CODES, ...NETWORK_UNREACHABLE_CODES, ...NETWORK_UNRESOLVED_CODES, 'ABORT_ERR']);
/** Texts of client errors that carry no code but say the server did not answer (the ClickHouse HTTP client's timeout, a dropped socket). */
const NETWORK_TRANSIENT_TEXT = /^Timeout error\.?$|socket hang up|ECONNREFUSED|ECONNRESET/;

/** The webhook contract's retryable statuses: 500, 502, 503, 504 and 429. */
export const WEBHOOK_RETRYABLE_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504, 429]);

/** AS2 (and other partner HTTP endpoints): 408, 425, 429 and every 5xx are worth another attempt. */
export function isRetryableHttpStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

// The broker refusing what was sent as too large: sending the same records again gets the same
// answer. Kafka protocol codes 10 (MESSAGE_TOO_LARGE) and 18 (RECORD_LIST_TOO_LARGE), as kafkajs
// reports them (`type`, `code`), and the Java clients' exception names.
const KAFKA_TOO_LARGE_TYPES = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);
const KAFKA_TOO_LARGE_CODES = new Set([10, 18]);
const KAFKA_TOO_LARGE_NAMES = new Set(['RecordTooLargeException', 'RecordBatchTooLargeException', 'MessageTooLargeException']);

/** True when `err`, or an error it was caused by, is the broker refusing records as too large. */
function tooLargeForBroker(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 8) return false;
  const e = err as { name?: unknown; type?: unknown; code?: unknown; cause?: unknown };
  if (typeof e.type === 'string' && KAFKA_TOO_LARGE_TYPES.has(e.type)) return true;
  if (e.name === 'KafkaJSProtocolError' && typeof e.code === 'number' && KAFKA_TOO_LARGE_CODES.has(e.code)) return true;
  if (typeof e.name === 'string' && KAFKA_TOO_LARGE_NAMES.has(e.name)) return true;
  return e.cause !== undefined && e.cause !== err && tooLargeForBroker(e.cause, depth + 1);
}

// The broker no longer accepting an idempotent producer's sequence (a batch it lost with a
// killed leader, a producer id it expired): kafkajs 2.2.4 reports it and never recovers, so every
// later send of that producer fails the same way. A new producer (a new producer id) cures it.
const KAFKA_PRODUCER_STATE_TYPES = new Set(['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_EPOCH', 'INVALID_PRODUCER_ID_MAPPING']);

/** True when `err`, or an error it was caused by, says the producer's idempotence state is broken. */
export function producerStateLost(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 8) return false;
  const e = err as { type?: unknown; cause?: unknown; originalError?: unknown };
  if (typeof e.type === 'string' && KAFKA_PRODUCER_STATE_TYPES.has(e.type)) return true;
  if (e.originalError !== undefined && e.originalError !== err && producerStateLost(e.originalError, depth + 1)) return true;
  return e.cause !== undefined && e.cause !== err && producerStateLost(e.cause, depth + 1);
}

/** True when trying the same work again may succeed (a store, the broker or the network briefly unavailable). */
export function isTransient(err: unknown, depth = 0): boolean {
  // before the TdxError flag: the producer reports every failed send as broker_unavailable
  // (retriable), and a refusal that no retry cures must reach the dead-letter topic instead
  if (depth === 0 && tooLargeForBroker(err)) return false;
  if (isTdxError(err)) return err.retriable;
  if (typeof err !== 'object' || err === null || depth > 8) return false;
  const e = err as { name?: unknown; code?: unknown; retriable?: unknown; cause?: unknown; message?: unknown };
  if (typeof e.name === 'string' && CASSANDRA_TRANSIENT_NAMES.has(e.name)) return true;
  if (e.name === 'ResponseError' && typeof e.code === 'number') return CASSANDRA_TRANSIENT_CODES.has(e.code);
  if (e.name === 'ClickHouseError' && typeof e.code === 'string') return CLICKHOUSE_TRANSIENT_CODES.has(e.code);
  if (typeof e.name === 'string' && e.name.startsWith('KafkaJS') && typeof e.retriable === 'boolean') return e.retriable;
  if (typeof e.code === 'string' && NETWORK_TRANSIENT_CODES.has(e.code)) return true;
  if (typeof e.message === 'string' && e.code === undefined && NETWORK_TRANSIENT_TEXT.test(e.message)) return true;
  // cassandra-driver: a host whose connection pool is empty (being opened, or its node just
  // died), and a request whose connection closed under it (its node died)
  if (err instanceof Error && err.message === 'No connection available') return true;
  if ((e as { isSocketError?: unknown }).isSocketError === true) return true;
  if (e.cause !== undefined && e.cause !== err) return isTransient(e.cause, depth + 1);
  return false;
}

/**
 * A store driver's failure as the error catalog says it: a failure that may pass becomes
 * `store_unavailable` (retriable; the API answers 503 `service_unavailable`), anything else
 * `internal_error`. Errors that already carry a code pass through.
 */
export function classifyStoreFailure(store: 'Cassandra' | 'ClickHouse', what: string, err: unknown): TdxError {
  if (err instanceof TdxError) return err;
  const message = `${store} ${what} failed: ${err instanceof Error ? err.message : String(err)}`;
  return new TdxError(isTransient(err) ? 'store_unavailable' : 'internal_error', message, { cause: err });
}
