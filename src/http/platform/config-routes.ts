/**
 * Configuration endpoints (contract "Configuration (read-only, preview)") and the partner list
 * and show of DESIGN §3. Read only: configuration is written by `tdx config apply`. Every read
 * is scoped to the key's organization; an id of another organization, or a malformed one,
 * answers 404 `not_found` with `reason` naming the resource, exactly like an absent one.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ConfigReadStore } from '../../domain/config-ports.ts';
import type { RecordByKind, RecordKind } from '../../domain/config-plan.ts';
import type { Direction, MappingVersionRecord } from '../../domain/configuration.ts';
import { isWellFormedId } from '../../domain/ids.ts';
import type { GuideVariant, ImplementationEngine } from '../../domain/implementation-engine.ts';
import { mappingOutputSchema } from '../../domain/mapping-schema.ts';
import { errors } from '../../errors.ts';
import { requireAccess } from '../middleware/auth.ts';
import type { CursorCodec, CursorScope } from '../middleware/cursor.ts';
import { authOf } from '../middleware/state.ts';
import * as views from './config-views.ts';
import { configOperations as ops, configSchemas } from './config-operations.ts';
import { documentOperation } from './openapi.ts';

export interface ConfigRouteDeps {
  readonly store: ConfigReadStore;
  readonly engine: ImplementationEngine;
  readonly cursors: CursorCodec;
}

const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const idKey = (r: { id: string }): string => r.id;

export function registerConfigRoutes(router: Router, deps: ConfigRouteDeps): void {
  const { store, cursors } = deps;
  const access = requireAccess('configuration');

  async function all<K extends RecordKind>(org: string, kind: K): Promise<RecordByKind[K][]> {
    return (await store.list(org, kind)).sort(byId);
  }

  async function one<K extends RecordKind>(ctx: Context & { params: Record<string, string | undefined> }, kind: K, reason: string): Promise<RecordByKind[K]> {
    const id = ctx.params['id'] ?? '';
    const record = isWellFormedId(id) ? await store.get(authOf(ctx).organizationId, kind, id) : null;
    if (!record) throw errors.notFound(reason, `No ${reason.replace('_', ' ')} with id "${id}".`);
    return record;
  }

  /** Lists `items` (sorted by id) one page at a time under `arrayName`. */
  function respondPage<T extends { id: string }>(ctx: Context, endpoint: string, filters: string, arrayName: string, items: readonly T[], limit: number, cursor: string | undefined, present: (t: T) => unknown): void {
    const scope: CursorScope = { endpoint, organizationId: authOf(ctx).organizationId, filters };
    const page = cursors.page(scope, items, idKey, limit, cursor);
    ctx.body = { [arrayName]: page.items.map(present), pagination: page.pagination };
  }

  for (const op of Object.values(ops)) documentOperation(router, op, configSchemas);

  // --- connections ---
  router.get('/platform/connections', access, async (ctx) => {
    const { limit, cursor } = ops.listConnections.parseQuery(ctx.query);
    const org = authOf(ctx).organizationId;
    const [items, partners] = await Promise.all([all(org, 'connection'), all(org, 'partner')]);
    respondPage(ctx, 'connections', '', 'connections', items, limit, cursor, (c) => views.connectionRow(c, partners));
  });
  router.get('/platform/connections/:id', access, async (ctx) => {
    const c = await one(ctx, 'connection', 'connection');
    ctx.body = views.connectionShow(c, await all(authOf(ctx).organizationId, 'partner'));
  });

  // --- envelopes ---
  router.get('/platform/envelopes', access, async (ctx) => {
    const { limit, cursor } = ops.listEnvelopes.parseQuery(ctx.query);
    respondPage(ctx, 'envelopes', '', 'envelopes', await all(authOf(ctx).organizationId, 'envelope'), limit, cursor, views.envelopeRow);
  });
  router.get('/platform/envelopes/:id', access, async (ctx) => {
    const e = await one(ctx, 'envelope', 'envelope');
    ctx.body = views.envelopeShow(e, await all(authOf(ctx).organizationId, 'partner'));
  });

  // --- webhooks ---
  router.get('/platform/webhooks', access, async (ctx) => {
    const { limit, cursor } = ops.listWebhooks.parseQuery(ctx.query);
    respondPage(ctx, 'webhooks', '', 'webhooks', await all(authOf(ctx).organizationId, 'webhook'), limit, cursor, views.webhookRow);
  });
  router.get('/platform/webhooks/:id', access, async (ctx) => {
    const w = await one(ctx, 'webhook', 'webhook');
    ctx.body = views.webhookShow(w, await all(authOf(ctx).organizationId, 'partner'));
  });

  // --- flows (current versions only in the list; any version by id) ---
  router.get('/platform/flows', access, async (ctx) => {
    const { partner: partnerKey, direction, status, limit, cursor } = ops.listFlows.parseQuery(ctx.query);
    const org = authOf(ctx).organizationId;
    const filters = JSON.stringify([partnerKey?.toLowerCase() ?? null, direction ?? null, status ?? null]);
    const partnerId = partnerKey === undefined ? undefined : await store.partnerIdByKey(org, partnerKey);
    const [flows, partners] = await Promise.all([partnerId === null ? Promise.resolve([]) : all(org, 'flow'), all(org, 'partner')]);
    const items = flows.filter((f) => f.current && (partnerId === undefined || f.partnerId === partnerId) && (!direction || f.direction === direction) && (!status || f.status === status));
    respondPage(ctx, 'flows', filters, 'flows', items, limit, cursor, (f) => views.flowRow(f, partners.find((p) => p.id === f.partnerId)));
  });
  router.get('/platform/flows/:id', access, async (ctx) => {
    const f = await one(ctx, 'flow', 'flow');
    const partner = await store.get(authOf(ctx).organizationId, 'partner', f.partnerId);
    ctx.body = views.flowShow(f, partner ?? undefined);
  });

  // --- mappings and versions ---
  async function mappingContext(org: string): Promise<views.MappingContext> {
    const [implementations, sources, partners, mappings] = await Promise.all([all(org, 'implementation'), all(org, 'source'), all(org, 'partner'), all(org, 'mapping')]);
    return { implementations, sources, partners, mappings };
  }
  async function currentVersion(org: string, m: RecordByKind['mapping']): Promise<MappingVersionRecord | null> {
    return store.mappingVersion(org, m.id, m.currentVersion);
  }
  router.get('/platform/mappings', access, async (ctx) => {
    const { direction, partner: partnerKey, limit, cursor } = ops.listMappings.parseQuery(ctx.query);
    const org = authOf(ctx).organizationId;
    const mc = await mappingContext(org);
    const partner = partnerKey === undefined ? undefined : (mc.partners.find((p) => p.key.toLowerCase() === partnerKey.toLowerCase()) ?? null);
    const items = mc.mappings.filter(
      (m) => (!direction || m.direction === direction) && (partner === undefined || (partner !== null && partner.transactionSetSettings.some((s) => s.mappingId === m.id))),
    );
    const filters = JSON.stringify([direction ?? null, partnerKey?.toLowerCase() ?? null]);
    const scope: CursorScope = { endpoint: 'mappings', organizationId: org, filters };
    const page = cursors.page(scope, items, idKey, limit, cursor);
    const currents = await Promise.all(page.items.map((m) => currentVersion(org, m)));
    ctx.body = { mappings: page.items.map((m, i) => views.mappingRow(m, currents[i] ?? null, mc)), pagination: page.pagination };
  });
  router.get('/platform/mappings/:id', access, async (ctx) => {
    const m = await one(ctx, 'mapping', 'mapping');
    const org = authOf(ctx).organizationId;
    const [mc, current] = await Promise.all([mappingContext(org), currentVersion(org, m)]);
    ctx.body = views.mappingShow(m, current, mc);
  });
  router.get('/platform/mappings/:id/versions', access, async (ctx) => {
    const { limit, cursor } = ops.listMappingVersions.parseQuery(ctx.query);
    const m = await one(ctx, 'mapping', 'mapping');
    const org = authOf(ctx).organizationId;
    const versions = (await store.mappingVersions(org, m.id)).sort((a, b) => a.versionNumber - b.versionNumber);
    const scope: CursorScope = { endpoint: `mappings/${m.id}/versions`, organizationId: org, filters: '' };
    const page = cursors.page(scope, versions, (v) => String(v.versionNumber).padStart(10, '0'), limit, cursor);
    ctx.body = { versions: page.items.map(views.mappingVersionRow), pagination: page.pagination };
  });
  router.get('/platform/mappings/:id/versions/:number', access, async (ctx) => {
    const m = await one(ctx, 'mapping', 'mapping');
    const raw = ctx.params['number'] ?? '';
    const n = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    const v = Number.isFinite(n) ? await store.mappingVersion(authOf(ctx).organizationId, m.id, n) : null;
    if (!v) throw errors.notFound('mapping_version', `Mapping ${m.id} has no version "${raw}".`);
    ctx.body = views.mappingVersionShow(v);
  });

  // --- implementations ---
  router.get('/platform/implementations', access, async (ctx) => {
    const { transactionSetIdentifier: set, limit, cursor } = ops.listImplementations.parseQuery(ctx.query);
    const all_ = await all(authOf(ctx).organizationId, 'implementation');
    const items = set === undefined ? all_ : all_.filter((i) => i.transactionSet.identifier === set);
    respondPage(ctx, 'implementations', JSON.stringify([set ?? null]), 'implementations', items, limit, cursor, (i) => views.implementationRow(i, all_));
  });
  router.get('/platform/implementations/:id', access, async (ctx) => {
    const i = await one(ctx, 'implementation', 'implementation');
    ctx.body = views.implementationShow(i, await mappingContext(authOf(ctx).organizationId));
  });
  router.get('/platform/implementations/:id/schema', access, async (ctx) => {
    const i = await one(ctx, 'implementation', 'implementation');
    const org = authOf(ctx).organizationId;
    const [mappings, partners] = await Promise.all([all(org, 'mapping'), all(org, 'partner')]);
    // the shape the mapping targeting the implementation must produce (src/domain/mapping-schema.ts),
    // the same the mapping node validates against
    const mapping = mappings.find((m) => m.implementationId === i.id);
    const direction: Direction = mapping?.direction ?? partners.flatMap((p) => p.transactionSetSettings).find((s) => s.implementationId === i.id)?.direction ?? 'inbound';
    const source = mapping?.sourceId ? (await all(org, 'source')).find((s) => s.id === mapping.sourceId) ?? null : null;
    ctx.type = 'application/schema+json';
    ctx.body = mappingOutputSchema(deps.engine, { direction, implementation: i, source });
  });
  router.get('/platform/implementations/:id/guide', access, async (ctx) => {
    const variant: GuideVariant = ops.implementationGuide.parseQuery(ctx.query).variant ?? 'console';
    const i = await one(ctx, 'implementation', 'implementation');
    ctx.type = variant === 'markdown' ? 'text/markdown; charset=utf-8' : 'text/plain; charset=utf-8';
    ctx.body = deps.engine.guide(i, variant);
  });
  router.get('/platform/implementations/:id/export', access, async (ctx) => {
    const i = await one(ctx, 'implementation', 'implementation');
    ctx.body = deps.engine.exportDocument(i);
  });

  // --- sources ---
  router.get('/platform/sources', access, async (ctx) => {
    const { limit, cursor } = ops.listSources.parseQuery(ctx.query);
    const org = authOf(ctx).organizationId;
    const [items, mappings] = await Promise.all([all(org, 'source'), all(org, 'mapping')]);
    respondPage(ctx, 'sources', '', 'sources', items, limit, cursor, (s) => views.sourceRow(s, mappings));
  });
  router.get('/platform/sources/:id', access, async (ctx) => {
    const s = await one(ctx, 'source', 'source');
    ctx.body = views.sourceShow(s, await all(authOf(ctx).organizationId, 'mapping'));
  });

  // --- partners (DESIGN §3) ---
  const partnerAccess = requireAccess('partners');
  router.get('/platform/partners', partnerAccess, async (ctx) => {
    const { limit, cursor } = ops.listPartners.parseQuery(ctx.query);
    respondPage(ctx, 'partners', '', 'partners', await all(authOf(ctx).organizationId, 'partner'), limit, cursor, views.partnerRow);
  });
  router.get('/platform/partners/:key', partnerAccess, async (ctx) => {
    const key = ctx.params['key'] ?? '';
    const org = authOf(ctx).organizationId;
    const id = await store.partnerIdByKey(org, key);
    const p = id === null ? null : await store.get(org, 'partner', id);
    if (!p) throw errors.notFound('partner', `No partner with key "${key}".`);
    const [connections, envelopes, webhooks, implementations, mappings] = await Promise.all([
      all(org, 'connection'),
      all(org, 'envelope'),
      all(org, 'webhook'),
      all(org, 'implementation'),
      all(org, 'mapping'),
    ]);
    ctx.body = views.partnerShow(p, { connections, envelopes, webhooks, implementations, mappings });
  });
}
