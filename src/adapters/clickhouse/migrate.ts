/**
 * Versioned ClickHouse DDL migrations: files `migrations/NNNN_name.sql`, applied in order,
 * each once, recorded in `<database>.schema_migrations`. Placeholders: `{{database}}`
 * (config.clickhouse.database) and `{{retention_seconds}}` (config.cassandra.retentionSeconds,
 * the one retention of the service). The same DDL runs on chDB and on a server.
 */
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.ts';
import { applyPending, readMigrations, type MigrationOutcome } from '../migrations.ts';
import { chTime, type ClickHouseHandle } from './client.ts';

export const SQL_MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export async function migrateClickHouse(handle: ClickHouseHandle, config: Config, dir: string = SQL_MIGRATIONS_DIR): Promise<MigrationOutcome> {
  const { client, database } = handle;
  const files = await readMigrations(dir, 'sql');
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  const applied = new Map<number, string>();
  const exists = await client.query({
    query: 'SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {t:String}',
    query_params: { db: database, t: 'schema_migrations' },
    format: 'JSONEachRow',
  });
  const [row] = await exists.json<{ n: number | string }>();
  if (Number(row?.n ?? 0) > 0) {
    const rs = await client.query({ query: `SELECT version, checksum FROM ${database}.schema_migrations FINAL`, format: 'JSONEachRow' });
    for (const r of await rs.json<{ version: number; checksum: string }>()) applied.set(Number(r.version), r.checksum);
  }
  return applyPending(files, applied, {
    values: { database, retention_seconds: config.cassandra.retentionSeconds },
    backslashEscapes: true,
    execute: async (statement) => {
      await client.command({ query: statement });
    },
    record: async (f) => {
      await client.insert({
        table: `${database}.schema_migrations`,
        values: [{ version: f.version, name: f.name, checksum: f.checksum, applied_at: chTime(Date.now() * 1000) }],
        format: 'JSONEachRow',
      });
    },
  });
}
