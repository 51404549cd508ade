/**
 * Configuration records → response shapes of the contract ("Configuration resources") and the
 * partner endpoints of DESIGN §3. Only fields named here leave the service: node
 * configuration, fingerprints and implementation structures stay inside, and records carry no
 * secret to begin with.
 */
import type {
  ConnectionRecord,
  EnvelopeRecord,
  FlowRecord,
  ImplementationRecord,
  MappingRecord,
  MappingVersionRecord,
  PartnerRecord,
  SourceRecord,
  WebhookRecord,
} from '../../domain/configuration.ts';

export interface Pointer {
  id: string;
  name: string;
}
export interface PartnerPointer {
  id: string;
  key: string;
  name: string;
}

export const pointer = (r: { id: string; name: string }): Pointer => ({ id: r.id, name: r.name });
export const partnerPointer = (p: PartnerRecord): PartnerPointer => ({ id: p.id, key: p.key, name: p.name });

export function connectionRow(c: ConnectionRecord, partners: readonly PartnerRecord[]): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    kind: c.kind,
    host: c.host,
    provisioned: c.provisioned,
    as2Ready: c.kind === 'as2' && c.as2?.setupStatus === 'ready',
    partnerCount: partners.filter((p) => p.connectionId === c.id).length,
  };
}

