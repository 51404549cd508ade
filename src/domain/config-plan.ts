/**
 * Plans `tdx config apply`: compares a checked configuration document with the organization's
 * stored state and lists the changes that make the store match the document. Pure: ids, time,
 * the author and new secrets come from the caller. Applying the same document to the state it
 * produced plans no change at all (idempotence), which is why every comparison is over
 * canonical JSON of the record without its id and timestamps.
 *
 * - A resource is matched by name (a partner by key, case-insensitively); one absent from the
 *   document is removed, with its secrets.
 * - A mapping whose transformation changed gets version n+1 (`currentVersion` follows).
 * - A partner's flows are derived (flow-builder.ts); a changed graph (for example a changed
 *   delivery method) writes version n+1 under a new id and supersedes n (`current` false, out
 *   of the flow list, still readable by id for traces). Status, name and frequency changes
 *   update the current version in place.
 * - Secrets: a secret given in the document is stored; one left out keeps the stored value; a
 *   webhook without any gets a generated `whsec_` secret.
 * - An AS2 connection's `setupStatus` is computed from its key and certificates (given or
 *   stored) at `now` (as2-settings.ts); `provisioned` mirrors `ready`.
 */
import type {
  ConfigDocument,
  ConnectionRecord,
  EnvelopeRecord,
  FlowRecord,
  ImplementationRecord,
  MappingRecord,
  MappingVersionRecord,
  OrgConfigState,
  PartnerRecord,
  SecretOwner,
  SecretRecord,
  SourceRecord,
  WebhookRecord,
} from './configuration.ts';
import { CONNECTION_SECRET_FIELDS } from './configuration.ts';
import { as2SettingsOf, checkAs2Credentials } from './as2-settings.ts';
import { deriveFlows, materializeGraph, stableJson } from './flow-builder.ts';
import type { ImplementationEngine } from './implementation-engine.ts';
import { findPlaceholders } from './mapping-placeholders.ts';

export interface RecordByKind {
  connection: ConnectionRecord;
  envelope: EnvelopeRecord;
  webhook: WebhookRecord;
  partner: PartnerRecord;
  flow: FlowRecord;
  mapping: MappingRecord;
  implementation: ImplementationRecord;
  source: SourceRecord;
}
export type RecordKind = keyof RecordByKind;

export type ConfigChange =
  | { [K in RecordKind]: { op: 'put'; kind: K; record: RecordByKind[K] } }[RecordKind]
  | { op: 'delete'; kind: Exclude<RecordKind, 'flow'>; id: string }
  | { op: 'putMappingVersion'; version: MappingVersionRecord }
  | { op: 'putSecret'; secret: SecretRecord }
  | { op: 'deleteSecret'; ownerKind: SecretOwner; ownerId: string; name: string };

export interface PlanContext {
  /** ISO 8601 time stamped on every changed record. */
  readonly now: string;
  readonly newId: () => string;
  /** `createdBy.name` of new mapping versions. */
  readonly author: string;
  /** A fresh webhook signing secret (`whsec_<base64>`). */
  readonly newSigningSecret: () => string;
  readonly engine: ImplementationEngine;
}

export interface Plan {
  readonly state: OrgConfigState;
  readonly changes: readonly ConfigChange[];
}

type Body<R> = Omit<R, 'id' | 'createdAt' | 'updatedAt'>;

function strip<R extends { id: string; createdAt: string; updatedAt: string }>(r: R): Body<R> {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = r;
  return rest;
}

