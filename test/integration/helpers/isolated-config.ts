/**
 * Isolated application configuration for integration tests that run the service's own code
 * (migrate, roles, API processes): a topic and group prefix, a
 * Cassandra keyspace and a ClickHouse database of their own (chDB data in a fresh temporary
 * folder), against the services named by the environment (defaults: the local stack).
 * `cleanup` drops what a test created.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../../src/config.ts';
import { createKafka } from '../../../src/adapters/kafka/client.ts';
import { createCassandraClient } from '../../../src/adapters/cassandra/client.ts';
import { createLogger } from '../../../src/logger.ts';
import { uniqueId } from './env.ts';

export interface Isolated {
  readonly config: Config;
  /** Environment variables that reproduce `config` in a child process. */
  readonly env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * The operator key of this test process's isolated configurations (docs/secrets.md): the
 * environment's `TDX_SECRETS_KEYS` when set, else one random key per test process.
 */
const TEST_SECRET_KEYS = process.env['TDX_SECRETS_KEYS'] ?? `it1:${randomBytes(32).toString('base64')}`;

export function isolatedConfig(extra: Record<string, string> = {}): Isolated {
  const id = uniqueId('i');
  const dataDir = mkdtempSync(path.join(tmpdir(), `tdx-it-${id}-`));
  const env: Record<string, string> = {
    TDX_LOG_LEVEL: process.env['TDX_LOG_LEVEL'] ?? 'warn',
    TDX_TOPIC_PREFIX: `it${id}.`,
    TDX_GROUP_PREFIX: `it${id}.`,
    TDX_TOPIC_PARTITIONS: '1',
    CASSANDRA_KEYSPACE: `it_${id}`,
    CLICKHOUSE_DATABASE: `it_${id}`,
    TDX_DATA_DIR: dataDir,
    CLICKHOUSE_CHDB_PATH: path.join(dataDir, 'chdb'),
    KAFKA_SESSION_TIMEOUT_MS: '10000',
    TDX_SECRETS_KEYS: TEST_SECRET_KEYS,
    ...extra,
  };
  for (const k of ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'CASSANDRA_CONTACT_POINTS', 'CASSANDRA_LOCAL_DC', 'CLICKHOUSE_URL', 'CLICKHOUSE_USER', 'CLICKHOUSE_PASSWORD']) {
    const v = process.env[k];
    if (v !== undefined && env[k] === undefined) env[k] = v;
  }
  const config = loadConfig(env);
  return {
    config,
    env,
    cleanup: async () => {
      const logger = createLogger({ ...config, logLevel: 'silent' });
      const admin = createKafka(config, logger, '-it-cleanup').admin();
      try {
        await admin.connect();
        const mine = (await admin.listTopics()).filter((t) => t.startsWith(config.kafka.topicPrefix));
        if (mine.length > 0) await admin.deleteTopics({ topics: mine });
      } catch {
        /* best effort */
      } finally {
        await admin.disconnect();
      }
      const cql = createCassandraClient(config, logger, { useKeyspace: false });
      try {
        await cql.execute(`DROP KEYSPACE IF EXISTS ${config.cassandra.keyspace}`);
      } catch {
        /* best effort */
      } finally {
        await cql.shutdown();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `fn` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** An io that collects what a command prints. */
export function captureIo(): { io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }; out: () => string } {
  let text = '';
  const sink = { write: (chunk: string | Uint8Array) => ((text += String(chunk)), true) } as unknown as NodeJS.WritableStream;
  return { io: { stdout: sink, stderr: sink }, out: () => text };
}