export function connectionShow(c: ConnectionRecord, partners: readonly PartnerRecord[]): Record<string, unknown> {
  return {
    ...connectionRow(c, partners),
    port: c.port,
    username: c.username,
    inboundDirectory: c.inboundDirectory,
    outboundDirectory: c.outboundDirectory,
    tags: c.tags,
    partners: partners.filter((p) => p.connectionId === c.id).map(partnerPointer),
    as2: c.as2 ? { localId: c.as2.localId, partnerId: c.as2.partnerId, url: c.as2.url, setupStatus: c.as2.setupStatus } : null,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function envelopeRow(e: EnvelopeRecord): Record<string, unknown> {
  return {
    id: e.id,
    name: e.name,
    external: e.external,
    interchangeExtid: e.interchangeExtid,
    interchangeExtidQualifier: e.interchangeExtidQualifier,
    applicationCode: e.applicationCode,
  };
}

export function envelopeShow(e: EnvelopeRecord, partners: readonly PartnerRecord[]): Record<string, unknown> {
  const uses: Record<string, unknown>[] = [];
  for (const p of partners) {
    if (p.internalEnvelopeId === e.id) uses.push({ ...partnerPointer(p), role: 'internal' });
    if (p.externalEnvelopeId === e.id) uses.push({ ...partnerPointer(p), role: 'external' });
  }
  return {
    ...envelopeRow(e),
    segmentSeparator: e.segmentSeparator,
    elementSeparator: e.elementSeparator,
    componentSeparator: e.componentSeparator,
    partners: uses,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

export function webhookRow(w: WebhookRecord): Record<string, unknown> {
  return { id: w.id, name: w.name, kind: w.kind, url: w.url };
}

export function webhookShow(w: WebhookRecord, partners: readonly PartnerRecord[]): Record<string, unknown> {
  const uses: Record<string, unknown>[] = [];
  for (const p of partners) {
    for (const role of ['inbound', 'outbound', 'error'] as const) {
      if (p.webhooks[role] === w.id) uses.push({ ...partnerPointer(p), role });
    }
  }
  return { ...webhookRow(w), contentType: w.contentType, partners: uses, createdAt: w.createdAt, updatedAt: w.updatedAt };
}

export function flowRow(f: FlowRecord, partner: PartnerRecord | undefined): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    direction: f.direction,
    status: f.status,
    frequency: f.frequency,
    versionNumber: f.versionNumber,
    usesSandbox: f.usesSandbox,
    partner: partner ? partnerPointer(partner) : null,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

export function flowShow(f: FlowRecord, partner: PartnerRecord | undefined): Record<string, unknown> {
  return {
    ...flowRow(f, partner),
    nodes: f.nodes.map((n) => ({ id: n.id, name: n.name, kind: n.kind, service: n.service })),
    connections: f.connections.map((c) => ({ from: c.from, to: c.to })),
  };
}

export function mappingVersionRow(v: MappingVersionRecord): Record<string, unknown> {
  return { versionNumber: v.versionNumber, note: v.note, createdAt: v.createdAt, createdBy: { name: v.createdBy.name } };
}

export function mappingVersionShow(v: MappingVersionRecord): Record<string, unknown> {
  return {
    versionNumber: v.versionNumber,
    transformation: v.transformation,
    placeholders: v.placeholders.map((p) => ({ value: p.value, reason: p.reason, position: p.position, line: p.line, column: p.column })),
    note: v.note,
    createdAt: v.createdAt,
    createdBy: { name: v.createdBy.name },
  };
}

export interface MappingContext {
  readonly implementations: readonly ImplementationRecord[];
  readonly sources: readonly SourceRecord[];
  readonly partners: readonly PartnerRecord[];
  readonly mappings: readonly MappingRecord[];
}

function find<R extends { id: string }>(list: readonly R[], id: string | null): R | undefined {
  return id === null ? undefined : list.find((r) => r.id === id);
}

export function mappingRow(m: MappingRecord, current: MappingVersionRecord | null, ctx: MappingContext): Record<string, unknown> {
  const impl = find(ctx.implementations, m.implementationId);
  const source = find(ctx.sources, m.sourceId);
  return {
    id: m.id,
    name: m.name,
    direction: m.direction,
    implementation: impl ? pointer(impl) : null,
    source: source ? pointer(source) : null,
    currentVersion: m.currentVersion,
    placeholderCount: current?.placeholders.length ?? 0,
    partners: ctx.partners.filter((p) => p.transactionSetSettings.some((s) => s.mappingId === m.id)).map((p) => p.key),
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

export function mappingShow(m: MappingRecord, current: MappingVersionRecord | null, ctx: MappingContext): Record<string, unknown> {
  const source = find(ctx.sources, m.sourceId);
  return {
    ...mappingRow(m, current, ctx),
    description: m.description,
    tags: m.tags,
    source: source ? sourceShow(source, ctx.mappings) : null,
    current: current ? mappingVersionShow(current) : null,
  };
}

export function implementationRow(i: ImplementationRecord, all: readonly ImplementationRecord[]): Record<string, unknown> {
  const from = find(all, i.sourceImplementationId);
  return {
    id: i.id,
    name: i.name,
    version: i.version,
    status: i.status,
    transactionSet: { identifier: i.transactionSet.identifier, release: i.transactionSet.release },
    sourceImplementation: from ? pointer(from) : null,
    segmentUseCount: i.segmentUseCount,
    loopUseCount: i.loopUseCount,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

export function implementationShow(i: ImplementationRecord, ctx: MappingContext): Record<string, unknown> {
  return {
    ...implementationRow(i, ctx.implementations),
    description: i.description,
    tags: i.tags,
    mappings: ctx.mappings.filter((m) => m.implementationId === i.id).map(pointer),
    partners: ctx.partners.filter((p) => p.transactionSetSettings.some((s) => s.implementationId === i.id && s.mappingId === null)).map(partnerPointer),
  };
}

export function sourceRow(s: SourceRecord, mappings: readonly MappingRecord[]): Record<string, unknown> {
  return { id: s.id, name: s.name, mappings: mappings.filter((m) => m.sourceId === s.id).map(pointer) };
}

export function sourceShow(s: SourceRecord, mappings: readonly MappingRecord[]): Record<string, unknown> {
  return { ...sourceRow(s, mappings), sample: s.sample, semantics: s.semantics, createdAt: s.createdAt, updatedAt: s.updatedAt };
}

export function partnerRow(p: PartnerRecord): Record<string, unknown> {
  return {
    id: p.id,
    key: p.key,
    name: p.name,
    deliveryMethod: p.deliveryMethod,
    generateAcknowledgments: p.generateAcknowledgments,
    trackAcknowledgments: p.trackAcknowledgments,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export interface PartnerContext {
  readonly connections: readonly ConnectionRecord[];
  readonly envelopes: readonly EnvelopeRecord[];
  readonly webhooks: readonly WebhookRecord[];
  readonly implementations: readonly ImplementationRecord[];
  readonly mappings: readonly MappingRecord[];
}

export function partnerShow(p: PartnerRecord, ctx: PartnerContext): Record<string, unknown> {
  const ptr = (r: { id: string; name: string } | undefined): Pointer | null => (r ? pointer(r) : null);
  return {
    ...partnerRow(p),
    transactionSetSettings: p.transactionSetSettings.map((s) => ({
      transactionSetIdentifier: s.transactionSetIdentifier,
      release: s.release,
      direction: s.direction,
      usageIndicator: s.usageIndicator,
      implementation: ptr(find(ctx.implementations, s.implementationId)),
      mapping: ptr(find(ctx.mappings, s.mappingId)),
    })),
    envelopes: { internal: ptr(find(ctx.envelopes, p.internalEnvelopeId)), external: ptr(find(ctx.envelopes, p.externalEnvelopeId)) },
    connection: ptr(find(ctx.connections, p.connectionId)),
    webhooks: {
      inbound: ptr(find(ctx.webhooks, p.webhooks.inbound)),
      outbound: ptr(find(ctx.webhooks, p.webhooks.outbound)),
      error: ptr(find(ctx.webhooks, p.webhooks.error)),
    },
  };
}
