/**
 * The settings of a cluster (docs/stack.md, "Running on a cluster"): replication of topics and
 * keyspace, `min.insync.replicas`, and the consistency levels per statement kind. The defaults
 * stay those of the single-node stack.
 */
import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createCassandraClient } from '../../src/adapters/cassandra/client.ts';
import { topicConfig, type TopicDefinition } from '../../src/adapters/kafka/topic-definitions.ts';
import { createLogger } from '../../src/logger.ts';

const CLUSTER_ENV = {
  KAFKA_REPLICATION_FACTOR: '3',
  KAFKA_MIN_INSYNC_REPLICAS: '2',
  CASSANDRA_REPLICATION_FACTOR: '3',
  CASSANDRA_CONSISTENCY: 'QUORUM',
  CASSANDRA_SERIAL_CONSISTENCY: 'LOCAL_SERIAL',
  CASSANDRA_REQUEST_TIMEOUT_MS: '4000',
};

const def = { name: 'x', partitions: 3, config: { 'cleanup.policy': 'delete' }, recordRetention: true } as unknown as TopicDefinition;

describe('cluster settings', () => {
  it('defaults are the single-node stack: RF 1, the broker default min.insync.replicas, LOCAL_QUORUM and SERIAL', () => {
    const c = loadConfig({});
    expect(c.kafka.replicationFactor).toBe(1);
    expect(c.kafka.minInsyncReplicas).toBeUndefined();
    expect(c.cassandra.replicationFactor).toBe(1);
    expect(c.cassandra.consistency).toBe('LOCAL_QUORUM');
    expect(c.cassandra.serialConsistency).toBe('SERIAL');
    expect(topicConfig(def, {})).toEqual({ 'cleanup.policy': 'delete' });
  });

  it('topics get min.insync.replicas when configured, beside their own settings', () => {
    const c = loadConfig(CLUSTER_ENV);
    expect(c.kafka.minInsyncReplicas).toBe(2);
    expect(topicConfig(def, { minInsyncReplicas: c.kafka.minInsyncReplicas, recordRetentionMs: 1000 })).toEqual({
      'cleanup.policy': 'delete',
      'retention.ms': '1000',
      'segment.ms': '1000',
      'min.insync.replicas': '2',
    });
  });

  it('refuses min.insync.replicas above the replication factor, and unknown consistency levels, naming the variable', () => {
    expect(() => loadConfig({ KAFKA_MIN_INSYNC_REPLICAS: '2' })).toThrow(/KAFKA_MIN_INSYNC_REPLICAS: 2 is more than KAFKA_REPLICATION_FACTOR \(1\)/);
    expect(() => loadConfig({ CASSANDRA_CONSISTENCY: 'TWO' })).toThrow(/CASSANDRA_CONSISTENCY: expected one of LOCAL_QUORUM, QUORUM/);
    expect(() => loadConfig({ CASSANDRA_SERIAL_CONSISTENCY: 'QUORUM' })).toThrow(/CASSANDRA_SERIAL_CONSISTENCY: expected one of SERIAL, LOCAL_SERIAL/);
  });

  it('the Cassandra client uses the configured consistency for reads and writes, serial consistency for lightweight transactions, and the timeout', async () => {
    const logger = createLogger({ ...loadConfig({}), logLevel: 'silent' });
    // the driver keeps its options on the client (not in its type declarations)
    const optionsOf = (c: cassandra.Client): cassandra.ClientOptions => (c as unknown as { options: cassandra.ClientOptions }).options;
    const plain = createCassandraClient(loadConfig({}), logger);
    expect(optionsOf(plain).queryOptions).toMatchObject({ consistency: cassandra.types.consistencies.localQuorum, serialConsistency: cassandra.types.consistencies.serial });
    const cluster = createCassandraClient(loadConfig(CLUSTER_ENV), logger);
    expect(optionsOf(cluster).queryOptions).toMatchObject({ consistency: cassandra.types.consistencies.quorum, serialConsistency: cassandra.types.consistencies.localSerial });
    expect(optionsOf(cluster).socketOptions?.readTimeout).toBe(4000);
    await Promise.all([plain.shutdown(), cluster.shutdown()]);
  });
});

describe('a node that was down', () => {
  it('is tried again within 5 s at most, however long it was down (not the driver default of up to 10 minutes)', async () => {
    const client = createCassandraClient(loadConfig({}), createLogger({ ...loadConfig({}), logLevel: 'silent' }));
    const policy = (client as unknown as { options: cassandra.ClientOptions }).options.policies!.reconnection!;
    const schedule = policy.newSchedule();
    const delays = Array.from({ length: 12 }, () => Number(schedule.next().value));
    expect(delays[0]).toBeGreaterThanOrEqual(1000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(5000);
    expect(delays.slice(-3).every((d) => d >= 4000)).toBe(true);
    await client.shutdown();
  });
});

describe('a node whose connection pool is empty', () => {
  it("the driver's 'No connection available' is a passing store error (retried, 503), not an internal one", async () => {
    const { isRetriable } = await import('../../src/adapters/kafka/retriable.ts');
    const { classifyStoreError } = await import('../../src/adapters/cassandra/guard.ts');
    expect(isRetriable(new Error('No connection available'))).toBe(true);
    expect(classifyStoreError('read organization', new Error('No connection available')).code).toBe('store_unavailable');
    expect(isRetriable(new Error('something else'))).toBe(false);
    // a connection closed under a request (its node was killed)
    const closed = Object.assign(new Error('Socket was closed'), { name: 'DriverError', isSocketError: true });
    expect(classifyStoreError('write result', closed).code).toBe('store_unavailable');
  });
});
