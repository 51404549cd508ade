/**
 * `tdx migrate`: one idempotent provisioning command. In order: creates or aligns the Kafka
 * topics of topics/, registers every value schema with BACKWARD compatibility, applies the
 * pending Cassandra CQL migrations and the pending ClickHouse DDL migrations. A second run
 * changes nothing and says so.
 */
import { parseArgs } from 'node:util';
import type { CliCommand, CliIo } from '../tdx.ts';
import type { Config } from '../../config.ts';
import { loadConfig } from '../../config.ts';
import { createLogger, loadPrettyLogs, type Logger } from '../../logger.ts';
import { createKafka } from '../../adapters/kafka/client.ts';
import { createSchemaRegistry, registerSubject } from '../../adapters/kafka/registry.ts';
import { ensureTopics, readTopicDefinitions } from '../../adapters/kafka/topic-definitions.ts';
import { createCassandraClient } from '../../adapters/cassandra/client.ts';
import { migrateCassandra } from '../../adapters/cassandra/migrate.ts';
import { createClickHouse } from '../../adapters/clickhouse/client.ts';
import { migrateClickHouse } from '../../adapters/clickhouse/migrate.ts';
import type { MigrationOutcome } from '../../adapters/migrations.ts';
import { TOPIC_CODECS, valueSubject } from '../../wire/topics.ts';

/** Counts of what one run changed; all zero on a second run. */
export interface MigrateSummary {
  topicsCreated: number;
  topicsAltered: number;
  schemasRegistered: number;
  compatibilitySet: number;
  cassandraApplied: number;
  clickhouseApplied: number;
}

const PARTS = ['topics', 'schemas', 'cassandra', 'clickhouse'] as const;

/** Runs the provisioning steps chosen in `only` (all by default). */
export async function runMigrate(config: Config, logger: Logger, io: CliIo, only: readonly string[] = PARTS): Promise<MigrateSummary> {
  const say = (line: string): void => void io.stdout.write(`${line}\n`);
  const sum: MigrateSummary = { topicsCreated: 0, topicsAltered: 0, schemasRegistered: 0, compatibilitySet: 0, cassandraApplied: 0, clickhouseApplied: 0 };
  const prefix = config.kafka.topicPrefix;

  if (only.includes('topics')) {
    const defs = await readTopicDefinitions();
    const admin = createKafka(config, logger, '-migrate').admin();
    await admin.connect();
    try {
      for (const o of await ensureTopics(admin, defs, {
        prefix,
        replicationFactor: config.kafka.replicationFactor,
        minInsyncReplicas: config.kafka.minInsyncReplicas,
        partitionsOverride: config.kafka.partitionsOverride,
        recordRetentionMs: config.cassandra.retentionSeconds * 1000,
      })) {
        if (o.action === 'created') sum.topicsCreated += 1;
        else if (o.action !== 'unchanged') sum.topicsAltered += 1;
        if (o.action !== 'unchanged') say(`topic ${o.topic}: ${o.action}${o.detail ? ` (${o.detail})` : ''}`);
      }
    } finally {
      await admin.disconnect();
    }
    say(`topics: ${sum.topicsCreated} created, ${sum.topicsAltered} altered, ${defs.length - sum.topicsCreated - sum.topicsAltered} unchanged`);
  }

  if (only.includes('schemas')) {
    const registry = createSchemaRegistry(config);
    const topics = [...TOPIC_CODECS.keys()].sort();
    for (const topic of topics) {
      const codec = TOPIC_CODECS.get(topic)!;
      const o = await registerSubject(registry, config.schemaRegistry.url, valueSubject(prefix, topic), codec.schema);
      if (o.registered) sum.schemasRegistered += 1;
      if (o.compatibilitySet) sum.compatibilitySet += 1;
      if (o.registered || o.compatibilitySet) {
        say(`schema ${o.subject}: ${o.registered ? `registered ${codec.name} as id ${o.id}` : `id ${o.id}`}${o.compatibilitySet ? ', compatibility BACKWARD' : ''}`);
      }
    }
    say(`schemas: ${sum.schemasRegistered} registered, ${topics.length - sum.schemasRegistered} already registered`);
  }

  /** Prints what a store's migration run did; returns how many files it applied. */
  const report = (store: string, name: string, o: MigrationOutcome): number => {
    for (const f of o.applied) say(`${store} ${name}: applied ${f}`);
    for (const f of o.changed) say(`${store} ${name}: warning: ${f} changed after it was applied; not applied again`);
    say(`${store}: ${o.applied.length} applied, ${o.skipped.length} already applied`);
    return o.applied.length;
  };

  if (only.includes('cassandra')) {
    const client = createCassandraClient(config, logger, { useKeyspace: false });
    try {
      sum.cassandraApplied = report('cassandra', config.cassandra.keyspace, await migrateCassandra(client, config));
    } finally {
      await client.shutdown();
    }
  }

  if (only.includes('clickhouse')) {
    const handle = createClickHouse(config);
    try {
      sum.clickhouseApplied = report('clickhouse', config.clickhouse.database, await migrateClickHouse(handle, config));
    } finally {
      await handle.close();
    }
  }

  const changed = Object.values(sum).some((n) => n > 0);
  say(changed ? 'migrate: done' : 'migrate: nothing to do, everything is up to date');
  return sum;
}

/** `tdx migrate [--only topics,schemas,cassandra,clickhouse]` */
export const migrateCommand: CliCommand = async (args, io) => {
  const { values } = parseArgs({ args, options: { only: { type: 'string' } }, strict: true });
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : [...PARTS];
  const unknown = only.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) {
    io.stderr.write(`tdx migrate: unknown part ${unknown.join(', ')}; parts: ${PARTS.join(', ')}\n`);
    return 2;
  }
  const config = loadConfig();
  await loadPrettyLogs(config);
  const logger = createLogger(config);
  await runMigrate(config, logger, io, only);
  return 0;
};
