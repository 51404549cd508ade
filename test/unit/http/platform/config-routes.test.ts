/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDoc, startHarness } from './harness.ts';
import { planApply } from '../../../../src/domain/config-plan.ts';
import { EMPTY_STATE } from '../../../../src/domain/configuration.ts';
import { newId } from '../../../../src/domain/ids.ts';
import { x12ImplementationEngine } from '../../../../src/domain/x12-implementation-engine.ts';

let h: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

const LISTS = ['connections', 'envelopes', 'webhooks', 'flows', 'mappings', 'implementations', 'sources', 'partners'] as const;

describe('authentication and key kinds', () => {
  it('answers 401 without a key, with a malformed one, an unknown one and a revoked one', async () => {
    for (const key of [null, 'nope', 'tdx_' + 'A'.repeat(43)]) {
      const r = await h.get('/platform/connections', key);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    }
    const plain = h.orgs.add(h.orgA, 'standard');
    expect((await h.get('/platform/connections', plain)).status).toBe(200);
    const id = [...h.orgs.keys.values()].find((k) => k.rec.prefix === plain.slice(0, 10))!.rec.id;
    await h.orgs.revokeKey(h.orgA, id, new Date().toISOString());
    expect((await h.get('/platform/connections', plain)).status).toBe(401);
    const r = await h.get('/platform/connections', null, { authorization: `Bearer ${h.keys.standard}` });
    expect(r.status).toBe(401);
  });

  it('lets standard and read-only keys read configuration and refuses sandbox keys with 403', async () => {
    for (const list of LISTS) {
      expect((await h.get(`/platform/${list}`, h.keys.standard)).status).toBe(200);
      expect((await h.get(`/platform/${list}`, h.keys.readOnly)).status).toBe(200);
      const s = await h.get(`/platform/${list}`, h.keys.sandbox);
      expect(s.status).toBe(403);
      expect(s.body.error.code).toBe('forbidden');
    }
    expect((await h.get('/platform/openapi.json', h.keys.sandbox)).status).toBe(200);
  });
});

