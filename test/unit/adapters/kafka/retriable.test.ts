import { describe, expect, it } from 'vitest';
import { isRetriable } from '../../../../src/adapters/kafka/retriable.ts';
import { TdxError } from '../../../../src/errors.ts';

const named = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(name), { name, ...extra });

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
  ])('%s → %s', (_label, err, expected) => {
    expect(isRetriable(err)).toBe(expected);
  });
});
