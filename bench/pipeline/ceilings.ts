/**
 * What the stores and the broker can do on this machine with the same clients and no pipeline
 * work, measured in the same run as the pipeline:
 *
 * - Kafka: the same number of messages, of the pipeline's mean size, produced through the
 *   service's own producer (BatchingProducer: idempotent, acks=all, its linger) and consumed by
 *   a kafkajs consumer that does nothing with them; from the first send to the last message
 *   consumed. Keys as the scenario had them (one interchange = one trace = one partition).
 * - Cassandra: the very write requests the pipeline issued (statements recorded with their
 *   parameters and options, batches as batches), executed again with the same driver, 64 at a time. They are the pipeline's
 *   idempotent upserts, so running them again rewrites the same rows.
 * - ClickHouse: the rows the scenario left in each table of the organization, inserted again
 *   into copies of those tables in batches of the materializer's batch size.
 */
import type { Kafka } from 'kafkajs';
import type { Config } from '../../src/config.ts';
import type { CassandraClient } from '../../src/adapters/cassandra/client.ts';
import { BatchingProducer } from '../../src/adapters/kafka/client.ts';
import { createTopicsReady } from '../../src/adapters/kafka/topic-definitions.ts';
import type { ClickHouseHandle } from '../../src/adapters/clickhouse/client.ts';
import type { RecordedWrite } from './counters.ts';

export interface Ceiling {
  readonly what: string;
  readonly units: number;
  readonly seconds: number;
}

export async function kafkaCeiling(kafka: Kafka, config: Config, messages: number, bytes: number, keys: number): Promise<Ceiling> {
  const topic = `${config.kafka.topicPrefix}bench.ceiling.${Date.now()}`;
  const admin = kafka.admin();
  await admin.connect();
  await createTopicsReady(admin, [{ topic, numPartitions: 6, replicationFactor: 1 }]);
  const producer = BatchingProducer.create(kafka, config);
  await producer.connect();
  const consumer = kafka.consumer({ groupId: `${topic}.group`, maxWaitTimeInMs: 50 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let consumed = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const joined = new Promise<void>((r) => consumer.on(consumer.events.GROUP_JOIN, () => r()));
  await consumer.run({
    eachBatchAutoResolve: true,
    eachBatch: ({ batch }) => {
      consumed += batch.messages.length;
      if (consumed >= messages) done();
      return Promise.resolve();
    },
  });
  await joined;
  const value = Buffer.alloc(Math.max(1, Math.round(bytes)), 1);
  const t0 = performance.now();
  // the pipeline's nodes send as they finish work: many small concurrent sends, gathered by the linger
  const sends: Promise<void>[] = [];
  for (let i = 0; i < messages; i++) sends.push(producer.send([{ topic, key: `k${i % keys}`, value }]));
  await Promise.all(sends);
  await all;
  const seconds = (performance.now() - t0) / 1000;
  await consumer.disconnect();
  await producer.close();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
  return { what: `Kafka: ${messages} messages of ${Math.round(bytes)} B produced and consumed`, units: messages, seconds };
}

export async function cassandraCeiling(client: CassandraClient, writes: readonly RecordedWrite[], concurrency = 64): Promise<Ceiling> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < writes.length) {
        const w = writes[next++]!;
        if (w.batch) await client.batch(w.batch as { query: string; params?: unknown[] }[], w.options as object);
        else await client.execute(w.query, w.params as unknown[], w.options as object);
      }
    }),
  );
  const statements = writes.reduce((n, w) => n + (w.batch ? w.batch.length : 1), 0);
  const batches = writes.filter((w) => w.batch).length;
  return { what: `Cassandra: the pipeline's ${statements} write statements again (${writes.length} requests, ${batches} of them batches, as the pipeline sent them), ${concurrency} at a time`, units: statements, seconds: (performance.now() - t0) / 1000 };
}

export async function clickhouseCeiling(ch: ClickHouseHandle, org: string, batchRows: number): Promise<Ceiling> {
  const db = ch.database;
  const tables = await (
    await ch.client.query({
      query: `SELECT t.name AS name FROM system.tables t WHERE t.database = {db:String} AND t.engine NOT IN ('MaterializedView', 'View') AND t.name NOT LIKE 'ceiling_%'
              AND t.name IN (SELECT table FROM system.columns WHERE database = {db:String} AND name = 'org_id')`,
      query_params: { db },
      format: 'JSONEachRow',
    })
  ).json<{ name: string }>();
  const data: { table: string; rows: Record<string, unknown>[] }[] = [];
  for (const { name } of tables) {
    const rows = await (await ch.client.query({ query: `SELECT * FROM ${db}.${name} WHERE org_id = {org:String}`, query_params: { org }, format: 'JSONEachRow' })).json<Record<string, unknown>>();
    if (rows.length === 0) continue;
    await ch.client.command({ query: `CREATE TABLE IF NOT EXISTS ${db}.ceiling_${name} AS ${db}.${name}` });
    data.push({ table: `${db}.ceiling_${name}`, rows });
  }
  const total = data.reduce((n, d) => n + d.rows.length, 0);
  const t0 = performance.now();
  for (const d of data) {
    for (let i = 0; i < d.rows.length; i += batchRows) await ch.client.insert({ table: d.table, values: d.rows.slice(i, i + batchRows), format: 'JSONEachRow' });
  }
  const seconds = (performance.now() - t0) / 1000;
  for (const d of data) await ch.client.command({ query: `DROP TABLE IF EXISTS ${d.table}` });
  return { what: `ClickHouse: ${total} rows (${data.map((d) => `${d.table.split('.ceiling_')[1]} ${d.rows.length}`).join(', ')}) inserted again, ${batchRows} per insert`, units: total, seconds };
}
