import { describe, expect, it } from 'vitest';
import { isRetriable } from '../../../../src/adapters/kafka/retriable.ts';
import { TdxError } from '../../../../src/errors.ts';

const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(name), { name, ...extra });

/** The broker's refusal as kafkajs reports it (KafkaJSProtocolError from its error table). */
const tooLarge = (type: string, code: number) => named('KafkaJSProtocolError', { type, code, retriable: false });

describe('isRetriable', () => {
  it.each([
    ['store_unavailable', new TdxError('store_unavailable', 'x'), true],
    ['wire_decode_failed', new TdxError('wire_decode_failed', 'x'), false],
    ['Cassandra NoHostAvailableError', named('NoHostAvailableError'), true],
    ['Cassandra write timeout', named('ResponseError', { code: 0x1100 }), true],
    ['Cassandra syntax error', named('ResponseError', { code: 0x2000 }), false],
    ['ClickHouse timeout', named('ClickHouseError', { code: '159' }), true],
    ['ClickHouse unknown table', named('ClickHouseError', { code: '60' }), false],
    ['retriable kafkajs error', named('KafkaJSConnectionError', { retriable: true }), true],
    ['connection refused', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), true],
    ['wrapped transient cause', new TdxError('internal_error', 'x', { cause: named('OperationTimedOutError') }), false],
    ['plain bug', new TypeError('undefined is not a function'), false],
    ['kafkajs MESSAGE_TOO_LARGE', tooLarge('MESSAGE_TOO_LARGE', 10), false],
    ['kafkajs RECORD_LIST_TOO_LARGE', tooLarge('RECORD_LIST_TOO_LARGE', 18), false],
    ['protocol code 10 without a type', named('KafkaJSProtocolError', { code: 10, retriable: false }), false],
    ['Java RecordBatchTooLargeException', named('RecordBatchTooLargeException'), false],
    // what BatchingProducer rejects its callers with: kafkajs' retrier wraps the refusal, the producer wraps that
    ['too large, wrapped as broker_unavailable', new TdxError('broker_unavailable', 'x', { cause: named('KafkaJSNonRetriableError', { retriable: false, cause: tooLarge('MESSAGE_TOO_LARGE', 10) }) }), false],
    ['broker_unavailable for a retriable cause', new TdxError('broker_unavailable', 'x', { cause: named('KafkaJSNumberOfRetriesExceeded', { retriable: false, cause: named('KafkaJSConnectionError', { retriable: true }) }) }), true],
    ['retriable protocol error', named('KafkaJSProtocolError', { type: 'NOT_LEADER_FOR_PARTITION', code: 6, retriable: true }), true],
  ])('%s → %s', (_label, err, expected) => {
    expect(isRetriable(err)).toBe(expected);
  });
});
