/**
 * Isolated application configuration for integration tests that run the service's own code
 * (migrate, roles, API processes): a topic and group prefix, a
 * Cassandra keyspace and a ClickHouse database of their own (chDB data in a fresh temporary
 * folder), against the services named by the environment (defaults: the local stack).
 * `cleanup` drops what a test created (but a keyspace of the test run: see `runKeyspace`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

/** The test run, named by global-setup.ts (TDX_TEST_RUN) for every worker; unset outside a vitest run. */
const RUN = process.env['TDX_TEST_RUN'];

/**
 * The operator key of this test process's isolated configurations (docs/secrets.md): the
 * environment's `TDX_SECRETS_KEYS` when set, else one key per test run (derived from its name,
 * so the files that share a worker's keyspace read each other's stored secrets), else one
 * random key per test process.
 */
const TEST_SECRET_KEYS =
  process.env['TDX_SECRETS_KEYS'] ?? `it1:${RUN ? createHash('sha256').update(`tdx-test-run:${RUN}`).digest('base64') : randomBytes(32).toString('base64')}`;

export interface IsolationOptions {
  /**
   * Use the Cassandra keyspace of this test worker (see `workerKeyspace`) instead of a keyspace
   * of its own: the files a worker runs one after another then migrate it once, not once each,
   * and isolate themselves by organization (which the service guarantees). Not for tests that
   * change what every organization sees (secrets rotation, whole-keyspace counts). Without a
   * test run (TDX_TEST_RUN) the keyspace is the test's own, as without this option.
   */
  readonly sharedKeyspace?: boolean;
}

/** The keyspace shared by the files of this test worker (VITEST_POOL_ID) in this run; undefined outside a run. */
export function workerKeyspace(): string | undefined {
  return RUN ? `itw_${RUN}_${process.env['VITEST_POOL_ID'] ?? '0'}` : undefined;
}

/**
 * The test run a keyspace was made by, or undefined: a run's keyspaces are its workers' shared
 * ones (`itw_<run>_<worker>`) and its files' own (`it_<run>_<id>`). The files leave them;
 * global-setup drops them after the run (or, when the stack is discarded after the run, a later
 * run on the same stack does).
 */
export const runKeyspace = (keyspace: string): string | undefined => /^itw?_(r[0-9a-f]{12})_/.exec(keyspace)?.[1];

/** The file that says a worker keyspace is migrated (in this run, by this code). */
const migratedMarker = (keyspace: string): string => path.join(tmpdir(), `tdx-it-${keyspace}.migrated`);

/** Migrations of a worker keyspace under way in this process. */
const migrating = new Map<string, Promise<void>>();

/**
 * Applies the Cassandra migrations to `config`'s keyspace once per test worker when it is the
 * worker's shared keyspace (the files of a worker run one after another, so no two migrate it at
 * once); `migrate` runs them. Returns false for a keyspace of the test's own (nothing done).
 */
export async function migrateWorkerKeyspace(config: Config, migrate: () => Promise<unknown>): Promise<boolean> {
  const ks = config.cassandra.keyspace;
  if (ks !== workerKeyspace()) return false;
  if (existsSync(migratedMarker(ks))) return true;
  // pipelines a file starts together wait for one migration rather than racing their DDL
  let running = migrating.get(ks);
  if (!running) {
    running = migrate().then(() => writeFileSync(migratedMarker(ks), `${ks}\n`));
    migrating.set(ks, running);
    void running.catch(() => migrating.delete(ks));
  }
  await running;
  return true;
}

/** Removes the markers of worker keyspaces dropped or left (global-setup; other keyspaces have none). */
export function forgetWorkerKeyspaces(keyspaces: readonly string[]): void {
  for (const ks of keyspaces) rmSync(migratedMarker(ks), { force: true });
}

export function isolatedConfig(extra: Record<string, string> = {}, opts: IsolationOptions = {}): Isolated {
  const id = uniqueId('i');
  const shared = opts.sharedKeyspace ? workerKeyspace() : undefined;
  // the migrations give the tables a default TTL of the retention: the worker's keyspace keeps the default one
  if (shared && extra['TDX_RETENTION_SECONDS'] !== undefined) throw new Error('TDX_RETENTION_SECONDS needs a keyspace of its own (not sharedKeyspace)');
  const dataDir = mkdtempSync(path.join(tmpdir(), `tdx-it-${id}-`));
  const env: Record<string, string> = {
    TDX_LOG_LEVEL: process.env['TDX_LOG_LEVEL'] ?? 'warn',
    TDX_TOPIC_PREFIX: `it${id}.`,
    TDX_GROUP_PREFIX: `it${id}.`,
    TDX_TOPIC_PARTITIONS: '1',
    CASSANDRA_KEYSPACE: shared ?? (RUN ? `it_${RUN}_${id}` : `it_${id}`),
    CLICKHOUSE_DATABASE: `it_${id}`,
    TDX_DATA_DIR: dataDir,
    CLICKHOUSE_CHDB_PATH: path.join(dataDir, 'chdb'),
    KAFKA_SESSION_TIMEOUT_MS: '10000',
    // a stopping consumer waits for its fetch in hand: 1 s rather than the default 5 s per stop
    TDX_CONSUMER_MAX_WAIT_MS: '1000',
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
      // a keyspace of the run outlives the test (global-setup's teardown drops it): a keyspace
      // dropped while the other workers write made Cassandra flush everything they had written
      // (docs/stack.md)
      if (runKeyspace(config.cassandra.keyspace) === undefined) {
        const cql = createCassandraClient(config, logger, { useKeyspace: false });
        try {
          await cql.execute(`DROP KEYSPACE IF EXISTS ${config.cassandra.keyspace}`);
        } catch {
          /* best effort */
        } finally {
          await cql.shutdown();
        }
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
