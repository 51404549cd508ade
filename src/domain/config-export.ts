/**
 * `tdx config export`: the stored state written back in the format `tdx config apply` reads.
 * Secrets are never exported (nor AS2 key and certificate paths); applying the export keeps the
 * stored ones (a secret left out of a file keeps its value), so export → apply changes nothing.
 */
import { as2DocOf } from './as2-settings.ts';
import type { ConfigDocument, OrgConfigState, PartnerDoc } from './configuration.ts';

const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
const tagsOpt = (t: readonly string[]): string[] | undefined => (t.length ? [...t] : undefined);

/** Drops undefined fields so the written file has no empty keys. */
function clean<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function exportDocument(state: OrgConfigState): ConfigDocument {
  const nameOf = (list: readonly { id: string; name: string }[]): Map<string, string> => new Map(list.map((r) => [r.id, r.name]));
  const conn = nameOf(state.connections);
  const env = nameOf(state.envelopes);
  const hook = nameOf(state.webhooks);
  const impl = nameOf(state.implementations);
  const src = nameOf(state.sources);
  const map = nameOf(state.mappings);
  const byId = <R extends { id: string }>(rs: readonly R[]): R[] => [...rs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const doc: ConfigDocument = {
    connections: byId(state.connections).map((c) =>
      clean({
        name: c.name,
        kind: c.kind,
        host: opt(c.host),
        port: opt(c.port),
        username: opt(c.username),
        inboundDirectory: opt(c.inboundDirectory),
        outboundDirectory: opt(c.outboundDirectory),
        archiveDirectory: opt(c.archiveDirectory ?? null),
        tags: tagsOpt(c.tags),
        as2: c.as2 ? as2DocOf(c.as2) : undefined,
        retry: c.retry ? { ...c.retry } : undefined,
        resendReplace: c.resendReplace ?? undefined,
      }),
    ),
    envelopes: byId(state.envelopes).map((e) => ({
      name: e.name,
      external: e.external,
      interchangeExtid: e.interchangeExtid,
      interchangeExtidQualifier: e.interchangeExtidQualifier,
      applicationCode: e.applicationCode,
      segmentSeparator: e.segmentSeparator,
      elementSeparator: e.elementSeparator,
      componentSeparator: e.componentSeparator,
    })),
    webhooks: byId(state.webhooks).map((w) => ({ name: w.name, kind: w.kind, url: w.url, contentType: w.contentType, ...(w.retry ? { retry: { ...w.retry } } : {}) })),
    sources: byId(state.sources).map((s) => clean({ name: s.name, sample: s.sample, semantics: opt(s.semantics) })),
    implementations: byId(state.implementations).map((i) =>
      clean({
        name: i.name,
        version: i.version,
        status: i.status,
        transactionSet: { ...i.transactionSet },
        sourceImplementation: i.sourceImplementationId ? impl.get(i.sourceImplementationId) : undefined,
        description: opt(i.description),
        tags: tagsOpt(i.tags),
        definition: i.definition,
      }),
    ),
    mappings: byId(state.mappings).map((m) => {
      const v = state.mappingVersions.find((x) => x.mappingId === m.id && x.versionNumber === m.currentVersion);
      return clean({
        name: m.name,
        direction: m.direction,
        implementation: impl.get(m.implementationId) ?? '',
        source: m.sourceId ? src.get(m.sourceId) : undefined,
        description: opt(m.description),
        tags: tagsOpt(m.tags),
        transformation: v?.transformation ?? '',
        note: opt(v?.note),
      });
    }),
    partners: byId(state.partners).map((p) => {
      const webhooks = clean({
        inbound: p.webhooks.inbound ? hook.get(p.webhooks.inbound) : undefined,
        outbound: p.webhooks.outbound ? hook.get(p.webhooks.outbound) : undefined,
        error: p.webhooks.error ? hook.get(p.webhooks.error) : undefined,
      });
      const envelopes = clean({
        internal: p.internalEnvelopeId ? env.get(p.internalEnvelopeId) : undefined,
        external: p.externalEnvelopeId ? env.get(p.externalEnvelopeId) : undefined,
      });
      const out: PartnerDoc = clean({
        key: p.key,
        name: p.name,
        deliveryMethod: p.deliveryMethod,
        generateAcknowledgments: p.generateAcknowledgments,
        trackAcknowledgments: p.trackAcknowledgments,
        connection: p.connectionId ? conn.get(p.connectionId) : undefined,
        envelopes: Object.keys(envelopes).length ? envelopes : undefined,
        webhooks: Object.keys(webhooks).length ? webhooks : undefined,
        frequency: p.frequency,
        usesSandbox: p.usesSandbox,
        acknowledgmentDeadlineMinutes: p.acknowledgmentDeadlineMinutes ?? undefined,
        transactionSets: p.transactionSetSettings.map((s) =>
          clean({
            transactionSetIdentifier: s.transactionSetIdentifier,
            release: s.release,
            direction: s.direction,
            usageIndicator: s.usageIndicator,
            implementation: impl.get(s.implementationId) ?? '',
            mapping: s.mappingId ? map.get(s.mappingId) : undefined,
          }),
        ),
      });
      return out;
    }),
  };
  return doc;
}
