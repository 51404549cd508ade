/**
 * Two API processes share one per-minute budget per key: the request past the budget answers
 * 429 with Retry-After whichever process receives it (each process's tally kept in Cassandra, in
 * rows that expire). Each process embeds its own chDB folder (an embedded engine cannot be opened twice);
 * what they share is Cassandra.
 *
 * The processes run with a budget of BUDGET (TDX_RATE_LIMIT_PER_MINUTE) rather than the default
 * 240 (asserted by test/unit/config.test.ts): the counting is the same, a round spends a quarter
 * of the requests. A round runs within one minute window, run again with a new key in the rare
 * case the window turned under it (rather than waiting beforehand for a fresh window).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { createApiKey } from '../../../src/admin/admin-service.ts';
import { CassandraOrganizationStore } from '../../../src/adapters/cassandra/organization-store.ts';
import { captureIo } from '../helpers/isolated-config.ts';
import { cassandraEnv, createOrg, root, type Env } from './support.ts';

let env: Env;
const children: ChildProcess[] = [];
/** The per-minute budget of a key (TDX_RATE_LIMIT_PER_MINUTE of both processes). */
const BUDGET = 60;

/** Starts `tdx start --role api` on a free port; resolves to its base URL. */
function startApi(): Promise<string> {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    ...env.env,
    TDX_API_PORT: '0',
    TDX_LOG_LEVEL: 'info',
    TDX_RATE_LIMIT_PER_MINUTE: String(BUDGET),
    CLICKHOUSE_CHDB_PATH: path.join(env.config.dataDir, `chdb-api-${children.length}`),
  };
  delete e['NODE_OPTIONS'];
  const child = spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', 'api'], { cwd: root, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the API did not listen within 90 s: ${out.slice(-800)}`)), 90_000);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /API listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the API exited with ${code}: ${out.slice(-800)}`));
    });
  });
}

beforeAll(async () => {
  env = await cassandraEnv({}, { sharedKeyspace: true });
  // the keyspace is the worker's, migrated by cassandraEnv; the API processes open chDB folders
  // of their own, so only the topics and their schemas are left (and a ClickHouse server's
  // database when the stack has one)
  const parts = ['topics', 'schemas', ...(env.config.clickhouse.url ? ['clickhouse'] : [])];
  await runMigrate(env.config, createLogger({ ...env.config, logLevel: 'silent' }), captureIo().io, parts);
});

/** An organization and a key of each kind, written through the admin service (the command line is tested in admin/). */
async function orgWithKeys(name: string): Promise<{ org: string; sandbox: string; newKey(kind: 'standard' | 'read-only'): Promise<{ key: string; id: string }> }> {
  const orgs = new CassandraOrganizationStore(env.client);
  const org = await createOrg(env, name);
  const newKey = async (kind: 'standard' | 'read-only' | 'sandbox') => {
    const { key, record } = await createApiKey(orgs, org, kind, null);
    return { key, id: record.id };
  };
  return { org, sandbox: (await newKey('sandbox')).key, newKey };
}

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await env?.close();
});

const windowNow = (): number => Date.now() - (Date.now() % 60_000);

/**
 * Runs `attempt` (which spends the budget of a key of its own) inside one minute window: when
 * the window turned while it ran, the counts it saw straddle two windows, so it runs again with a
 * new key, now at the start of a window (an attempt takes seconds, a window a minute). Returns
 * what the attempt that stayed in one window gave, and that window's start.
 */
async function inOneWindow<T>(attempt: () => Promise<T>): Promise<{ value: T; windowStart: number }> {
  for (let i = 0; i < 2; i++) {
    const windowStart = windowNow();
    const value = await attempt();
    if (windowNow() === windowStart) return { value, windowStart };
  }
  throw new Error('two attempts in a row crossed a minute window');
}

