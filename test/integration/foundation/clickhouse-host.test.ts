import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createClickHouse, qualify, type ClickHouseHandle } from '../../../src/adapters/clickhouse/client.ts';
import { migrateClickHouse } from '../../../src/adapters/clickhouse/migrate.ts';
import { feedRow, insertRows } from '../../../src/adapters/clickhouse/materialize.ts';
import { eventually, isolatedConfig } from '../helpers/isolated-config.ts';
import { uniqueId } from '../helpers/env.ts';

// `tdx start --role clickhouse` in a process of its own, reached over HTTP as a server would be:
// this process opens no embedded engine.
const password = uniqueId('pw');
const iso = isolatedConfig({ TDX_CLICKHOUSE_PORT: '0', TDX_METRICS_PORT: '0', CLICKHOUSE_PASSWORD: password });
const root = fileURLToPath(new URL('../../../', import.meta.url));
let child: ChildProcess | undefined;
let output = '';
let url = '';
let handle: ClickHouseHandle | undefined;

function startHost(extra: NodeJS.ProcessEnv): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, ...iso.env, ...extra };
  delete env['NODE_OPTIONS'];
  if (extra['CLICKHOUSE_URL'] === undefined) delete env['CLICKHOUSE_URL'];
  return spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', 'clickhouse'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

const basic = (user: string, key: string): string => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

beforeAll(async () => {
  child = startHost({});
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  url = await eventually(() => /ClickHouse \(embedded, data in [^)]+\) on (http:\/\/[^/\s]+)\//.exec(output)?.[1], 90_000, `the clickhouse role to listen (output so far: ${output.slice(-500)})`);
  handle = createClickHouse(loadConfig({ ...iso.env, CLICKHOUSE_URL: url }));
}, 120_000);

afterAll(async () => {
  await handle?.close();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await iso.cleanup();
});

describe('tdx start --role clickhouse', () => {
  it('runs the migrations and the records queries of the service for a client over HTTP', async () => {
    const h = handle!;
    expect(h.embedded).toBe(false);
    const first = await migrateClickHouse(h, iso.config);
    expect(first.applied.length).toBeGreaterThan(0);
    expect((await migrateClickHouse(h, iso.config)).applied).toEqual([]);

    const org = uniqueId('org');
    const base = Date.UTC(2026, 10, 27, 12, 0, 0) * 1000;
    const entries = Array.from({ length: 3 }, (_, i) => ({
      organizationId: org,
      id: `fe-${i}`,
      createdAt: base + i * 1_000_001,
      direction: 'inbound' as const,
      status: 'success' as const,
      partnerKey: i === 1 ? 'ACME' : 'globex',
      traceGuid: `trace-${i}`,
      resultId: `result-${i}`,
      detail: JSON.stringify({ n: i, text: "it's \\ \"quoted\"\n" }),
    }));
    expect(await insertRows(h, 'feed_entries', entries.map(feedRow), 2)).toBe(3);

    // parameters of three types, a setting of the client, 64-bit integers as numbers
    const rs = await h.client.query({
      query: `SELECT id, created_at, partner_key, detail, toUInt64(1) AS one FROM ${qualify(h.database, 'feed_entries')} FINAL
              WHERE org_id = {org:String} AND (created_at, id) > ({c:DateTime64(6)}, {id:String}) AND id IN {ids:Array(String)} ORDER BY created_at, id`,
      query_params: { org, c: '2026-11-27 12:00:00.000000', id: 'fe-0', ids: ['fe-0', 'fe-1', 'fe-2'] },
      clickhouse_settings: { max_threads: 1 },
      format: 'JSONEachRow',
    });
    expect(await rs.json()).toEqual([
      { id: 'fe-1', created_at: '2026-11-27 12:00:01.000001', partner_key: 'ACME', detail: entries[1]!.detail, one: 1 },
      { id: 'fe-2', created_at: '2026-11-27 12:00:02.000002', partner_key: 'globex', detail: entries[2]!.detail, one: 1 },
    ]);
  });

  it("answers a failing query with the engine's code and name, as a server does", async () => {
    const h = handle!;
    await expect(h.client.query({ query: 'SELECT * FROM no_such_database.no_such_table', format: 'JSONEachRow' })).rejects.toMatchObject({ code: '81', type: 'UNKNOWN_DATABASE' });
    await expect(h.client.command({ query: 'SELEC 1' })).rejects.toMatchObject({ code: '62', type: 'SYNTAX_ERROR' });
    const res = await fetch(`${url}/?query=${encodeURIComponent('SELECT nope_function(1)')}`, { headers: { authorization: basic('default', password) } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-clickhouse-exception-code')).toBe('46');
    expect(await res.text()).toMatch(/^Code: 46\. DB::Exception: .*nope_function.*\(UNKNOWN_FUNCTION\)\n$/s);
  });

  it('asks for the credentials, keeps GET read-only and answers /ping', async () => {
    expect(await (await fetch(`${url}/ping`)).text()).toBe('Ok.\n');
    const q = `${url}/?query=${encodeURIComponent('SELECT 1 + 1')}`;
    const wrong = await fetch(q, { headers: { authorization: basic('default', 'not-it') } });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toMatch(/^Code: 516\. .*\(AUTHENTICATION_FAILED\)/);
    expect((await fetch(q)).status).toBe(403);
    for (const headers of [{ authorization: basic('default', password) }, { 'x-clickhouse-user': 'default', 'x-clickhouse-key': password }]) {
      const ok = await fetch(q, { headers });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe('2\n');
    }
    const write = await fetch(`${url}/?query=${encodeURIComponent('CREATE TABLE default.get_writes (x Int8) ENGINE = Memory')}`, { headers: { authorization: basic('default', password) } });
    expect(write.status).toBe(403);
    expect(await write.text()).toMatch(/\(READONLY\)/);
    const other = await fetch(`${url}/replicas_status`, { headers: { authorization: basic('default', password) } });
    expect(other.status).toBe(404);
    const form = new FormData();
    form.set('query', 'SELECT {n:UInt8}');
    form.set('param_n', '1');
    const multipart = await fetch(`${url}/`, { method: 'POST', headers: { authorization: basic('default', password) }, body: form });
    expect(multipart.status).toBe(400);
    expect(await multipart.text()).toMatch(/^Code: 36\. .*param_<name> in the URL.*\(BAD_ARGUMENTS\)/);
  });

  it('takes gzip bodies and answers in gzip when asked', async () => {
    // node:http rather than fetch, which would undo the answer's compression itself
    const answer = await new Promise<{ status: number; encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      const req = request(`${url}/?enable_http_compression=1&default_format=CSV`, {
        method: 'POST',
        headers: { authorization: basic('default', password), 'content-encoding': 'gzip', 'accept-encoding': 'gzip' },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(gzipSync('SELECT number * 2 FROM system.numbers LIMIT 3'));
    });
    expect(answer.status).toBe(200);
    expect(answer.encoding).toBe('gzip');
    expect(gunzipSync(answer.body).toString()).toBe('0\n2\n4\n');
  });

  it('refuses to start with CLICKHOUSE_URL set, naming it, and stops cleanly on SIGTERM', async () => {
    const wrong = startHost({ CLICKHOUSE_URL: 'http://127.0.0.1:1/' });
    let text = '';
    wrong.stdout!.on('data', (d: Buffer) => (text += d.toString()));
    wrong.stderr!.on('data', (d: Buffer) => (text += d.toString()));
    const code = await new Promise<number | null>((resolve) => wrong.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(text).toContain('CLICKHOUSE_URL is set');

    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child!.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
