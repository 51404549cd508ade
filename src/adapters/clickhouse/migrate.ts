/**
 * Versioned ClickHouse DDL migrations: files `migrations/NNNN_name.sql`, applied in order,
 * each once, recorded in `<database>.schema_migrations`. Placeholders: `{{database}}`
 * (config.clickhouse.database) and `{{retention_seconds}}` (config.cassandra.retentionSeconds,
 * the one retention of the service). The same DDL runs on chDB and on a server.
 */
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.ts';
import { TdxError } from '../../errors.ts';
import { readMigrations, splitStatements, substitute, type MigrationOutcome } from '../cassandra/migrate.ts';
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
  const values = { database, retention_seconds: config.cassandra.retentionSeconds };
  const outcome: MigrationOutcome = { applied: [], skipped: [], changed: [] };
  for (const f of files) {
    const had = applied.get(f.version);
    if (had !== undefined) {
      outcome.skipped.push(f.file);
      if (had !== f.checksum) outcome.changed.push(f.file);
      continue;
    }
    const statements = splitStatements(substitute(f.text, values, f.file), { backslashEscapes: true });
    for (const [i, stmt] of statements.entries()) {
      try {
        await client.command({ query: stmt });
      } catch (err) {
        throw new TdxError('migration_failed', `${f.file}: statement ${i + 1} failed: ${(err as Error).message}`, {
          details: { file: f.file, statement: i + 1 },
          cause: err,
        });
      }
    }
    await client.insert({
      table: `${database}.schema_migrations`,
      values: [{ version: f.version, name: f.name, checksum: f.checksum, applied_at: chTime(Date.now() * 1000) }],
      format: 'JSONEachRow',
    });
    outcome.applied.push(f.file);
  }
  return outcome;
}
