/**
 * Opens the Cassandra session the administration commands use (keyspace from the
 * configuration; `tdx migrate` creates the tables).
 */
import cassandra from 'cassandra-driver';
import type { Config } from '../config.ts';
import { TdxError } from '../errors.ts';

export async function openAdminSession(config: Config): Promise<cassandra.Client> {
  const client = new cassandra.Client({
    contactPoints: [...config.cassandra.contactPoints],
    localDataCenter: config.cassandra.localDataCenter,
    keyspace: config.cassandra.keyspace,
  });
  try {
    await client.connect();
  } catch (err) {
    await client.shutdown().catch(() => undefined);
    throw new TdxError('store_unavailable', `Cannot reach Cassandra at ${config.cassandra.contactPoints.join(', ')} (keyspace ${config.cassandra.keyspace}): ${(err as Error).message}. Is the stack up (npm run stack status) and migrated (npx tdx migrate)?`, { cause: err });
  }
  return client;
}
