/**
 * Classification of failures for the consumer runner: a retriable failure (a store or broker
 * briefly unavailable) is tried again with backoff; anything else goes to the dead-letter
 * topic at once, because repeating it cannot change the outcome.
 */
import { isTdxError } from '../../errors.ts';

const CASSANDRA_TRANSIENT = new Set(['NoHostAvailableError', 'OperationTimedOutError', 'BusyConnectionError']);
// Unavailable, overloaded, is bootstrapping, truncate error, write timeout, read timeout.
const CASSANDRA_TRANSIENT_CODES = new Set([0x1000, 0x1001, 0x1002, 0x1003, 0x1100, 0x1200]);
// ClickHouse: TIMEOUT_EXCEEDED, TOO_MANY_SIMULTANEOUS_QUERIES, NETWORK_ERROR, SOCKET_TIMEOUT, TOO_MANY_PARTS, MEMORY_LIMIT_EXCEEDED
const CLICKHOUSE_TRANSIENT_CODES = new Set(['159', '202', '210', '209', '252', '241']);
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);
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

/** True when trying the same work again may succeed. */
export function isRetriable(err: unknown): boolean {
  // before the TdxError flag: the producer reports every failed send as broker_unavailable
  // (retriable), and a refusal that no retry cures must reach the dead-letter topic instead
  if (tooLargeForBroker(err)) return false;
  if (isTdxError(err)) return err.retriable;
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: unknown; code?: unknown; retriable?: unknown; cause?: unknown };
  if (typeof e.name === 'string' && CASSANDRA_TRANSIENT.has(e.name)) return true;
  if (e.name === 'ResponseError' && typeof e.code === 'number') return CASSANDRA_TRANSIENT_CODES.has(e.code);
  if (e.name === 'ClickHouseError' && typeof e.code === 'string') return CLICKHOUSE_TRANSIENT_CODES.has(e.code);
  if (typeof e.name === 'string' && e.name.startsWith('KafkaJS') && typeof e.retriable === 'boolean') return e.retriable;
  if (typeof e.code === 'string' && NET_CODES.has(e.code)) return true;
  // cassandra-driver: a host whose connection pool is empty (being opened, or its node just died),
  // and a request whose connection closed under it (its node died; the driver retries only
  // statements marked idempotent on another host)
  if (err instanceof Error && err.message === 'No connection available') return true;
  if ((e as { isSocketError?: unknown }).isSocketError === true) return true;
  if (e.cause !== undefined && e.cause !== err) return isRetriable(e.cause);
  return false;
}
