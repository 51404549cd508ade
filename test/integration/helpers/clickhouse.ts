/**
 * ClickHouse isolation: a database per test, dropped when the test finishes.
 *
 * Without CLICKHOUSE_URL, ClickHouse is chDB embedded in the test process. chDB opens one data
 * folder per process at a time (opening a second one fails with "only one active data directory
 * per process"), and the files of a test worker share its process, so the client is closed and
 * its folder, `testChdbPath()`, removed when the test that opened it finishes: the service's own
 * engines in later tests open folders of their own. The chDB connection ignores the client's
 * `database` option: always name tables `<database>.<table>`.
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

/**
 * The ClickHouse client of the running test (HTTP when CLICKHOUSE_URL is set, else chDB), closed
 * when the test finishes. Call it inside a test.
 */
export async function testClickHouse(): Promise<ClickHouseClient> {
  if (shared) return shared;
  const env = stackEnv();
  let client: ClickHouseClient;
  let dir: string | undefined;
  if (env.clickhouseUrl) {
    client = createClient({ url: env.clickhouseUrl, username: env.clickhouseUser, password: env.clickhousePassword });
  } else {
    const { createChdbConnection } = await import('chdb/connection');
    dir = testChdbPath();
    client = createClient({ connection: createChdbConnection({ path: dir }) } as Parameters<typeof createClient>[0]);
  }
  shared = client;
  // registered before the callers' own cleanups, so it runs after them (they may still use it)
  onTestFinished(async () => {
    shared = undefined;
    await client.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return client;
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
