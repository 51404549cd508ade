import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { createKafka } from '../../../src/adapters/kafka/client.ts';
import { createCassandraClient } from '../../../src/adapters/cassandra/client.ts';
import { createClickHouse } from '../../../src/adapters/clickhouse/client.ts';
import { CQL_MIGRATIONS_DIR } from '../../../src/adapters/cassandra/migrate.ts';
import { SQL_MIGRATIONS_DIR } from '../../../src/adapters/clickhouse/migrate.ts';
import { TOPIC_CODECS, valueSubject } from '../../../src/wire/topics.ts';
import { captureIo, isolatedConfig } from '../helpers/isolated-config.ts';

const iso = isolatedConfig();
const { config } = iso;
const logger = createLogger({ ...config, logLevel: 'silent' });
afterAll(() => iso.cleanup());

describe('tdx migrate', () => {
  it('creates everything on the first run and changes nothing on the second', async () => {
    const first = captureIo();
    const s1 = await runMigrate(config, logger, first.io);
    const cqlFiles = readdirSync(CQL_MIGRATIONS_DIR).filter((f) => f.endsWith('.cql')).length;
    const sqlFiles = readdirSync(SQL_MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).length;
    expect(s1).toEqual({
      topicsCreated: TOPIC_CODECS.size,
      topicsAltered: 0,
      schemasRegistered: TOPIC_CODECS.size,
      compatibilitySet: TOPIC_CODECS.size,
      cassandraApplied: cqlFiles,
      clickhouseApplied: sqlFiles,
    });
    expect(first.out()).toContain('migrate: done');

    const second = captureIo();
    const s2 = await runMigrate(config, logger, second.io);
    expect(Object.values(s2).every((n) => n === 0)).toBe(true);
    expect(second.out()).toContain('migrate: nothing to do, everything is up to date');
    expect(second.out()).toContain(`cassandra: 0 applied, ${cqlFiles} already applied`);
  });

  it('left every topic, subject, table and migration record in place', async () => {
    const admin = createKafka(config, logger, '-it').admin();
    await admin.connect();
    try {
      const topics = new Set(await admin.listTopics());
      for (const t of TOPIC_CODECS.keys()) expect(topics.has(config.kafka.topicPrefix + t), t).toBe(true);
    } finally {
      await admin.disconnect();
    }

    const subject = valueSubject(config.kafka.topicPrefix, 'feed');
    const cfg = await fetch(`${config.schemaRegistry.url}/config/${encodeURIComponent(subject)}`);
    expect(cfg.status).toBe(200);
    const body = (await cfg.json()) as { compatibilityLevel?: string; compatibility?: string };
    expect((body.compatibilityLevel ?? body.compatibility)?.toUpperCase()).toBe('BACKWARD');
    const versions = await fetch(`${config.schemaRegistry.url}/subjects/${encodeURIComponent(subject)}/versions`);
    expect(await versions.json()).toEqual([1]);

    const cql = createCassandraClient(config, logger);
    try {
      const rs = await cql.execute('SELECT table_name, default_time_to_live FROM system_schema.tables WHERE keyspace_name = ?', [config.cassandra.keyspace]);
      const ttl = new Map(rs.rows.map((r) => [String(r['table_name']), Number(r['default_time_to_live'])]));
      for (const t of ['schema_migrations', 'proc_artifacts', 'proc_artifact_chunks', 'proc_transactions', 'proc_results', 'proc_trace_results', 'proc_interchange_sightings', 'proc_feed_entries', 'proc_trace_feed_entries', 'control_numbers']) {
        expect(ttl.has(t), t).toBe(true);
      }
      expect(ttl.get('proc_artifacts')).toBe(config.cassandra.retentionSeconds);
      expect(ttl.get('proc_trace_step_clocks')).toBe(7 * 24 * 3600);
      expect(ttl.has('proc_step_clocks')).toBe(false);
      expect(ttl.get('control_numbers')).toBe(0);
      const applied = await cql.execute('SELECT version FROM schema_migrations');
      expect(applied.rowLength).toBe(readdirSync(CQL_MIGRATIONS_DIR).filter((f) => f.endsWith('.cql')).length);
    } finally {
      await cql.shutdown();
    }

    const ch = createClickHouse(config);
    try {
      const rs = await ch.client.query({
        query: 'SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name',
        query_params: { db: config.clickhouse.database },
        format: 'JSONEachRow',
      });
      expect((await rs.json<{ name: string }>()).map((r) => r.name)).toEqual(expect.arrayContaining(['feed_entries', 'feed_watermark', 'logs', 'results', 'schema_migrations', 'transactions']));
    } finally {
      await ch.close();
    }
  });
});
