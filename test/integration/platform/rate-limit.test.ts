/**
 * Two API processes share one 240/minute budget per key: the 241st request of a minute answers
 * 429 with Retry-After whichever process receives it (counters in Cassandra).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { captureIo, eventually } from '../foundation/isolated.ts';
import { cassandraEnv, orgWithKeys, root, type Env } from './support.ts';

let env: Env;
const children: ChildProcess[] = [];

function startApi(): Promise<string> {
  const e: NodeJS.ProcessEnv = { ...process.env, ...env.env, TDX_API_PORT: '0', TDX_LOG_LEVEL: 'info' };
  delete e['NODE_OPTIONS'];
  const child = spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', 'api'], { cwd: root, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return eventually(() => /API listening on (http:\/\/\S+)/.exec(out)?.[1], 90_000, `the API to listen (${out.slice(-400)})`);
}

beforeAll(async () => {
  env = await cassandraEnv();
  await runMigrate(env.config, createLogger({ ...env.config, logLevel: 'silent' }), captureIo().io);
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await env?.close();
});

describe('rate limit across API processes', () => {
  it('answers the 241st request of a minute with 429 and Retry-After, whichever process gets it', async () => {
    const { org, standard, readOnly } = await orgWithKeys(env, 'Rate');
    expect((await env.tdx(['config', 'apply', 'deploy/demo/config.yaml', '--org', org])).code).toBe(0);
    const [one, two] = await Promise.all([startApi(), startApi()]);
    const call = (url: string, path: string, key = standard) => fetch(url + path, { headers: { authorization: `Key ${key}` } });
    // warm both processes (prepared statements) with another key, so the budget under test is untouched
    await Promise.all([call(one, '/platform/sources', readOnly), call(two, '/platform/sources', readOnly)]);
    // start inside a fresh minute window, with enough of it left for 241 requests
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 35_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    const paths = ['/platform/sources', '/platform/flows', '/platform/partners', '/platform/openapi.json'];
    const statuses: number[] = [];
    for (let i = 0; i < 240; i++) {
      const res = await call(i % 2 === 0 ? one : two, paths[i % paths.length]!);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    for (const url of [one, two]) {
      const over = await call(url, '/platform/connections');
      expect(over.status).toBe(429);
      const body = (await over.json()) as { error: { code: string } };
      expect(body.error.code).toBe('rate_limited');
      const retry = over.headers.get('retry-after');
      expect(retry).toMatch(/^\d+$/);
      expect(Number(retry)).toBeGreaterThanOrEqual(1);
      expect(Number(retry)).toBeLessThanOrEqual(60);
    }
    // another key keeps its own budget
    expect((await call(one, '/platform/sources', readOnly)).status).toBe(200);
  });
});
