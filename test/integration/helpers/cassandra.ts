/** Cassandra isolation: a keyspace per test, dropped when the test finishes. */
import cassandra from 'cassandra-driver';
import { onTestFinished } from 'vitest';
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
