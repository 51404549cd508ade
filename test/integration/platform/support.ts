/**
 * Shared set-up of the admin and platform integration tests: an isolated keyspace migrated
 * with the project's own migrations, the `tdx` command run as a child process against it,
 * and the Cassandra stores over a session bound to it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createCassandraClient, type CassandraClient } from '../../../src/adapters/cassandra/client.ts';
import { createLogger } from '../../../src/logger.ts';
import { createOrganization } from '../../../src/admin/admin-service.ts';
import { CassandraOrganizationStore } from '../../../src/adapters/cassandra/organization-store.ts';
import { captureIo, isolatedConfig, migrateWorkerKeyspace, type IsolationOptions, type Isolated } from '../helpers/isolated-config.ts';

export const root = fileURLToPath(new URL('../../../', import.meta.url));

export interface Cli {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Env extends Isolated {
  /** Runs `tdx` with the isolated environment, `extra` variables on top. */
  tdx(args: string[], extra?: Record<string, string>): Promise<Cli>;
  client: CassandraClient;
  close(): Promise<void>;
}

/**
 * A fresh keyspace with every Cassandra migration applied, and the command line bound to it; with
 * `sharedKeyspace`, the test worker's keyspace, migrated once per worker (see `isolatedConfig`).
 */
export async function cassandraEnv(extra: Record<string, string> = {}, opts: IsolationOptions = {}): Promise<Env> {
  const iso = isolatedConfig(extra, opts);
  const logger = createLogger({ ...iso.config, logLevel: 'silent' });
  const migrate = () => runMigrate(iso.config, logger, captureIo().io, ['cassandra']);
  if (!(await migrateWorkerKeyspace(iso.config, migrate))) await migrate();
  const client = createCassandraClient(iso.config, logger);
  await client.connect();
  const tdx = (args: string[], extraEnv: Record<string, string> = {}): Promise<Cli> =>
    new Promise((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...iso.env, ...extraEnv };
      delete env['NODE_OPTIONS'];
      const child = spawn(process.execPath, ['bin/tdx.mjs', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('error', reject);
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });
  return {
    ...iso,
    tdx,
    client,
    close: async () => {
      await client.shutdown();
      await iso.cleanup();
    },
  };
}

/**
 * Creates an organization as `tdx admin org create` does, in this process, without keys: for
 * tests that only need one to apply a configuration to (a command process costs a second or more
 * of start-up; the command itself is tested in admin/config-apply.test.ts).
 */
export async function createOrg(env: Env, name: string): Promise<string> {
  return (await createOrganization(new CassandraOrganizationStore(env.client), name)).id;
}

/** Creates an organization and one key of each kind through the command line. */
export async function orgWithKeys(env: Env, name: string): Promise<{ org: string; standard: string; readOnly: string; sandbox: string }> {
  const created = await env.tdx(['admin', 'org', 'create', name]);
  if (created.code !== 0) throw new Error(`org create failed: ${created.stderr}`);
  const org = created.stdout.trim();
  const key = async (kind: string): Promise<string> => {
    const r = await env.tdx(['admin', 'key', 'create', '--org', org, '--kind', kind]);
    if (r.code !== 0) throw new Error(`key create failed: ${r.stderr}`);
    return r.stdout.trim();
  };
  const [standard, readOnly, sandbox] = await Promise.all([key('standard'), key('read-only'), key('sandbox')]);
  return { org, standard, readOnly, sandbox };
}

/**
 * Every row of every table of the keyspace (but `skip`), with the write time of each regular
 * cell, as sorted text per table: equal dumps mean nothing was written in between, not even
 * the same values again.
 */
export async function dumpKeyspace(env: Env, skip: readonly string[] = ['schema_migrations', 'rate_limit_hits']): Promise<Record<string, string[]>> {
  const ks = env.config.cassandra.keyspace;
  const cols = await env.client.execute('SELECT table_name, column_name, kind, type FROM system_schema.columns WHERE keyspace_name = ?', [ks], { prepare: true });
  const tables = new Map<string, { name: string; timed: boolean }[]>();
  for (const r of cols.rows) {
    const table = String(r.get('table_name'));
    if (skip.includes(table)) continue;
    const type = String(r.get('type'));
    // write times exist for regular cells other than counters and multi-cell collections
    const timed = r.get('kind') === 'regular' && type !== 'counter' && !/^(list|set|map)</.test(type);
    tables.set(table, [...(tables.get(table) ?? []), { name: String(r.get('column_name')), timed }]);
  }
  const out: Record<string, string[]> = {};
  for (const [table, columns] of [...tables].sort(([x], [y]) => x.localeCompare(y))) {
    const select = [...columns.map((c) => `"${c.name}"`), ...columns.filter((c) => c.timed).map((c) => `WRITETIME("${c.name}")`)];
    const rows = await env.client.execute(`SELECT ${select.join(', ')} FROM "${table}"`, [], { prepare: false, fetchSize: 100_000 });
    out[table] = rows.rows.map((r) => JSON.stringify(r.values())).sort(); // write times are Longs: {low, high}
  }
  return out;
}
