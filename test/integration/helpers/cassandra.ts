/** Cassandra isolation: a keyspace per test, dropped when the test finishes. */
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { createCassandraClient } from '../../../src/adapters/cassandra/client.ts';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { captureIo, migrateWorkerKeyspace, type Isolated } from './isolated-config.ts';
import { stackEnv, uniqueId } from './env.ts';

export interface TestKeyspace {
  readonly keyspace: string;
  /** Connected, with `keyspace` as its default keyspace. Shut down by the cleanup. */
  readonly client: cassandra.Client;
}

export function testCassandraClient(keyspace?: string): cassandra.Client {
  const env = stackEnv();
  return new cassandra.Client({
    contactPoints: env.cassandraContactPoints,
    localDataCenter: env.cassandraLocalDataCenter,
    ...(keyspace ? { keyspace } : {}),
    socketOptions: { connectTimeout: 10_000, readTimeout: 30_000 },
  });
}

/** Creates keyspace `t<random>` (SimpleStrategy, RF 1) and a client bound to it. */
export async function createTestKeyspace(): Promise<TestKeyspace> {
  const keyspace = uniqueId('t_');
  const admin = testCassandraClient();
  await admin.connect();
  try {
    await admin.execute(
      `CREATE KEYSPACE ${keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
    );
  } catch (err) {
    await admin.shutdown();
    throw err;
  }
  const client = testCassandraClient(keyspace);
  onTestFinished(async () => {
    await client.shutdown().catch(() => undefined);
    try {
      await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    } finally {
      await admin.shutdown();
    }
  });
  await client.connect();
  return { keyspace, client };
}

/**
 * A store test's Cassandra: `iso`'s keyspace migrated (the worker's shared keyspace once per
 * worker) and a client connected before the file's tests, shut down and `iso` cleaned up after
 * them. Answers the client (once connected).
 */
export function migratedCassandra(iso: Isolated): () => cassandra.Client {
  const logger = createLogger({ ...iso.config, logLevel: 'silent' });
  let client: cassandra.Client | undefined;
  beforeAll(async () => {
    const migrate = () => runMigrate(iso.config, logger, captureIo().io, ['cassandra']);
    if (!(await migrateWorkerKeyspace(iso.config, migrate))) await migrate();
    client = createCassandraClient(iso.config, logger);
    await client.connect();
  }, 120_000);
  afterAll(async () => {
    await client?.shutdown();
    await iso.cleanup();
  });
  return () => {
    if (!client) throw new Error('Cassandra is not connected yet (use the client inside a test)');
    return client;
  };
}