/** Plans the changes that make `current` match `doc` (which must have passed `checkDocument`). */
export function planApply(doc: ConfigDocument, current: OrgConfigState, ctx: PlanContext): Plan {
  const changes: ConfigChange[] = [];

  function reconcile<K extends Exclude<RecordKind, 'flow'>, D>(
    kind: K,
    existing: readonly RecordByKind[K][],
    desired: readonly D[],
    matchKey: (r: RecordByKind[K]) => string,
    docKey: (d: D) => string,
    build: (d: D, prev: RecordByKind[K] | undefined) => Body<RecordByKind[K]>,
  ): RecordByKind[K][] {
    const byKey = new Map(existing.map((r) => [matchKey(r), r]));
    const out: RecordByKind[K][] = [];
    const kept = new Set<string>();
    for (const d of desired) {
      const prev = byKey.get(docKey(d));
      const body = build(d, prev);
      if (prev && stableJson(strip(prev)) === stableJson(body)) {
        out.push(prev);
      } else {
        const record = { ...body, id: prev?.id ?? ctx.newId(), createdAt: prev?.createdAt ?? ctx.now, updatedAt: ctx.now } as unknown as RecordByKind[K];
        changes.push({ op: 'put', kind, record } as ConfigChange);
        out.push(record);
      }
      if (prev) kept.add(prev.id);
    }
    for (const r of existing) if (!kept.has(r.id)) changes.push({ op: 'delete', kind, id: r.id });
    return out;
  }

  const byName = <R extends { name: string; id: string }>(rs: readonly R[]): Map<string, string> => new Map(rs.map((r) => [r.name, r.id]));

  // --- secrets (computed first: provisioning depends on them) ---
  const secrets: SecretRecord[] = [];
  const secretKey = (s: { ownerKind: string; ownerId: string; name: string }): string => `${s.ownerKind}/${s.ownerId}/${s.name}`;
  const currentSecrets = new Map(current.secrets.map((s) => [secretKey(s), s]));
  const connIdByName = byName(current.connections);
  const hookIdByName = byName(current.webhooks);

  // --- sources, implementations ---
  const sources = reconcile('source', current.sources, doc.sources ?? [], (r) => r.name, (d) => d.name, (d) => ({
    name: d.name,
    sample: d.sample,
    semantics: d.semantics ?? null,
  }));
  const implIds = byName(current.implementations);
  const implementations = reconcile('implementation', current.implementations, doc.implementations ?? [], (r) => r.name, (d) => d.name, (d) => {
    const counts = ctx.engine.counts({ ...d, status: d.status ?? 'draft', description: d.description ?? null });
    return {
      name: d.name,
      version: d.version,
      status: d.status ?? 'draft',
      transactionSet: { identifier: d.transactionSet.identifier, release: d.transactionSet.release },
      sourceImplementationId: d.sourceImplementation === undefined ? null : (implIds.get(d.sourceImplementation) ?? null),
      description: d.description ?? null,
      tags: d.tags ?? [],
      segmentUseCount: counts.segmentUseCount,
      loopUseCount: counts.loopUseCount,
      definition: d.definition,
    };
  });
  // a source implementation named in the same document but new: resolve now that ids exist
  const implIdsNext = byName(implementations);
  for (let i = 0; i < implementations.length; i++) {
    const d = (doc.implementations ?? [])[i];
    const r = implementations[i];
    if (!d || !r || d.sourceImplementation === undefined) continue;
    const want = implIdsNext.get(d.sourceImplementation) ?? null;
    if (r.sourceImplementationId !== want) {
      const fixed = { ...r, sourceImplementationId: want, updatedAt: ctx.now };
      implementations[i] = fixed;
      const idx = changes.findIndex((c) => c.op === 'put' && c.kind === 'implementation' && c.record.id === r.id);
      if (idx >= 0) changes[idx] = { op: 'put', kind: 'implementation', record: fixed };
      else changes.push({ op: 'put', kind: 'implementation', record: fixed });
    }
  }

  // --- connections (with their secrets) ---
  const connections = reconcile('connection', current.connections, doc.connections ?? [], (r) => r.name, (d) => d.name, (d) => {
    const ownerId = connIdByName.get(d.name);
    // a secret given in the document wins; one left out keeps the stored value
    const secretOf = (field: (typeof CONNECTION_SECRET_FIELDS)[number]): string | undefined =>
      d[field] ?? (ownerId === undefined ? undefined : currentSecrets.get(`connection/${ownerId}/${field}`)?.value);
    const as2 =
      d.kind === 'as2' && d.as2
        ? as2SettingsOf(
            d.as2,
            checkAs2Credentials({ privateKey: secretOf('privateKey'), passphrase: secretOf('passphrase'), certificate: secretOf('certificate'), partnerCertificate: secretOf('partnerCertificate') }, new Date(ctx.now)),
          )
        : null;
    const provisioned =
      d.kind === 'sandbox' ? true : d.kind === 'as2' ? as2?.setupStatus === 'ready' : Boolean(d.host && d.username && (secretOf('password') !== undefined || secretOf('privateKey') !== undefined));
    return {
      name: d.name,
      kind: d.kind,
      host: d.host ?? null,
      port: d.port ?? (d.kind === 'sftp' ? 22 : null),
      username: d.username ?? null,
      inboundDirectory: d.inboundDirectory ?? null,
      outboundDirectory: d.outboundDirectory ?? null,
      ...(d.archiveDirectory ? { archiveDirectory: d.archiveDirectory } : {}),
      tags: d.tags ?? [],
      as2,
      ...(d.retry ? { retry: d.retry } : {}),
      ...(d.resendReplace ? { resendReplace: d.resendReplace } : {}),
      provisioned,
    };
  });
  (doc.connections ?? []).forEach((d, i) => {
    const ownerId = connections[i]?.id ?? '';
    for (const field of CONNECTION_SECRET_FIELDS) {
      const value = d[field];
      const prev = currentSecrets.get(`connection/${ownerId}/${field}`);
      if (value === undefined) {
        if (prev) secrets.push(prev);
        continue;
      }
      const s: SecretRecord = { ownerKind: 'connection', ownerId, name: field, value };
      if (prev?.value !== value) changes.push({ op: 'putSecret', secret: s });
      secrets.push(s);
    }
  });

  // --- envelopes, webhooks ---
  const envelopes = reconcile('envelope', current.envelopes, doc.envelopes ?? [], (r) => r.name, (d) => d.name, (d) => ({
    name: d.name,
    external: d.external,
    interchangeExtid: d.interchangeExtid,
    interchangeExtidQualifier: d.interchangeExtidQualifier,
    applicationCode: d.applicationCode,
    segmentSeparator: d.segmentSeparator ?? '~',
    elementSeparator: d.elementSeparator ?? '*',
    componentSeparator: d.componentSeparator ?? '>',
  }));
  const webhooks = reconcile('webhook', current.webhooks, doc.webhooks ?? [], (r) => r.name, (d) => d.name, (d) => ({
    name: d.name,
    kind: d.kind ?? 'standard',
    url: d.url,
    contentType: d.contentType ?? 'application/json',
    ...(d.retry ? { retry: d.retry } : {}),
  }));
  (doc.webhooks ?? []).forEach((d, i) => {
    const ownerId = webhooks[i]?.id ?? '';
    const prev = currentSecrets.get(`webhook/${ownerId}/signingSecret`);
    const value = d.signingSecret ?? prev?.value ?? ctx.newSigningSecret();
    const s: SecretRecord = { ownerKind: 'webhook', ownerId, name: 'signingSecret', value };
    if (prev?.value !== value) changes.push({ op: 'putSecret', secret: s });
    secrets.push(s);
  });
  void hookIdByName;
  const keptSecretKeys = new Set(secrets.map(secretKey));
  for (const s of current.secrets) {
    if (!keptSecretKeys.has(secretKey(s))) changes.push({ op: 'deleteSecret', ownerKind: s.ownerKind, ownerId: s.ownerId, name: s.name });
  }

  // --- mappings and their versions ---
  const implByName = byName(implementations);
  const sourceByName = byName(sources);
  const versions: MappingVersionRecord[] = [...current.mappingVersions];
  const currentTransformation = new Map<string, MappingVersionRecord>();
  for (const m of current.mappings) {
    const v = current.mappingVersions.find((x) => x.mappingId === m.id && x.versionNumber === m.currentVersion);
    if (v) currentTransformation.set(m.id, v);
  }
  const mappings = reconcile('mapping', current.mappings, doc.mappings ?? [], (r) => r.name, (d) => d.name, (d, prev) => {
    const prevVersion = prev ? currentTransformation.get(prev.id) : undefined;
    const changed = !prevVersion || prevVersion.transformation !== d.transformation;
    return {
      name: d.name,
      direction: d.direction,
      implementationId: implByName.get(d.implementation) ?? '',
      sourceId: d.source === undefined ? null : (sourceByName.get(d.source) ?? null),
      description: d.description ?? null,
      tags: d.tags ?? [],
      currentVersion: changed ? (prev?.currentVersion ?? 0) + 1 : (prev?.currentVersion ?? 1),
    };
  });
  (doc.mappings ?? []).forEach((d, i) => {
    const m = mappings[i];
    if (!m) return;
    const prevVersion = currentTransformation.get(m.id);
    if (prevVersion && prevVersion.transformation === d.transformation) return;
    const v: MappingVersionRecord = {
      mappingId: m.id,
      versionNumber: m.currentVersion,
      transformation: d.transformation,
      placeholders: findPlaceholders(d.transformation),
      note: d.note ?? null,
      createdAt: ctx.now,
      createdBy: { name: ctx.author },
    };
    changes.push({ op: 'putMappingVersion', version: v });
    versions.push(v);
  });
  const mappingIdsNow = new Set(mappings.map((m) => m.id));
  const mappingVersions = versions.filter((v) => mappingIdsNow.has(v.mappingId));

  // --- partners ---
  const connByName = byName(connections);
  const envByName = byName(envelopes);
  const hookByName = byName(webhooks);
  const mapByName = byName(mappings);
  const partners = reconcile('partner', current.partners, doc.partners ?? [], (r) => r.key.toLowerCase(), (d) => d.key.toLowerCase(), (d) => ({
    name: d.name,
    key: d.key,
    deliveryMethod: d.deliveryMethod,
    generateAcknowledgments: d.generateAcknowledgments ?? true,
    trackAcknowledgments: d.trackAcknowledgments ?? true,
    connectionId: d.connection === undefined ? null : (connByName.get(d.connection) ?? null),
    internalEnvelopeId: d.envelopes?.internal === undefined ? null : (envByName.get(d.envelopes.internal) ?? null),
    externalEnvelopeId: d.envelopes?.external === undefined ? null : (envByName.get(d.envelopes.external) ?? null),
    webhooks: {
      inbound: d.webhooks?.inbound === undefined ? null : (hookByName.get(d.webhooks.inbound) ?? null),
      outbound: d.webhooks?.outbound === undefined ? null : (hookByName.get(d.webhooks.outbound) ?? null),
      error: d.webhooks?.error === undefined ? null : (hookByName.get(d.webhooks.error) ?? null),
    },
    frequency: d.frequency ?? 5,
    usesSandbox: d.usesSandbox ?? false,
    transactionSetSettings: (d.transactionSets ?? []).map((s) => ({
      transactionSetIdentifier: s.transactionSetIdentifier,
      release: s.release,
      direction: s.direction,
      usageIndicator: s.usageIndicator ?? 'P',
      implementationId: implByName.get(s.implementation) ?? '',
      mappingId: s.mapping === undefined ? null : (mapByName.get(s.mapping) ?? null),
    })),
    // only when set, so partners applied before the setting existed plan no change
    ...(d.acknowledgmentDeadlineMinutes !== undefined ? { acknowledgmentDeadlineMinutes: d.acknowledgmentDeadlineMinutes } : {}),
  }));

  // --- flows ---
  const flows: FlowRecord[] = [...current.flows];
  const webhooksById = new Map(webhooks.map((w) => [w.id, w]));
  const envelopeIds = new Set(envelopes.map((e) => e.id));
  const connById = new Map(connections.map((c) => [c.id, c]));
  const replaceFlow = (record: FlowRecord): void => {
    const i = flows.findIndex((f) => f.id === record.id);
    if (i >= 0) flows[i] = record;
    else flows.push(record);
    changes.push({ op: 'put', kind: 'flow', record });
  };
  const liveKeys = new Set<string>();
  for (const p of partners) {
    const derived = deriveFlows(p, { connection: p.connectionId ? (connById.get(p.connectionId) ?? null) : null, webhooksById, envelopeIds });
    for (const d of derived) {
      liveKeys.add(`${p.id}/${d.direction}`);
      const same = flows.filter((f) => f.partnerId === p.id && f.direction === d.direction);
      const cur = same.find((f) => f.current);
      if (cur && cur.fingerprint === d.fingerprint) {
        if (cur.status !== d.status || cur.name !== d.name || cur.frequency !== d.frequency) {
          replaceFlow({ ...cur, status: d.status, name: d.name, frequency: d.frequency, updatedAt: ctx.now });
        }
        continue;
      }
      if (cur) replaceFlow({ ...cur, current: false, updatedAt: ctx.now });
      const id = ctx.newId();
      const graph = materializeGraph(id, d);
      replaceFlow({
        id,
        name: d.name,
        partnerId: p.id,
        direction: d.direction,
        status: d.status,
        frequency: d.frequency,
        versionNumber: Math.max(0, ...same.map((f) => f.versionNumber)) + 1,
        usesSandbox: d.usesSandbox,
        current: true,
        fingerprint: d.fingerprint,
        nodes: graph.nodes,
        connections: graph.connections,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      });
    }
  }
  for (const f of [...flows]) {
    if (f.current && !liveKeys.has(`${f.partnerId}/${f.direction}`)) replaceFlow({ ...f, current: false, updatedAt: ctx.now });
  }

  return {
    state: { connections, envelopes, webhooks, partners, flows, mappings, mappingVersions, implementations, sources, secrets },
    changes,
  };
}
