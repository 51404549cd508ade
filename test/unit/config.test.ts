import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { TdxError } from '../../src/errors.ts';

describe('loadConfig', () => {
  it('defaults point at the local single-node stack', () => {
    const c = loadConfig({});
    expect(c.kafka.brokers).toEqual(['127.0.0.1:9092']);
    expect(c.schemaRegistry.url).toBe('http://127.0.0.1:8081/apis/ccompat/v7');
    expect(c.cassandra.contactPoints).toEqual(['127.0.0.1:9042']);
    expect(c.clickhouse.url).toBeUndefined();
    expect(c.clickhouse.chdbPath).toBe('.data/chdb');
    expect(c.cassandra.retentionSeconds).toBe(45 * 24 * 3600);
    expect(c.api.rateLimitPerMinute).toBe(240);
    expect(c.api.replayRateLimitPerMinute).toBe(10);
  });

  it('converts and validates values', () => {
    const c = loadConfig({ KAFKA_BROKERS: 'a:1, b:2', TDX_API_PORT: '9000', CLICKHOUSE_URL: 'http://ch:8123', TDX_DATA_DIR: '/d' });
    expect(c.kafka.brokers).toEqual(['a:1', 'b:2']);
    expect(c.api.port).toBe(9000);
    expect(c.api.publicUrl).toBe('http://127.0.0.1:9000');
    expect(c.clickhouse.url).toBe('http://ch:8123');
    expect(c.clickhouse.chdbPath).toBe('/d/chdb');
  });

  it('reports every invalid field at once with a stable code', () => {
    let caught: unknown;
    try {
      loadConfig({ TDX_API_PORT: 'x', TDX_LOG_LEVEL: 'loud', CLICKHOUSE_URL: 'ftp://nope', CASSANDRA_KEYSPACE: 'bad-name' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TdxError);
    const e = caught as TdxError;
    expect(e.code).toBe('config_invalid');
    const problems = e.details['problems'] as string[];
    expect(problems.map((p) => p.split(':')[0])).toEqual(['TDX_API_PORT', 'TDX_LOG_LEVEL', 'CLICKHOUSE_URL', 'CASSANDRA_KEYSPACE']);
  });

  it('returns a deeply frozen object', () => {
    const c = loadConfig({});
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.kafka)).toBe(true);
    expect(Object.isFrozen(c.kafka.brokers)).toBe(true);
    expect(() => {
      (c.api as { port: number }).port = 1;
    }).toThrow(TypeError);
  });
});