describe('rate limit across API processes', () => {
  let org: Awaited<ReturnType<typeof orgWithKeys>>;
  let one = '';
  let two = '';
  const call = async (url: string, p: string, key: string) => {
    const res = await fetch(url + p, { headers: { authorization: `Key ${key}` } });
    await res.arrayBuffer();
    return res;
  };

  beforeAll(async () => {
    org = await orgWithKeys('Rate');
    // the demo configuration, so the lists the rounds read are not empty; applied while the processes start
    const [applied, a, b] = await Promise.all([env.tdx(['config', 'apply', 'deploy/demo/config.yaml', '--org', org.org]), startApi(), startApi()]);
    if (applied.code !== 0) throw new Error(applied.stderr);
    [one, two] = [a, b];
    expect(one).not.toBe(two);
    // warm both processes (prepared statements) with the sandbox key, whose budget is not under test
    await Promise.all([call(one, '/platform/openapi.json', org.sandbox), call(two, '/platform/openapi.json', org.sandbox)]);
  });

  it('answers the request past the budget of a minute with 429 and Retry-After, whichever process gets it', async () => {
    for (const [first, second] of [
      [one, two],
      [two, one],
    ] as const) {
      // a key of its own per round (a standard one, then a read-only one), so each round spends
      // a fresh budget; the request past it goes to `first`
      const kind = first === one ? 'standard' : 'read-only';
      const paths = ['/platform/sources', '/platform/flows', '/platform/partners', '/platform/openapi.json'];
      const { value: round } = await inOneWindow(async () => {
        const { key } = await org.newKey(kind);
        const statuses: number[] = [];
        for (let i = 0; i < BUDGET; i++) statuses.push((await call(i % 2 === 0 ? one : two, paths[i % paths.length]!, key)).status);
        const over: { url: string; status: number; body: unknown; retry: string | null; left: number }[] = [];
        for (const url of [first, second]) {
          const res = await fetch(url + '/platform/connections', { headers: { authorization: `Key ${key}` } });
          // whole seconds to the end of the window, when the answer came
          const left = Math.ceil((60_000 - (Date.now() % 60_000)) / 1000);
          over.push({ url, status: res.status, body: await res.json(), retry: res.headers.get('retry-after'), left });
        }
        return { statuses, over };
      });
      expect(round.statuses.filter((st) => st !== 200)).toEqual([]);
      expect(round.over.map((o) => o.url)).toEqual([first, second]);
      for (const o of round.over) {
        expect(o.status, o.url).toBe(429);
        expect((o.body as { error: { code: string } }).error.code).toBe('rate_limited');
        expect(o.retry).toMatch(/^\d+$/);
        expect(Math.abs(Number(o.retry) - o.left)).toBeLessThanOrEqual(1);
      }
    }
  }, 180_000);

  it('never admits more than the budget when both processes take a burst at once', async () => {
    const burst = await orgWithKeys('Burst');
    // twice the budget at once, half to each process
    const size = 2 * BUDGET;
    const {
      value: { all, keyId },
      windowStart,
    } = await inOneWindow(async () => {
      const { key, id } = await burst.newKey('standard');
      return { all: await Promise.all(Array.from({ length: size }, (_, i) => call(i % 2 === 0 ? one : two, '/platform/sources', key))), keyId: id };
    });
    const ok = all.filter((r) => r.status === 200).length;
    const refused = all.filter((r) => r.status === 429);
    expect(ok + refused.length).toBe(size);
    expect(ok).toBeLessThanOrEqual(BUDGET);
    expect(ok).toBeGreaterThan(0);
    expect(refused.every((r) => /^\d+$/.test(r.headers.get('retry-after') ?? ''))).toBe(true);
    // each process keeps its tally of the window in an expiring row, read back by (key, scope, window)
    const rows = await env.client.execute('SELECT replica_id, tally FROM rate_limit_tallies WHERE key_id = ? AND scope = ? AND window_start = ?', [keyId, 'platform', windowStart], { prepare: true });
    expect(rows.rowLength).toBe(2);
    const counted = rows.rows.reduce((n, r) => n + Number(r.get('tally')), 0);
    expect(counted).toBeGreaterThanOrEqual(BUDGET);
    expect(counted).toBeLessThanOrEqual(size);
    const tables = await env.client.execute('SELECT table_name, default_time_to_live FROM system_schema.tables WHERE keyspace_name = ?', [env.config.cassandra.keyspace], { prepare: true });
    const ttl = new Map(tables.rows.map((r) => [String(r.get('table_name')), Number(r.get('default_time_to_live'))]));
    expect(ttl.get('rate_limit_tallies')).toBe(120);
    expect(ttl.has('rate_limit_hits')).toBe(false);
    expect(ttl.has('rate_limit_windows')).toBe(false);
  });
});
