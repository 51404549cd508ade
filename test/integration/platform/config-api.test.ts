/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
import type { Server } from 'node:http';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/app.ts';
import { platformRouterOverCassandra } from '../../../src/http/platform/factory.ts';
import { createLogger } from '../../../src/logger.ts';
import { cassandraEnv, orgWithKeys, type Env } from './support.ts';

let env: Env;
let server: Server;
let base = '';
let a: Awaited<ReturnType<typeof orgWithKeys>>;
let b: Awaited<ReturnType<typeof orgWithKeys>>;

async function get(p: string, key: string | null = a.standard) {
  const res = await fetch(base + p, { headers: key === null ? {} : { authorization: `Key ${key}` } });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: res.status, body, text, headers: res.headers };
}

const LISTS = ['connections', 'envelopes', 'webhooks', 'flows', 'mappings', 'implementations', 'sources', 'partners'] as const;

beforeAll(async () => {
  env = await cassandraEnv();
  [a, b] = await Promise.all([orgWithKeys(env, 'Org A'), orgWithKeys(env, 'Org B')]);
  for (const o of [a, b]) {
    const r = await env.tdx(['config', 'apply', 'deploy/demo/config.yaml', '--org', o.org]);
    if (r.code !== 0) throw new Error(r.stderr);
  }
  const logger = createLogger({ ...env.config, logLevel: 'silent' });
  const app = createApp({ logger, checks: [], routers: [platformRouterOverCassandra(env.config, logger, env.client).router] });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

afterAll(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await env?.close();
});

describe('configuration endpoints against Cassandra', () => {
  it('lists every resource, and shows each row by id', async () => {
    const counts: Record<string, number> = {};
    for (const list of LISTS) {
      const r = await get(`/platform/${list}`);
      expect(r.status, list).toBe(200);
      expect(r.body.pagination).toEqual({ hasMore: false, nextCursor: null });
      counts[list] = r.body[list].length;
      for (const row of r.body[list]) {
        const show = await get(list === 'partners' ? `/platform/partners/${String(row.key).toLowerCase()}` : `/platform/${list}/${row.id}`);
        expect(show.status).toBe(200);
        expect(show.body.id).toBe(row.id);
      }
    }
    expect(counts).toEqual({ connections: 2, envelopes: 3, webhooks: 2, flows: 4, mappings: 2, implementations: 2, sources: 2, partners: 2 });
  });

  it('applies every filter', async () => {
    expect((await get('/platform/flows?partner=gLoBeX')).body.flows.map((f: any) => f.partner.key)).toEqual(['GLOBEX', 'GLOBEX']);
    expect((await get('/platform/flows?partner=unknown')).body.flows).toEqual([]);
    expect((await get('/platform/flows?direction=outbound')).body.flows.every((f: any) => f.direction === 'outbound')).toBe(true);
    expect((await get('/platform/flows?status=active')).body.flows).toHaveLength(4);
    expect((await get('/platform/flows?status=pending')).body.flows).toHaveLength(0);
    expect((await get('/platform/mappings?direction=outbound')).body.mappings.map((m: any) => m.name)).toEqual(['demo-erp-to-810']);
    expect((await get('/platform/mappings?partner=ACME')).body.mappings).toHaveLength(2);
    expect((await get('/platform/mappings?partner=nobody')).body.mappings).toHaveLength(0);
    expect((await get('/platform/implementations?transactionSetIdentifier=850')).body.implementations.map((i: any) => i.name)).toEqual(['demo-850-inbound']);
  });

  it('serves mapping versions and the implementation schema, guide and export', async () => {
    const m = (await get('/platform/mappings?direction=inbound')).body.mappings[0];
    expect((await get(`/platform/mappings/${m.id}/versions`)).body.versions.map((v: any) => v.versionNumber)).toEqual([1]);
    expect((await get(`/platform/mappings/${m.id}/versions/1`)).body.transformation).toContain('orderNumber');
    expect((await get(`/platform/mappings/${m.id}/versions/9`)).body.error.reason).toBe('mapping_version');
    const i = (await get('/platform/implementations')).body.implementations[0];
    expect((await get(`/platform/implementations/${i.id}/schema`)).body.$schema).toContain('2020-12');
    expect((await get(`/platform/implementations/${i.id}/guide`)).headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await get(`/platform/implementations/${i.id}/guide?variant=markdown`)).headers.get('content-type')).toMatch(/^text\/markdown/);
    expect((await get(`/platform/implementations/${i.id}/export`)).body.format).toBe('tdx.x12.implementation');
  });

  it('applies the key-kind matrix to every endpoint group', async () => {
    for (const list of LISTS) {
      expect((await get(`/platform/${list}`, a.readOnly)).status).toBe(200);
      const s = await get(`/platform/${list}`, a.sandbox);
      expect(s.status).toBe(403);
      expect(s.body.error.code).toBe('forbidden');
    }
    expect((await get('/platform/openapi.json', a.sandbox)).status).toBe(200);
    for (const key of [null, 'garbage', `tdx_${'x'.repeat(43)}`]) expect((await get('/platform/flows', key)).status).toBe(401);
  });

  it("answers another organization's ids with 404 exactly like absent ones", async () => {
    const reasons: Record<string, string> = { connections: 'connection', envelopes: 'envelope', webhooks: 'webhook', flows: 'flow', mappings: 'mapping', implementations: 'implementation', sources: 'source' };
    for (const [list, reason] of Object.entries(reasons)) {
      const foreign = (await get(`/platform/${list}`, b.standard)).body[list][0].id;
      const r = await get(`/platform/${list}/${foreign}`, a.standard);
      const absent = await get(`/platform/${list}/00000000-0000-7000-8000-000000000000`, a.standard);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
      expect(r.body.error.reason).toBe(reason);
      expect(Object.keys(r.body.error).sort()).toEqual(Object.keys(absent.body.error).sort());
    }
  });

  it('rejects invalid parameters and cursors with 400 naming the parameter', async () => {
    for (const [p, name] of [
      ['/platform/flows?direction=up', 'direction'],
      ['/platform/flows?status=done', 'status'],
      ['/platform/mappings?direction=x', 'direction'],
      ['/platform/implementations?transactionSetIdentifier=PO', 'transactionSetIdentifier'],
      ['/platform/sources?limit=101', 'limit'],
      ['/platform/sources?cursor=bogus', 'cursor'],
    ] as const) {
      const r = await get(p);
      expect(r.status, p).toBe(400);
      expect(r.body.error.code).toBe('invalid_parameter');
      expect(r.body.error.message).toContain(`"${name}"`);
    }
    const cursor = (await get('/platform/envelopes?limit=1')).body.pagination.nextCursor;
    expect((await get(`/platform/connections?cursor=${encodeURIComponent(cursor)}`)).status).toBe(400);
    expect((await get(`/platform/envelopes?cursor=${encodeURIComponent(cursor)}`, b.standard)).status).toBe(400);
    expect((await get(`/platform/envelopes?cursor=${encodeURIComponent(cursor.slice(0, -2) + 'AA')}`)).status).toBe(400);
  });

  it('keeps pages stable while rows are inserted between them', async () => {
    const first = await get('/platform/envelopes?limit=2');
    const dir = mkdtempSync(path.join(tmpdir(), 'tdx-cursor-'));
    const file = path.join(dir, 'more.yaml');
    writeFileSync(
      file,
      readFileSync('deploy/demo/config.yaml', 'utf8').replace(
        'envelopes:\n',
        'envelopes:\n  - { name: zz-new-envelope, external: true, interchangeExtid: NEWONE, interchangeExtidQualifier: ZZ, applicationCode: NEWONE }\n',
      ),
    );
    expect((await env.tdx(['config', 'apply', file, '--org', a.org])).code).toBe(0);
    const second = await get(`/platform/envelopes?limit=2&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`);
    const ids = [...first.body.envelopes, ...second.body.envelopes].map((e: any) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(4);
    expect(second.body.envelopes.map((e: any) => e.name)).toContain('zz-new-envelope');
  });

  it('never returns any configured secret', async () => {
    const rows = await env.client.execute('SELECT value FROM config_secrets WHERE org_id = ?', [a.org]);
    const secrets = rows.rows.map((r) => String(r.get('value')));
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    const bodies: string[] = [(await get('/platform/openapi.json')).text];
    for (const list of LISTS) {
      const r = await get(`/platform/${list}`);
      bodies.push(r.text);
      for (const row of r.body[list]) {
        const p = list === 'partners' ? `/platform/partners/${row.key}` : `/platform/${list}/${row.id}`;
        bodies.push((await get(p)).text);
        if (list === 'mappings') bodies.push((await get(`${p}/versions`)).text, (await get(`${p}/versions/1`)).text);
        if (list === 'implementations') for (const s of ['schema', 'guide', 'guide?variant=markdown', 'export']) bodies.push((await get(`${p}/${s}`)).text);
      }
    }
    const all = bodies.join('\n');
    for (const s of secrets) expect(all).not.toContain(s);
    expect(all).not.toMatch(/whsec_/);
  });
});