describe('configuration lists and shows', () => {
  it('lists each resource under its array name with pagination', async () => {
    const counts: Record<string, number> = {};
    for (const list of LISTS) {
      const r = await h.get(`/platform/${list}`);
      expect(r.body.pagination).toEqual({ hasMore: false, nextCursor: null });
      counts[list] = r.body[list].length;
    }
    expect(counts).toEqual({ connections: 3, envelopes: 4, webhooks: 2, flows: 6, mappings: 2, implementations: 2, sources: 2, partners: 3 });
  });

  it('shows a connection with list fields, details and partner pointers', async () => {
    const list = (await h.get('/platform/connections')).body.connections;
    const acme = list.find((c: any) => c.name === 'acme-sftp');
    expect(acme).toEqual({ id: acme.id, name: 'acme-sftp', kind: 'sftp', host: '127.0.0.1', provisioned: true, as2Ready: false, partnerCount: 1 });
    const show = (await h.get(`/platform/connections/${acme.id}`)).body;
    expect(show.partners).toEqual([{ id: expect.any(String), key: 'ACME', name: 'Acme Corporation' }]);
    expect(show).toMatchObject({ port: 2222, username: 'tdx', inboundDirectory: 'acme/outbox', outboundDirectory: 'acme/inbox', tags: ['demo', 'acme'], as2: null });
    expect(show).not.toHaveProperty('password');
  });

  it('shows envelopes and webhooks with partner roles', async () => {
    const envs = (await h.get('/platform/envelopes')).body.envelopes;
    const internal = envs.find((e: any) => e.name === 'demo-internal');
    const env = (await h.get(`/platform/envelopes/${internal.id}`)).body;
    expect(env.partners.map((p: any) => [p.key, p.role])).toEqual([
      ['ACME', 'internal'],
      ['GLOBEX', 'internal'],
      ['GADGET', 'internal'],
    ]);
    const hooks = (await h.get('/platform/webhooks')).body.webhooks;
    const notif = hooks.find((w: any) => w.name === 'erp-notifications');
    const w = (await h.get(`/platform/webhooks/${notif.id}`)).body;
    expect(w.partners.map((p: any) => [p.key, p.role])).toEqual([
      ['ACME', 'outbound'],
      ['ACME', 'error'],
      ['GLOBEX', 'error'],
      ['GADGET', 'error'],
    ]);
    expect(w.contentType).toBe('application/json');
  });

  it('filters flows by partner in any case, direction and status', async () => {
    const byAcme = (await h.get('/platform/flows?partner=acme')).body.flows;
    expect(byAcme.map((f: any) => f.direction).sort()).toEqual(['inbound', 'outbound']);
    expect(byAcme[0].partner).toEqual({ id: expect.any(String), key: 'ACME', name: 'Acme Corporation' });
    expect((await h.get('/platform/flows?partner=NOBODY')).body).toEqual({ flows: [], pagination: { hasMore: false, nextCursor: null } });
    expect((await h.get('/platform/flows?direction=inbound')).body.flows).toHaveLength(3);
    expect((await h.get('/platform/flows?status=pending')).body.flows).toHaveLength(0);
    expect((await h.get('/platform/flows?status=active&direction=outbound&partner=Globex')).body.flows).toHaveLength(1);
    const flow = (await h.get(`/platform/flows/${byAcme[0].id}`)).body;
    expect(flow.nodes[0]).toEqual({ id: expect.any(String), name: expect.any(String), kind: 'input', service: expect.any(String) });
    expect(flow.nodes[0]).not.toHaveProperty('config');
    expect(flow.connections.length).toBeGreaterThan(3);
  });

  it('rejects values outside each vocabulary with 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['/platform/flows?direction=sideways', 'direction'],
      ['/platform/flows?status=broken', 'status'],
      ['/platform/mappings?direction=up', 'direction'],
      ['/platform/implementations?transactionSetIdentifier=85', 'transactionSetIdentifier'],
      ['/platform/connections?limit=0', 'limit'],
      ['/platform/connections?limit=101', 'limit'],
      ['/platform/connections?limit=ten', 'limit'],
      ['/platform/connections?colour=red', 'colour'],
      ['/platform/flows?direction=inbound&direction=outbound', 'direction'],
      ['/platform/connections?cursor=abc', 'cursor'],
    ];
    for (const [path, param] of cases) {
      const r = await h.get(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error.code).toBe('invalid_parameter');
      expect(r.body.error.message).toContain(`"${param}"`);
    }
    const g = await h.get(`/platform/implementations/${(await h.get('/platform/implementations')).body.implementations[0].id}/guide?variant=json`);
    expect(g.status).toBe(400);
    expect(g.body.error.message).toContain('"variant"');
  });

  it('filters mappings by direction and partner, and implementations by set', async () => {
    expect((await h.get('/platform/mappings?direction=inbound')).body.mappings.map((m: any) => m.name)).toEqual(['demo-850-to-erp']);
    expect((await h.get('/platform/mappings?partner=globex')).body.mappings.map((m: any) => m.name)).toEqual(['demo-erp-to-810']);
    expect((await h.get('/platform/mappings?partner=unknown')).body.mappings).toEqual([]);
    expect((await h.get('/platform/implementations?transactionSetIdentifier=810')).body.implementations.map((i: any) => i.name)).toEqual(['demo-810-outbound']);
    expect((await h.get('/platform/implementations?transactionSetIdentifier=999')).body.implementations).toEqual([]);
  });

  it('shows mappings with current version, versions oldest first and one version', async () => {
    const m = (await h.get('/platform/mappings?direction=outbound')).body.mappings[0];
    expect(m).toMatchObject({ currentVersion: 1, placeholderCount: 0, partners: ['ACME', 'GLOBEX', 'GADGET'], implementation: { id: expect.any(String), name: 'demo-810-outbound' } });
    const show = (await h.get(`/platform/mappings/${m.id}`)).body;
    expect(show.current.versionNumber).toBe(1);
    expect(show.current.placeholders).toEqual([]);
    expect(show.source.sample.invoiceNumber).toBe('INV-2001');
    const versions = (await h.get(`/platform/mappings/${m.id}/versions`)).body;
    expect(versions.versions).toEqual([{ versionNumber: 1, note: 'first version', createdAt: expect.any(String), createdBy: { name: 'unit' } }]);
    expect((await h.get(`/platform/mappings/${m.id}/versions/1`)).body).toEqual(show.current);
    const missing = await h.get(`/platform/mappings/${m.id}/versions/2`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.reason).toBe('mapping_version');
    expect((await h.get(`/platform/mappings/${m.id}/versions/x`)).body.error.reason).toBe('mapping_version');
  });

  it('counts and lists the placeholders of a mapping version', async () => {
    const doc = demoDoc();
    doc.mappings![1]!.transformation = '{\n  "heading": { "beginning_segment_for_invoice_BIG": { "date_01": invoiceDate, "invoice_number_02": "TODO: invoice number is not in the source" } }\n}';
    const org = newId();
    h.config.states.set(org, planApply(doc, EMPTY_STATE, { now: new Date().toISOString(), newId: () => newId(), author: 'unit', newSigningSecret: () => 'whsec_eA==', engine: x12ImplementationEngine }).state);
    const key = h.orgs.add(org, 'standard');
    const m = (await h.get('/platform/mappings?direction=outbound', key)).body.mappings[0];
    expect(m.placeholderCount).toBe(1);
    const at = doc.mappings![1]!.transformation.indexOf('"TODO');
    const column = at - doc.mappings![1]!.transformation.lastIndexOf('\n', at);
    expect((await h.get(`/platform/mappings/${m.id}`, key)).body.current.placeholders).toEqual([
      { value: 'TODO: invoice number is not in the source', reason: 'invoice number is not in the source', position: at, line: 2, column },
    ]);
  });

  it('serves implementation show, schema, guide variants and export', async () => {
    const impl = (await h.get('/platform/implementations?transactionSetIdentifier=850')).body.implementations[0];
    expect(impl).toMatchObject({ version: '1.0', status: 'published', transactionSet: { identifier: '850', release: '004010' }, sourceImplementation: null });
    expect(impl.segmentUseCount).toBeGreaterThan(10);
    expect(impl.loopUseCount).toBeGreaterThan(1);
    const show = (await h.get(`/platform/implementations/${impl.id}`)).body;
    expect(show.mappings.map((m: any) => m.name)).toEqual(['demo-850-to-erp']);
    expect(show.partners.map((p: any) => p.key)).toEqual(['GLOBEX']);
    expect(show).not.toHaveProperty('definition');
    const schema = await h.get(`/platform/implementations/${impl.id}/schema`);
    expect(schema.body.$schema).toContain('2020-12');
    expect(schema.headers.get('content-type')).toMatch(/json/);
    // inbound, mapped from the source erp-purchase-order: the canonical shape its sample shows
    expect(schema.body.properties.orderDate).toEqual({ type: 'string', format: 'date' });
    expect(schema.body.properties.lines.items.properties.quantity).toEqual({ type: 'number' });
    // outbound: the partner's document
    const impl810 = (await h.get('/platform/implementations?transactionSetIdentifier=810')).body.implementations[0];
    const schema810 = (await h.get(`/platform/implementations/${impl810.id}/schema`)).body;
    expect(schema810.required).toEqual(['heading', 'summary']);
    expect(schema810.properties.heading.required).toEqual(['beginning_segment_for_invoice_BIG']);
    const console_ = await h.get(`/platform/implementations/${impl.id}/guide`);
    expect(console_.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(console_.text).toContain('BEG01');
    expect(console_.text).toContain('NE, SA');
    const md = await h.get(`/platform/implementations/${impl.id}/guide?variant=markdown`);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.text).toMatch(/^# /);
    const exp = (await h.get(`/platform/implementations/${impl.id}/export`)).body;
    expect(exp.format).toBe('tdx.x12.implementation');
    expect(exp.name).toBe('demo-850-inbound');
    expect(JSON.stringify(exp)).not.toContain(impl.id);
  });

  it('shows partners by key in any case and sources', async () => {
    const p = (await h.get('/platform/partners/acme')).body;
    expect(p).toMatchObject({ key: 'ACME', deliveryMethod: 'webhook', connection: { name: 'acme-sftp' }, envelopes: { internal: { name: 'demo-internal' }, external: { name: 'acme-external' } } });
    expect(p.transactionSetSettings[0]).toMatchObject({ transactionSetIdentifier: '850', direction: 'inbound', usageIndicator: 'P', implementation: { name: 'demo-850-inbound' }, mapping: { name: 'demo-850-to-erp' } });
    const nf = await h.get('/platform/partners/nobody');
    expect(nf.status).toBe(404);
    expect(nf.body.error.reason).toBe('partner');
    const s = (await h.get('/platform/sources')).body.sources[0];
    expect(s.mappings).toHaveLength(1);
    expect((await h.get(`/platform/sources/${s.id}`)).body.sample).toBeDefined();
  });

  it("answers another organization's ids and malformed ids with 404 naming the resource", async () => {
    const pairs: [string, string][] = [
      ['connections', 'connection'],
      ['envelopes', 'envelope'],
      ['webhooks', 'webhook'],
      ['flows', 'flow'],
      ['mappings', 'mapping'],
      ['implementations', 'implementation'],
      ['sources', 'source'],
    ];
    for (const [list, reason] of pairs) {
      const foreign = (await h.get(`/platform/${list}`, h.keys.otherOrg)).body[list][0].id;
      const own = await h.get(`/platform/${list}/${foreign}`);
      const absent = await h.get(`/platform/${list}/00000000-0000-7000-8000-000000000000`);
      const malformed = await h.get(`/platform/${list}/x'`);
      for (const r of [own, absent, malformed]) {
        expect(r.status).toBe(404);
        expect(r.body.error).toEqual({ code: 'not_found', reason, message: expect.any(String) });
      }
      expect((await h.get(`/platform/${list}/${foreign}`, h.keys.otherOrg)).status).toBe(200);
    }
  });
});

