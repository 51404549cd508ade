import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CQL_MIGRATIONS_DIR } from '../../../../src/adapters/cassandra/migrate.ts';
import { orderMigrations, readMigrations, splitStatements, substitute } from '../../../../src/adapters/migrations.ts';
import { SQL_MIGRATIONS_DIR } from '../../../../src/adapters/clickhouse/migrate.ts';

describe('splitStatements', () => {
  it('splits on semicolons and drops comments and empty statements', () => {
    expect(splitStatements('-- head\nCREATE TABLE a (x int);\n\n;/* block; */ CREATE TABLE b (y int) // tail;\n;')).toEqual([
      'CREATE TABLE a (x int)',
      'CREATE TABLE b (y int)',
    ]);
  });

  it('keeps semicolons inside string literals, quoted identifiers and $$ blocks', () => {
    expect(splitStatements(`INSERT INTO t (a) VALUES ('x;''y'); SELECT "we;ird" FROM t; CREATE FUNCTION f() RETURNS text LANGUAGE java AS $$ return "a;b"; $$;`)).toEqual([
      "INSERT INTO t (a) VALUES ('x;''y')",
      'SELECT "we;ird" FROM t',
      'CREATE FUNCTION f() RETURNS text LANGUAGE java AS $$ return "a;b"; $$',
    ]);
  });

  it('honours backslash escapes only when asked (ClickHouse)', () => {
    expect(splitStatements(String.raw`SELECT 'a\';b'; SELECT 2`, { backslashEscapes: true })).toEqual([String.raw`SELECT 'a\';b'`, 'SELECT 2']);
    expect(splitStatements(String.raw`SELECT 'a\'; SELECT 2`)).toEqual([String.raw`SELECT 'a\'`, 'SELECT 2']);
  });

  it.each([["SELECT 'open"], ['SELECT $$ open'], ['/* open']])('rejects an unterminated construct in %j', (script) => {
    expect(() => splitStatements(script)).toThrowError(expect.objectContaining({ code: 'migration_failed' }) as Error);
  });
});

describe('substitute', () => {
  it('replaces known placeholders and names the file on an unknown one', () => {
    expect(substitute('ttl = {{retention_seconds}} in {{ keyspace }}', { retention_seconds: 60, keyspace: 'k' }, 'f.cql')).toBe('ttl = 60 in k');
    expect(() => substitute('{{nope}}', {}, '0009_x.cql')).toThrowError(/0009_x\.cql: unknown placeholder \{\{nope\}\}/);
  });
});

describe('migration files', () => {
  const file = (version: number, name: string) => ({ version, name, file: `${version}_${name}.cql`, text: '', checksum: '' });

  it('orders by version number, not by text', () => {
    expect(orderMigrations([file(100, 'c'), file(2, 'b'), file(10, 'a')]).map((f) => f.version)).toEqual([2, 10, 100]);
  });

  it('rejects two files with one version', () => {
    expect(() => orderMigrations([file(3, 'a'), file(3, 'b')])).toThrowError(/Two migrations with version 3/);
  });

  it('rejects a badly named file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tdx-mig-'));
    writeFileSync(path.join(dir, 'create-things.cql'), 'SELECT 1;');
    await expect(readMigrations(dir, 'cql')).rejects.toThrowError(/create-things\.cql: migration files are named NNNN_lowercase_name\.cql/);
  });

  it('ships CQL migrations starting with schema_migrations, every statement idempotent', async () => {
    const files = await readMigrations(CQL_MIGRATIONS_DIR, 'cql');
    expect(files[0]).toMatchObject({ version: 1, name: 'schema_migrations' });
    for (const f of files) {
      for (const stmt of splitStatements(substitute(f.text, { retention_seconds: 1, keyspace: 'k' }, f.file))) {
        expect(stmt, `${f.file}: ${stmt.slice(0, 60)}`).toMatch(/^(CREATE (TABLE|TYPE|INDEX|CUSTOM INDEX|MATERIALIZED VIEW) IF NOT EXISTS|DROP (TABLE|INDEX) IF EXISTS|ALTER TABLE)/i);
      }
    }
  });

  it('ships ClickHouse migrations with a 45-day-capable TTL on every data table', async () => {
    const files = await readMigrations(SQL_MIGRATIONS_DIR, 'sql');
    expect(files[0]).toMatchObject({ version: 1, name: 'schema_migrations' });
    // bookkeeping tables hold one row per name, never contract data, and keep no TTL
    const bookkeeping = new Set(['schema_migrations', 'feed_watermark']);
    // every file that creates a data table gives it the TTL (files that only alter tables add none)
    const creating = files.filter((x) => !bookkeeping.has(x.name) && /CREATE TABLE/i.test(x.text));
    expect(creating.length).toBeGreaterThanOrEqual(5);
    for (const f of creating) {
      expect(f.text, f.file).toMatch(/TTL toDateTime\(created_at\) \+ toIntervalSecond\(\{\{retention_seconds\}\}\)/);
      expect(f.text, f.file).toMatch(/DateTime64\(6, 'UTC'\)/);
    }
  });
});
