/**
 * ClickHouse isolation: a database per test, dropped when the test finishes.
 *
 * Without CLICKHOUSE_URL, ClickHouse is chDB embedded in the test process. chDB opens one data
 * folder per process (opening a second one fails with "only one active data directory per
 * process"), so every test process uses one folder, `testChdbPath()`, removed at exit, and
 * exports it as CLICKHOUSE_CHDB_PATH so that a `loadConfig()` made afterwards in the same
 * process shares it. The chDB connection ignores the client's `database` option: always name
 * tables `<database>.<table>`.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { onTestFinished } from 'vitest';
import { stackEnv, uniqueId } from './env.ts';

let shared: ClickHouseClient | undefined;

/** The chDB data folder of this test process. */
export function testChdbPath(): string {
  return path.join(tmpdir(), `tdx-chdb-test-${process.pid}`);
}

/** The ClickHouse client of this test process (HTTP when CLICKHOUSE_URL is set, else chDB). */
export async function testClickHouse(): Promise<ClickHouseClient> {
  if (shared) return shared;
  const env = stackEnv();
  if (env.clickhouseUrl) {
    shared = createClient({ url: env.clickhouseUrl, username: env.clickhouseUser, password: env.clickhousePassword });
  } else {
    const { createChdbConnection } = await import('chdb/connection');
    const dir = testChdbPath();
    process.env['CLICKHOUSE_CHDB_PATH'] = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    shared = createClient({ connection: createChdbConnection({ path: dir }) } as Parameters<typeof createClient>[0]);
  }
  return shared;
}

export interface TestDatabase {
  readonly database: string;
  readonly client: ClickHouseClient;
}

/** Creates database `t<random>`; dropped when the test finishes. */
export async function createTestClickHouseDatabase(): Promise<TestDatabase> {
  const client = await testClickHouse();
  const database = uniqueId('t_');
  await client.command({ query: `CREATE DATABASE ${database}` });
  onTestFinished(async () => {
    await client.command({ query: `DROP DATABASE IF EXISTS ${database} SYNC` });
  });
  return { database, client };
}