describe('cursors', () => {
  it('pages with limit through every row once, and rejects changed, foreign and cross-endpoint cursors', async () => {
    const seen: string[] = [];
    let path = '/platform/envelopes?limit=1';
    let cursor: string | null = null;
    for (;;) {
      const r = await h.get(path);
      expect(r.status).toBe(200);
      seen.push(...r.body.envelopes.map((e: any) => e.id));
      if (!r.body.pagination.hasMore) break;
      cursor = r.body.pagination.nextCursor;
      path = `/platform/envelopes?limit=1&cursor=${encodeURIComponent(cursor!)}`;
    }
    expect(seen).toHaveLength(4);
    expect(new Set(seen).size).toBe(4);
    const first = (await h.get('/platform/envelopes?limit=1')).body.pagination.nextCursor as string;
    const [payload, mac] = first.split('.');
    const tampered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), k: '0' })).toString('base64url') + '.' + mac;
    expect((await h.get(`/platform/envelopes?cursor=${encodeURIComponent(tampered)}`)).status).toBe(400);
    expect((await h.get(`/platform/webhooks?cursor=${encodeURIComponent(first)}`)).status).toBe(400);
    expect((await h.get(`/platform/envelopes?cursor=${encodeURIComponent(first)}`, h.keys.otherOrg)).status).toBe(400);
    const flows = (await h.get('/platform/flows?limit=1&direction=inbound')).body.pagination.nextCursor as string;
    expect((await h.get(`/platform/flows?direction=outbound&cursor=${encodeURIComponent(flows)}`)).status).toBe(400);
    expect((await h.get(`/platform/flows?direction=inbound&cursor=${encodeURIComponent(flows)}`)).status).toBe(200);
  });
});

describe('secrets', () => {
  it('never returns a configured secret in any configuration response', async () => {
    const secrets = h.config.states.get(h.orgA)!.secrets.map((s) => s.value);
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    const bodies: string[] = [];
    for (const list of LISTS) {
      const r = await h.get(`/platform/${list}`);
      bodies.push(r.text);
      for (const row of r.body[list]) {
        const path = list === 'partners' ? `/platform/partners/${row.key}` : `/platform/${list}/${row.id}`;
        bodies.push((await h.get(path)).text);
        if (list === 'mappings') bodies.push((await h.get(`${path}/versions`)).text, (await h.get(`${path}/versions/1`)).text);
        if (list === 'implementations') for (const sub of ['schema', 'guide', 'export']) bodies.push((await h.get(`${path}/${sub}`)).text);
      }
    }
    const all = bodies.join('\n');
    for (const s of secrets) expect(all).not.toContain(s);
    expect(all).not.toContain('whsec_');
  });
});
