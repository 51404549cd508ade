/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
/**
 * The configuration endpoints against Cassandra, driven by the API's own OpenAPI document: every
 * documented GET is called with every key kind, every row of every list is shown, every 200
 * body is validated against its documented schema (with no undocumented property allowed), and
 * every id-taking endpoint answers another organization's id exactly like an absent one.
 */
import type { Server } from 'node:http';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { validators } from '../records/openapi-check.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/app.ts';
import { platformRouterOverCassandra } from '../../../src/compose.ts';
import { createLogger } from '../../../src/logger.ts';
import { storedOf } from '../../../src/adapters/cassandra/secret-store.ts';
import { applyConfig, createApiKey, createOrganization } from '../../../src/admin/admin-service.ts';
import { readConfigFile } from '../../../src/admin/config-file.ts';
import { CassandraOrganizationStore } from '../../../src/adapters/cassandra/organization-store.ts';
import { CassandraConfigAdminStore } from '../../../src/adapters/cassandra/config-store.ts';
import { x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';
import { cassandraEnv, type Env } from './support.ts';
import { apiGet } from '../../support/api-get.ts';

interface Org {
  readonly org: string;
  readonly standard: string;
  readonly readOnly: string;
  readonly sandbox: string;
}
let env: Env;
let server: Server;
let base = '';
let a: Org;
let b: Org;
const dir = mkdtempSync(path.join(tmpdir(), 'tdx-config-api-'));
const demo = readFileSync('deploy/demo/config.yaml', 'utf8');
/** Org B's file: the demo with GLOBEX renamed UMBRELLA, a partner key org A does not have. */
const demoB = demo.replace('key: GLOBEX', 'key: UMBRELLA');

function get(p: string, key: string | null = a.standard) {
  return apiGet(base, p, key);
}

/**
 * What `tdx config apply FILE --org ORG` does to the stores (read the file, apply it), in this
 * process: the command itself is tested in admin/config-apply.test.ts; here it only sets up what
 * the API shows, and a process per apply cost a second or more of start-up each.
 */
async function apply(org: string, text: string, name: string): Promise<void> {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  const doc = readConfigFile(file, x12ImplementationEngine, { env: { ...process.env, ...env.env } });
  await applyConfig(new CassandraOrganizationStore(env.client), new CassandraConfigAdminStore(env.client, env.config.secrets.keyring), org, doc, x12ImplementationEngine);
}

/** An organization with a key of each kind, as `tdx admin org create` and `tdx admin key create` make them, in this process. */
async function orgWithKeys(e: Env, name: string): Promise<Org> {
  const orgs = new CassandraOrganizationStore(e.client);
  const org = (await createOrganization(orgs, name)).id;
  const [standard, readOnly, sandbox] = await Promise.all((['standard', 'read-only', 'sandbox'] as const).map(async (kind) => (await createApiKey(orgs, org, kind, null)).key));
  return { org, standard: standard!, readOnly: readOnly!, sandbox: sandbox! };
}

const LISTS = ['connections', 'envelopes', 'webhooks', 'flows', 'mappings', 'implementations', 'sources', 'partners'] as const;
const REASONS: Record<string, string> = {
  connections: 'connection',
  envelopes: 'envelope',
  webhooks: 'webhook',
  flows: 'flow',
  mappings: 'mapping',
  implementations: 'implementation',
  sources: 'source',
  partners: 'partner',
};
const ABSENT_ID = '00000000-0000-7000-8000-000000000000';

/** Every row of every list of an organization, unpaged. */
async function rowsOf(key: string): Promise<Record<string, any[]>> {
  const out: Record<string, any[]> = {};
  for (const list of LISTS) out[list] = (await get(`/platform/${list}?limit=100`, key)).body[list];
  return out;
}

/** The concrete URLs of a documented path template, one per row it applies to. */
function expand(template: string, rows: Record<string, any[]>): string[] {
  const m = /^\/platform\/([a-z_]+)\/\{(id|key)\}(.*)$/.exec(template);
  if (!m) return [template];
  const [, list, , rest] = m as unknown as [string, string, string, string];
  const out: string[] = [];
  for (const row of rows[list] ?? []) {
    const head = list === 'partners' ? `/platform/partners/${String(row.key).toLowerCase()}` : `/platform/${list}/${row.id}`;
    if (rest.includes('{number}')) for (let n = 1; n <= row.currentVersion; n++) out.push(head + rest.replace('{number}', String(n)));
    else out.push(head + rest);
  }
  return out;
}

/** A JSON-pointer reference into the document added to ajv as `openapi`. */
const pointer = (...parts: string[]): string => `openapi#/${parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;

/** Forbids properties a documented object schema does not name (so nothing undocumented leaks). */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) for (const n of node) closeObjects(n);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o['type'] === 'object' && o['properties'] && o['additionalProperties'] === undefined) o['additionalProperties'] = false;
    for (const v of Object.values(o)) closeObjects(v);
  }
}

beforeAll(async () => {
  // this file calls far more than 240 times a minute with one key; the budget has its own test
  // every read and check here is by organization: the worker's shared keyspace serves
  env = await cassandraEnv({ TDX_RATE_LIMIT_PER_MINUTE: '1000000' }, { sharedKeyspace: true });
  [a, b] = await Promise.all([orgWithKeys(env, 'Org A'), orgWithKeys(env, 'Org B')]);
  await apply(a.org, demo, 'a');
  await apply(b.org, demoB, 'b');
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
  it('answers every documented GET for every row, in its documented shape, and applies the key-kind matrix', async () => {
    const doc = (await get('/platform/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    closeObjects(doc.paths);
    closeObjects(doc.components);
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    ajv.addSchema(doc, 'openapi');
    // one validator per documented response, compiled once rather than per URL
    const validatorOf = validators(ajv);
    const rows = await rowsOf(a.standard);
    expect(Object.fromEntries(LISTS.map((l) => [l, rows[l]!.length]))).toEqual({
      connections: 3,
      envelopes: 4,
      webhooks: 2,
      flows: 6,
      mappings: 2,
      implementations: 2,
      sources: 2,
      partners: 3,
    });
    const templates = Object.keys(doc.paths).filter((p) => doc.paths[p].get);
    expect(templates).toHaveLength(22);
    let called = 0;
    for (const template of templates) {
      const urls = expand(template, rows);
      expect(urls.length, template).toBeGreaterThan(0);
      const content = doc.paths[template].get.responses['200'].content as Record<string, { schema: unknown }>;
      for (const url of urls) {
        const variants = template.endsWith('/guide') ? [url, `${url}?variant=console`, `${url}?variant=markdown`] : [url];
        for (const u of variants) {
          called += 1;
          const std = await get(u, a.standard);
          expect(std.status, u).toBe(200);
          const type = (std.headers.get('content-type') ?? '').split(';')[0]!;
          expect(Object.keys(content), u).toContain(type);
          if (type.startsWith('text/')) {
            expect(type).toBe(u.endsWith('markdown') ? 'text/markdown' : 'text/plain');
            expect(std.text.length).toBeGreaterThan(200);
          } else {
            const validate = validatorOf(pointer('paths', template, 'get', 'responses', '200', 'content', type, 'schema'));
            expect(validate(std.body) ? [] : validate.errors, u).toEqual([]);
          }
          // a read-only key reads exactly what a standard key reads
          const ro = await get(u, a.readOnly);
          expect(ro.status, u).toBe(200);
          expect(ro.text).toBe(std.text);
          // a sandbox key gets 403 forbidden everywhere but the documentation
          const sb = await get(u, a.sandbox);
          if (template === '/platform/openapi.json') expect(sb.status).toBe(200);
          else {
            expect(sb.status, u).toBe(403);
            expect(sb.body).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
          }
        }
      }
    }
    expect(called).toBeGreaterThanOrEqual(40);
    // shows carry what their rows do, and the pointers of the contract
    for (const list of LISTS) {
      for (const row of rows[list]!) {
        const show = await get(list === 'partners' ? `/platform/partners/${row.key}` : `/platform/${list}/${row.id}`);
        const { partners: _p, source: _s, ...same } = row;
        expect(show.body).toMatchObject(same);
      }
    }
    const acme = rows['partners']!.find((p) => p.key === 'ACME');
    const conn = (await get(`/platform/connections/${rows['connections']!.find((c) => c.name === 'acme-sftp').id}`)).body;
    expect(conn.partners).toEqual([{ id: acme.id, key: 'ACME', name: 'Acme Corporation' }]);
    // the demo file takes the stack sshd's user and port from the environment (SFTP_*)
    expect(conn).toMatchObject({ port: Number(process.env['SFTP_PORT'] ?? 2222), username: process.env['SFTP_USERNAME'], inboundDirectory: 'acme/outbox', outboundDirectory: 'acme/inbox', tags: ['demo', 'acme'], partnerCount: 1, provisioned: true });
    const internal = (await get(`/platform/envelopes/${rows['envelopes']!.find((e) => e.name === 'demo-internal').id}`)).body;
    expect(internal.partners.map((p: any) => [p.key, p.role]).sort()).toEqual([
      ['ACME', 'internal'],
      ['GADGET', 'internal'],
      ['GLOBEX', 'internal'],
    ]);
    const notifications = (await get(`/platform/webhooks/${rows['webhooks']!.find((w) => w.name === 'erp-notifications').id}`)).body;
    expect(notifications.partners.map((p: any) => [p.key, p.role]).sort()).toEqual([
      ['ACME', 'error'],
      ['ACME', 'outbound'],
      ['GADGET', 'error'],
      ['GLOBEX', 'error'],
    ]);
    const flow = (await get(`/platform/flows/${rows['flows']![0].id}`)).body;
    expect(flow.nodes.length).toBeGreaterThan(1);
    const nodeIds = new Set(flow.nodes.map((n: any) => n.id));
    expect(flow.connections.every((c: any) => nodeIds.has(c.from) && nodeIds.has(c.to))).toBe(true);
    const inbound = rows['mappings']!.find((m) => m.name === 'demo-850-to-erp');
    expect(inbound).toMatchObject({ direction: 'inbound', implementation: { name: 'demo-850-inbound' }, source: { name: 'erp-purchase-order' }, currentVersion: 1, partners: ['ACME', 'GADGET'] });
    const mapping = (await get(`/platform/mappings/${inbound.id}`)).body;
    expect(mapping.source.sample.orderNumber).toBe('PO-1001');
    expect(mapping.current).toEqual((await get(`/platform/mappings/${inbound.id}/versions/1`)).body);
    const impl850 = rows['implementations']!.find((i) => i.name === 'demo-850-inbound');
    const impl = (await get(`/platform/implementations/${impl850.id}`)).body;
    expect(impl.mappings).toEqual([{ id: inbound.id, name: 'demo-850-to-erp' }]);
    expect(impl.partners.map((p: any) => p.key)).toEqual(['GLOBEX']);
    expect((await get(`/platform/implementations/${impl850.id}/schema`)).body.$schema).toContain('2020-12');
    expect((await get(`/platform/implementations/${impl850.id}/export`)).body.format).toBe('tdx.x12.implementation');
    expect((await get(`/platform/implementations/${impl850.id}/guide?variant=markdown`)).text).toContain('BEG');
    const partner = (await get('/platform/partners/acme')).body;
    expect(partner.transactionSetSettings).toContainEqual({
      transactionSetIdentifier: '850',
      release: '004010',
      direction: 'inbound',
      usageIndicator: 'P',
      implementation: { id: impl850.id, name: 'demo-850-inbound' },
      mapping: { id: inbound.id, name: 'demo-850-to-erp' },
    });
  });

  it('answers 401 unauthorized for a missing, malformed, unknown or revoked key', async () => {
    // created and revoked as `tdx admin key create|revoke` do, in this process (the commands are
    // tested in admin/config-apply.test.ts)
    const orgs = new CassandraOrganizationStore(env.client);
    const extra = await createApiKey(orgs, a.org, 'standard', null);
    const revoked = extra.key;
    expect((await get('/platform/flows', revoked)).status).toBe(200);
    expect(await orgs.revokeKey(a.org, extra.record.id, new Date().toISOString())).toBe(true);
    // a process reuses a valid key's lookup for TDX_API_KEY_CACHE_MS (1 s, docs/api.md): a
    // revoked key is refused everywhere once that time has passed
    await new Promise((r) => setTimeout(r, 1_200));
    for (const [key, p] of [
      [null, '/platform/flows'],
      ['garbage', '/platform/connections'],
      [`tdx_${'x'.repeat(43)}`, '/platform/openapi.json'],
      [revoked, '/platform/flows'],
    ] as const) {
      const r = await get(p, key);
      expect(r.status, String(key)).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    }
    const bearer = await fetch(`${base}/platform/flows`, { headers: { authorization: `Bearer ${a.standard}` } });
    expect(bearer.status).toBe(401);
  });

  it("answers another organization's ids and keys with 404 exactly like absent ones", async () => {
    const rowsB = await rowsOf(b.standard);
    const templates = Object.keys((await get('/platform/openapi.json')).body.paths).filter((p) => p.includes('{'));
    expect(templates).toHaveLength(13);
    for (const template of templates) {
      const list = /^\/platform\/([a-z_]+)\//.exec(template)![1]!;
      // the id of the path is what is unknown, so the mapping (not the version) is named
      const reason = REASONS[list]!;
      for (const url of expand(template, rowsB)) {
        const foreignId = list === 'partners' ? url.split('/')[3]! : /[0-9a-f-]{36}/.exec(url)![0];
        if (list === 'partners' && foreignId !== 'umbrella') continue; // the keys both organizations have are theirs each
        const absentId = list === 'partners' ? 'nobody' : ABSENT_ID;
        const foreign = await get(url, a.standard);
        const absent = await get(url.replace(foreignId, absentId), a.standard);
        const malformed = await get(url.replace(foreignId, 'not-an-id'), a.standard);
        expect(foreign.status, url).toBe(404);
        expect(absent.status).toBe(404);
        expect(malformed.status).toBe(404);
        expect(foreign.body.error).toEqual({ code: 'not_found', reason, message: expect.any(String) });
        expect(foreign.body.error.message.replace(foreignId, 'X')).toBe(absent.body.error.message.replace(absentId, 'X'));
        expect(Object.fromEntries(foreign.headers)).toMatchObject({ 'content-type': absent.headers.get('content-type') });
        expect((await get(url, b.standard)).status).toBe(200);
      }
    }
    // mapping version numbers that do not exist answer like an unknown mapping version
    const m = (await get('/platform/mappings')).body.mappings[0];
    for (const n of ['2', '0', 'abc', '99999999999']) {
      const r = await get(`/platform/mappings/${m.id}/versions/${n}`);
      expect(r.status).toBe(404);
      expect(r.body.error.reason).toBe('mapping_version');
    }
  });

  it('applies every filter, partner keys in any case, unknown and foreign keys giving an empty page', async () => {
    const flows = async (q: string) => (await get(`/platform/flows${q}`)).body.flows.map((f: any) => `${f.partner.key}/${f.direction}/${f.status}`).sort();
    // GADGET's flows wait for its AS2 keys (deploy/demo/as2-keys.sh), which this environment does not set
    expect(await flows('')).toEqual(['ACME/inbound/active', 'ACME/outbound/active', 'GADGET/inbound/pending', 'GADGET/outbound/pending', 'GLOBEX/inbound/active', 'GLOBEX/outbound/active']);
    for (const k of ['GLOBEX', 'globex', 'gLoBeX']) expect(await flows(`?partner=${k}`)).toEqual(['GLOBEX/inbound/active', 'GLOBEX/outbound/active']);
    expect(await flows('?partner=unknown')).toEqual([]);
    expect(await flows('?partner=UMBRELLA')).toEqual([]);
    expect(await flows('?direction=inbound')).toEqual(['ACME/inbound/active', 'GADGET/inbound/pending', 'GLOBEX/inbound/active']);
    expect(await flows('?direction=outbound&partner=acme')).toEqual(['ACME/outbound/active']);
    expect(await flows('?status=active&direction=outbound')).toEqual(['ACME/outbound/active', 'GLOBEX/outbound/active']);
    expect(await flows('?status=pending')).toEqual(['GADGET/inbound/pending', 'GADGET/outbound/pending']);
    const mappings = async (q: string) => (await get(`/platform/mappings${q}`)).body.mappings.map((m: any) => m.name).sort();
    expect(await mappings('?direction=inbound')).toEqual(['demo-850-to-erp']);
    expect(await mappings('?direction=outbound')).toEqual(['demo-erp-to-810']);
    expect(await mappings('?partner=acme')).toEqual(['demo-850-to-erp', 'demo-erp-to-810']);
    expect(await mappings('?partner=Globex')).toEqual(['demo-erp-to-810']);
    expect(await mappings('?partner=Globex&direction=inbound')).toEqual([]);
    expect(await mappings('?partner=nobody')).toEqual([]);
    expect(await mappings('?partner=umbrella')).toEqual([]);
    const impls = async (q: string) => (await get(`/platform/implementations${q}`)).body.implementations.map((i: any) => i.name);
    expect(await impls('?transactionSetIdentifier=850')).toEqual(['demo-850-inbound']);
    expect(await impls('?transactionSetIdentifier=810')).toEqual(['demo-810-outbound']);
    expect(await impls('?transactionSetIdentifier=856')).toEqual([]);
  });

  it('pages every list with limit and cursor, default 50, maximum 100', async () => {
    for (const list of LISTS) {
      const all = (await get(`/platform/${list}`)).body;
      expect(all.pagination).toEqual({ hasMore: false, nextCursor: null });
      const ids: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r: any = await get(`/platform/${list}?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(r.status).toBe(200);
        expect(r.body[list]).toHaveLength(1);
        ids.push(r.body[list][0].id);
        cursor = r.body.pagination.nextCursor;
        expect(r.body.pagination.hasMore).toBe(cursor !== null);
        pages += 1;
      } while (cursor && pages < 20);
      expect(ids, list).toEqual(all[list].map((r: any) => r.id));
    }
    const m = (await get('/platform/mappings')).body.mappings[0];
    const versions = await get(`/platform/mappings/${m.id}/versions?limit=100`);
    expect(versions.body).toEqual({ versions: [expect.objectContaining({ versionNumber: 1, note: 'first version' })], pagination: { hasMore: false, nextCursor: null } });
    // 60 envelopes: the default page is 50, and limit=100 takes them all
    const many = Array.from({ length: 56 }, (_, i) => `  - { name: bulk-${String(i).padStart(2, '0')}, external: true, interchangeExtid: BULK${i}, interchangeExtidQualifier: ZZ, applicationCode: BULK${i} }\n`).join('');
    const c = await orgWithKeys(env, 'Org Many');
    await apply(c.org, demo.replace('envelopes:\n', `envelopes:\n${many}`), 'many');
    const first = await get('/platform/envelopes', c.standard);
    expect(first.body.envelopes).toHaveLength(50);
    expect(first.body.pagination.hasMore).toBe(true);
    const rest = await get(`/platform/envelopes?cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, c.standard);
    expect(rest.body.envelopes).toHaveLength(10);
    expect(rest.body.pagination).toEqual({ hasMore: false, nextCursor: null });
    expect((await get('/platform/envelopes?limit=100', c.standard)).body.envelopes).toHaveLength(60);
  });

  it('rejects invalid parameters and cursors with 400 naming the parameter', async () => {
    const impl = (await get('/platform/implementations')).body.implementations[0];
    const mapping = (await get('/platform/mappings')).body.mappings[0];
    const cases: [string, string][] = [
      ['/platform/flows?direction=up', 'direction'],
      ['/platform/flows?direction=INBOUND', 'direction'],
      ['/platform/flows?status=done', 'status'],
      ['/platform/flows?partner=ACME&partner=GLOBEX', 'partner'],
      ['/platform/flows?colour=red', 'colour'],
      ['/platform/mappings?direction=x', 'direction'],
      ['/platform/implementations?transactionSetIdentifier=PO', 'transactionSetIdentifier'],
      [`/platform/implementations/${impl.id}/guide?variant=json`, 'variant'],
      [`/platform/implementations/${impl.id}/guide?variant=html`, 'variant'],
      [`/platform/mappings/${mapping.id}/versions?limit=0`, 'limit'],
      ['/platform/partners?cursor=', 'cursor'],
    ];
    for (const list of LISTS) {
      cases.push([`/platform/${list}?limit=101`, 'limit'], [`/platform/${list}?limit=0`, 'limit'], [`/platform/${list}?limit=ten`, 'limit'], [`/platform/${list}?cursor=bogus`, 'cursor']);
    }
    for (const [p, name] of cases) {
      const r = await get(p);
      expect(r.status, p).toBe(400);
      expect(r.body.error.code, p).toBe('invalid_parameter');
      expect(r.body.error.message, p).toContain(`"${name}"`);
    }
    const bad = async (p: string, key = a.standard) => {
      const r = await get(p, key);
      expect(r.status, p).toBe(400);
      expect(r.body.error.code).toBe('invalid_parameter');
      expect(r.body.error.message).toContain('"cursor"');
    };
    const cursor: string = (await get('/platform/envelopes?limit=1')).body.pagination.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    expect((await get(`/platform/envelopes?limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    // other endpoint, other organization, changed in any character
    await bad(`/platform/connections?cursor=${encodeURIComponent(cursor)}`);
    await bad(`/platform/envelopes?cursor=${encodeURIComponent(cursor)}`, b.standard);
    for (let i = 0; i < cursor.length; i += Math.max(1, Math.floor(cursor.length / 12))) {
      const changed = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      await bad(`/platform/envelopes?limit=1&cursor=${encodeURIComponent(changed)}`);
    }
    // a payload rewritten to name another position, with the old signature
    const [payload, mac] = cursor.split('.') as [string, string];
    const forged = JSON.parse(Buffer.from(payload, 'base64url').toString());
    forged.k = '0';
    await bad(`/platform/envelopes?cursor=${encodeURIComponent(`${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`)}`);
    // a cursor is bound to the filters it was issued under
    const flowCursor: string = (await get('/platform/flows?direction=inbound&limit=1')).body.pagination.nextCursor;
    expect((await get(`/platform/flows?direction=inbound&limit=1&cursor=${encodeURIComponent(flowCursor)}`)).status).toBe(200);
    await bad(`/platform/flows?direction=outbound&limit=1&cursor=${encodeURIComponent(flowCursor)}`);
    await bad(`/platform/flows?limit=1&cursor=${encodeURIComponent(flowCursor)}`);
    // a versions cursor belongs to its mapping
    const mc = await orgWithKeys(env, 'Org Versions');
    await apply(mc.org, demo, 'versions-1');
    await apply(mc.org, demo.replace('"orderNumber": $beg.purchase_order_number_03,', '"orderNumber": $string($beg.purchase_order_number_03),').replace('"invoice_number_02": invoiceNumber,', '"invoice_number_02": $string(invoiceNumber),'), 'versions-2');
    const ms = (await get('/platform/mappings', mc.standard)).body.mappings;
    const vCursor: string = (await get(`/platform/mappings/${ms[0].id}/versions?limit=1`, mc.standard)).body.pagination.nextCursor;
    expect((await get(`/platform/mappings/${ms[0].id}/versions?limit=1&cursor=${encodeURIComponent(vCursor)}`, mc.standard)).body.versions[0].versionNumber).toBe(2);
    await bad(`/platform/mappings/${ms[1].id}/versions?limit=1&cursor=${encodeURIComponent(vCursor)}`, mc.standard);
  });

  it('keeps pages stable while rows are inserted between them', async () => {
    const c = await orgWithKeys(env, 'Org Stable');
    await apply(c.org, demo, 'stable-1');
    const first = await get('/platform/envelopes?limit=3', c.standard);
    await apply(c.org, demo.replace('envelopes:\n', 'envelopes:\n  - { name: zz-new-envelope, external: true, interchangeExtid: NEWONE, interchangeExtidQualifier: ZZ, applicationCode: NEWONE }\n'), 'stable-2');
    const second = await get(`/platform/envelopes?limit=3&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`, c.standard);
    const ids = [...first.body.envelopes, ...second.body.envelopes].map((e: any) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(5);
    expect(second.body.envelopes.map((e: any) => e.name)).toContain('zz-new-envelope');
  });

  it('a changed delivery method lists flow version 2 and no longer version 1; a changed transformation lists mapping version 2', async () => {
    const c = await orgWithKeys(env, 'Org Rebuild');
    await apply(c.org, demo, 'rebuild-1');
    const before = (await get('/platform/flows?partner=globex', c.standard)).body.flows;
    expect(before.map((f: any) => [f.direction, f.versionNumber]).sort()).toEqual([
      ['inbound', 1],
      ['outbound', 1],
    ]);
    expect((await get('/platform/partners/globex', c.standard)).body.deliveryMethod).toBe('polling');
    await apply(
      c.org,
      demo
        .replace('"orderNumber": $beg.purchase_order_number_03,', '"orderNumber": $string($beg.purchase_order_number_03),')
        .replace('deliveryMethod: polling', 'deliveryMethod: webhook')
        .replace('webhooks: { error: erp-notifications }', 'webhooks: { inbound: erp-inbound, error: erp-notifications }'),
      'rebuild-2',
    );
    expect((await get('/platform/partners/globex', c.standard)).body.deliveryMethod).toBe('webhook');
    const after = (await get('/platform/flows?partner=globex', c.standard)).body.flows;
    expect(after.map((f: any) => [f.direction, f.versionNumber, f.status]).sort()).toEqual([
      ['inbound', 2, 'active'],
      ['outbound', 2, 'active'],
    ]);
    const listed = (await get('/platform/flows', c.standard)).body.flows;
    expect(listed).toHaveLength(6);
    const listedIds = new Set(listed.map((f: any) => f.id));
    for (const old of before) expect(listedIds.has(old.id)).toBe(false);
    // ACME's flows were not rebuilt
    expect(listed.filter((f: any) => f.partner.key === 'ACME').map((f: any) => f.versionNumber)).toEqual([1, 1]);
    // the superseded version stays readable by id, as version 1
    expect((await get(`/platform/flows/${before[0].id}`, c.standard)).body.versionNumber).toBe(1);
    const m = (await get('/platform/mappings?direction=inbound', c.standard)).body.mappings[0];
    expect(m.currentVersion).toBe(2);
    expect((await get(`/platform/mappings/${m.id}/versions`, c.standard)).body.versions.map((v: any) => v.versionNumber)).toEqual([1, 2]);
    expect((await get(`/platform/mappings/${m.id}/versions/2`, c.standard)).body.transformation).toContain('$string($beg.purchase_order_number_03)');
    expect((await get(`/platform/mappings/${m.id}/versions/1`, c.standard)).body.transformation).not.toContain('$string($beg.purchase_order_number_03)');
    expect((await get(`/platform/mappings/${m.id}`, c.standard)).body.current.versionNumber).toBe(2);
  });

  it('never returns any configured secret, nor any API key', async () => {
    // every kind of secret: SFTP password, private key and passphrase; AS2 private key,
    // passphrase and certificates; a sandbox connection token; standard and sandbox webhook
    // signing secrets
    const secretsFile = demo
      .replace(
        'connections:\n',
        `connections:
  - { name: key-sftp, kind: sftp, host: 127.0.0.1, port: 2222, username: keyuser, privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\\nSECRETKEYMATERIAL\\n-----END OPENSSH PRIVATE KEY-----", passphrase: secret-sftp-passphrase }
  - { name: partner-as2, kind: as2, privateKey: secret-as2-private-key, passphrase: secret-as2-passphrase, certificate: secret-as2-certificate, partnerCertificate: secret-as2-partner-certificate, as2: { localId: DEMOCORP, partnerId: ACMEAS2, url: "https://as2.example.test/receive" } }
  - { name: sandbox-sink, kind: sandbox, sandboxToken: secret-sandbox-token }
`,
      )
      .replace('webhooks:\n', 'webhooks:\n  - { name: sandbox-hook, kind: sandbox, url: "http://127.0.0.1:9901/sandbox", contentType: application/json, signingSecret: whsec_c2FuZGJveC1zaWduaW5nLXNlY3JldA== }\n');
    const c = await orgWithKeys(env, 'Org Secrets');
    await apply(c.org, secretsFile, 'secrets');
    const rows = await env.client.execute('SELECT owner_kind, owner_id, name, value, key_id FROM config_secrets WHERE org_id = ?', [c.org]);
    // stored encrypted (docs/secrets.md): opened with the test's operator key; neither the
    // values nor their envelopes may appear in a response
    const envelopes = rows.rows.map((r) => String(r.get('value')));
    const stored = rows.rows.map((r) =>
      env.config.secrets.keyring.open({ organizationId: c.org, ownerKind: String(r.get('owner_kind')), ownerId: String(r.get('owner_id')), name: String(r.get('name')) }, storedOf(r)),
    );
    // the demo's two SFTP connections carry the stack's key file (or password, where the SFTP
    // server is one that takes a password)
    const keyPath = process.env['SFTP_PRIVATE_KEY_PATH'];
    const demoSecret = keyPath ? readFileSync(keyPath, 'utf8') : process.env['SFTP_PASSWORD']!;
    const demoKind = keyPath ? 'connection.privateKey' : 'connection.password';
    expect(rows.rows.map((r) => `${String(r.get('owner_kind'))}.${String(r.get('name'))}`).sort()).toEqual(
      [
        'connection.certificate',
        'connection.partnerCertificate',
        'connection.passphrase',
        'connection.passphrase',
        'connection.privateKey',
        'connection.privateKey',
        'connection.sandboxToken',
        'webhook.signingSecret',
        'webhook.signingSecret',
        'webhook.signingSecret',
        demoKind,
        demoKind,
      ].sort(),
    );
    const written = [demoSecret, 'SECRETKEYMATERIAL', 'secret-sftp-passphrase', 'secret-as2-private-key', 'secret-as2-passphrase', 'secret-as2-certificate', 'secret-as2-partner-certificate', 'secret-sandbox-token', 'whsec_ZGVtby13ZWJob29rLXNpZ25pbmctc2VjcmV0', 'c2FuZGJveC1zaWduaW5nLXNlY3JldA'];
    for (const w of written) expect(stored.some((s) => s.includes(w)), w).toBe(true);
    const keyRows = await env.client.execute('SELECT key_hash FROM api_keys WHERE org_id = ?', [c.org]);
    const needles = [...stored, ...envelopes, ...written, c.standard, c.readOnly, c.sandbox, ...keyRows.rows.map((r) => String(r.get('key_hash')))];

    const doc = (await get('/platform/openapi.json', c.standard)).body;
    const rowsC = await rowsOf(c.standard);
    expect(rowsC['connections']!.map((x) => x.kind).sort()).toEqual(['as2', 'as2', 'sandbox', 'sftp', 'sftp', 'sftp']);
    const bodies: string[] = [JSON.stringify(doc)];
    let count = 0;
    for (const template of Object.keys(doc.paths).filter((p) => doc.paths[p].get)) {
      for (const url of expand(template, rowsC)) {
        for (const u of template.endsWith('/guide') ? [url, `${url}?variant=markdown`] : [url]) {
          const r = await get(u, c.standard);
          expect(r.status, u).toBe(200);
          bodies.push(r.text, JSON.stringify(Object.fromEntries(r.headers)));
          count += 1;
        }
      }
    }
    expect(count).toBeGreaterThanOrEqual(40);
    const all = bodies.join('\n');
    for (const s of needles) expect(all.includes(s), `a response contains ${s.slice(0, 12)}…`).toBe(false);
    expect(all).not.toMatch(/whsec_|PRIVATE KEY|"(password|privateKey|passphrase|sandboxToken|signingSecret)"/);
  });
});
