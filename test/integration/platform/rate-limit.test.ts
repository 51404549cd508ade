/**
 * Two API processes share one 240/minute budget per key: the 241st request of a minute answers
 * 429 with Retry-After whichever process receives it (each process's tally kept in Cassandra, in
 * rows that expire). Each process embeds its own chDB folder (an embedded engine cannot be opened twice);
 * what they share is Cassandra.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { captureIo } from '../helpers/isolated-config.ts';
import { cassandraEnv, orgWithKeys, root, type Env } from './support.ts';

let env: Env;
const children: ChildProcess[] = [];

/** Starts `tdx start --role api` on a free port; resolves to its base URL. */
function startApi(): Promise<string> {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    ...env.env,
    TDX_API_PORT: '0',
    TDX_LOG_LEVEL: 'info',
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
  await runMigrate(env.config, createLogger({ ...env.config, logLevel: 'silent' }), captureIo().io);
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await env?.close();
});

/** Waits, when needed, until a fresh minute window has at least `needMs` left. */
async function freshWindow(needMs: number): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 60_000 - needMs) await new Promise((r) => setTimeout(r, 60_000 - into + 200));
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
    org = await orgWithKeys(env, 'Rate');
    const applied = await env.tdx(['config', 'apply', 'deploy/demo/config.yaml', '--org', org.org]);
    if (applied.code !== 0) throw new Error(applied.stderr);
    [one, two] = await Promise.all([startApi(), startApi()]);
    expect(one).not.toBe(two);
    // warm both processes (prepared statements) with the sandbox key, whose budget is not under test
    await Promise.all([call(one, '/platform/openapi.json', org.sandbox), call(two, '/platform/openapi.json', org.sandbox)]);
  });

  it('answers the 241st request of a minute with 429 and Retry-After, whichever process gets it', async () => {
    for (const [first, second] of [
      [one, two],
      [two, one],
    ] as const) {
      // one key per round, so each round spends a fresh budget; the 241st goes to `first`
      const key = first === one ? org.standard : org.readOnly;
      await freshWindow(40_000);
      const paths = ['/platform/sources', '/platform/flows', '/platform/partners', '/platform/openapi.json'];
      const statuses: number[] = [];
      for (let i = 0; i < 240; i++) statuses.push((await call(i % 2 === 0 ? one : two, paths[i % paths.length]!, key)).status);
      expect(statuses.filter((st) => st !== 200)).toEqual([]);
      for (const url of [first, second]) {
        const over = await fetch(url + '/platform/connections', { headers: { authorization: `Key ${key}` } });
        expect(over.status, url).toBe(429);
        const body = (await over.json()) as { error: { code: string } };
        expect(body.error.code).toBe('rate_limited');
        const retry = over.headers.get('retry-after');
        expect(retry).toMatch(/^\d+$/);
        // whole seconds to the end of the window
        const left = Math.ceil((60_000 - (Date.now() % 60_000)) / 1000);
        expect(Math.abs(Number(retry) - left)).toBeLessThanOrEqual(1);
      }
    }
  }, 180_000);

  it('never admits more than the budget when both processes take a burst at once', async () => {
    const burst = await orgWithKeys(env, 'Burst');
    await freshWindow(30_000);
    const windowStart = Date.now() - (Date.now() % 60_000);
    const all = await Promise.all(Array.from({ length: 320 }, (_, i) => call(i % 2 === 0 ? one : two, '/platform/sources', burst.standard)));
    const ok = all.filter((r) => r.status === 200).length;
    const refused = all.filter((r) => r.status === 429);
    expect(ok + refused.length).toBe(320);
    expect(ok).toBeLessThanOrEqual(240);
    expect(ok).toBeGreaterThan(0);
    expect(refused.every((r) => /^\d+$/.test(r.headers.get('retry-after') ?? ''))).toBe(true);
    // each process keeps its tally of the window in an expiring row, read back by (key, scope, window)
    const key = (await env.tdx(['admin', 'key', 'list', '--org', burst.org, '--json'])).stdout;
    const keyId = (JSON.parse(key) as { id: string; kind: string }[]).find((k) => k.kind === 'standard')!.id;
    const rows = await env.client.execute('SELECT replica_id, tally FROM rate_limit_tallies WHERE key_id = ? AND scope = ? AND window_start = ?', [keyId, 'platform', windowStart], { prepare: true });
    expect(rows.rowLength).toBe(2);
    const counted = rows.rows.reduce((n, r) => n + Number(r.get('tally')), 0);
    expect(counted).toBeGreaterThanOrEqual(240);
    expect(counted).toBeLessThanOrEqual(320);
    const tables = await env.client.execute('SELECT table_name, default_time_to_live FROM system_schema.tables WHERE keyspace_name = ?', [env.config.cassandra.keyspace], { prepare: true });
    const ttl = new Map(tables.rows.map((r) => [String(r.get('table_name')), Number(r.get('default_time_to_live'))]));
    expect(ttl.get('rate_limit_tallies')).toBe(120);
    expect(ttl.has('rate_limit_hits')).toBe(false);
    expect(ttl.has('rate_limit_windows')).toBe(false);
  });
});
