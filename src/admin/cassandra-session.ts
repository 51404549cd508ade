/**
 * Opens the Cassandra session the administration commands use (keyspace from the
 * configuration; `tdx migrate` creates the tables).
 */
import type { Config } from '../config.ts';
import { TdxError } from '../errors.ts';
import { createLogger, loadPrettyLogs } from '../logger.ts';
import { createCassandraClient, type CassandraClient } from '../adapters/cassandra/client.ts';

export async function openAdminSession(config: Config): Promise<CassandraClient> {
  // The commands write their answer (JSON, YAML, ids) on stdout, where a script reads it; the
  // driver's warnings (a slow host, a reconnect) go to stderr, so they never corrupt it.
  await loadPrettyLogs(config, process.stderr);
  const client = createCassandraClient(config, createLogger({ ...config, logLevel: 'warn' }, process.stderr));
  try {
    await client.connect();
  } catch (err) {
    await client.shutdown().catch(() => undefined);
    throw new TdxError('store_unavailable', `Cannot reach Cassandra at ${config.cassandra.contactPoints.join(', ')} (keyspace ${config.cassandra.keyspace}): ${(err as Error).message}. Is the stack up (npm run stack status) and migrated (npx tdx migrate)?`, { cause: err });
  }
  return client;
}
