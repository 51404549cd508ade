/**
 * Checks of a configuration document beyond its JSON Schema: unique names (partner keys
 * case-insensitively), references that resolve, directions that agree, implementation
 * definitions the engine accepts. Every problem carries the path of the field it concerns, so
 * the command line can name the file, line and field.
 */
import type { ConfigDocument } from './configuration.ts';
import type { ImplementationEngine } from './implementation-engine.ts';
import { webhookUrlProblem } from './link-local.ts';

export type DocPath = (string | number)[];
export interface DocProblem {
  readonly path: DocPath;
  readonly message: string;
}

export function checkDocument(doc: ConfigDocument, engine: ImplementationEngine): DocProblem[] {
  const problems: DocProblem[] = [];
  const names = (section: keyof ConfigDocument, list: readonly { name: string }[] | undefined): Set<string> => {
    const seen = new Set<string>();
    (list ?? []).forEach((r, i) => {
      if (seen.has(r.name)) problems.push({ path: [section, i, 'name'], message: `duplicate name "${r.name}" in ${section}` });
      seen.add(r.name);
    });
    return seen;
  };
  const connections = names('connections', doc.connections);
  const envelopes = names('envelopes', doc.envelopes);
  const webhooks = names('webhooks', doc.webhooks);
  const sources = names('sources', doc.sources);
  const implementations = names('implementations', doc.implementations);
  const mappings = names('mappings', doc.mappings);
  const ref = (path: DocPath, value: string | undefined, set: Set<string>, what: string): void => {
    if (value !== undefined && !set.has(value)) problems.push({ path, message: `no ${what} named "${value}" in this file` });
  };

  (doc.implementations ?? []).forEach((d, i) => {
    ref(['implementations', i, 'sourceImplementation'], d.sourceImplementation, implementations, 'implementation');
    for (const p of engine.check({ ...d, status: d.status ?? 'draft', description: d.description ?? null })) problems.push({ path: ['implementations', i, 'definition', ...p.path], message: p.message });
  });
  const envelopeExternal = new Map((doc.envelopes ?? []).map((e) => [e.name, e.external]));
  const connectionKind = new Map((doc.connections ?? []).map((c) => [c.name, c.kind]));
  const webhookKind = new Map((doc.webhooks ?? []).map((w) => [w.name, w.kind ?? 'standard']));
  const mappingByName = new Map((doc.mappings ?? []).map((m) => [m.name, m]));
  const implByName = new Map((doc.implementations ?? []).map((m) => [m.name, m]));

  (doc.connections ?? []).forEach((c, i) => {
    if (c.kind === 'sftp' && !c.host) problems.push({ path: ['connections', i, 'host'], message: 'an sftp connection needs a host' });
    if (c.kind === 'as2' && !c.as2) problems.push({ path: ['connections', i, 'as2'], message: 'an as2 connection needs as2 settings' });
    if (c.kind !== 'as2' && c.as2) problems.push({ path: ['connections', i, 'as2'], message: `as2 settings belong to an as2 connection, not ${c.kind}` });
    for (const f of ['certificate', 'partnerCertificate'] as const) {
      if (c.kind !== 'as2' && c[f] !== undefined) problems.push({ path: ['connections', i, f], message: `${f} belongs to an as2 connection, not ${c.kind}` });
    }
    if (c.as2?.mdn?.mode === 'async' && !c.as2.mdn.asyncUrl) {
      problems.push({ path: ['connections', i, 'as2', 'mdn', 'asyncUrl'], message: 'an asynchronous MDN needs mdn.asyncUrl (where the partner posts it: the POST /as2/mdn endpoint of this service)' });
    }
  });
  (doc.webhooks ?? []).forEach((w, i) => {
    const problem = webhookUrlProblem(w.url);
    if (problem) problems.push({ path: ['webhooks', i, 'url'], message: problem });
  });
  (doc.mappings ?? []).forEach((m, i) => {
    ref(['mappings', i, 'implementation'], m.implementation, implementations, 'implementation');
    ref(['mappings', i, 'source'], m.source, sources, 'source');
  });

  const keys = new Set<string>();
  (doc.partners ?? []).forEach((p, i) => {
    const lower = p.key.toLowerCase();
    if (keys.has(lower)) problems.push({ path: ['partners', i, 'key'], message: `duplicate partner key "${p.key}" (keys compare case-insensitively)` });
    keys.add(lower);
    ref(['partners', i, 'connection'], p.connection, connections, 'connection');
    if (p.envelopes?.internal !== undefined) {
      ref(['partners', i, 'envelopes', 'internal'], p.envelopes.internal, envelopes, 'envelope');
      if (envelopeExternal.get(p.envelopes.internal) === true) problems.push({ path: ['partners', i, 'envelopes', 'internal'], message: `envelope "${p.envelopes.internal}" is external; the internal envelope identifies you` });
    }
    if (p.envelopes?.external !== undefined) {
      ref(['partners', i, 'envelopes', 'external'], p.envelopes.external, envelopes, 'envelope');
      if (envelopeExternal.get(p.envelopes.external) === false) problems.push({ path: ['partners', i, 'envelopes', 'external'], message: `envelope "${p.envelopes.external}" is internal; the external envelope identifies the partner` });
    }
    for (const role of ['inbound', 'outbound', 'error'] as const) {
      ref(['partners', i, 'webhooks', role], p.webhooks?.[role], webhooks, 'webhook');
    }
    if (p.deliveryMethod === 'webhook' && !p.usesSandbox && (p.transactionSets ?? []).some((s) => s.direction === 'inbound') && p.webhooks?.inbound === undefined) {
      problems.push({ path: ['partners', i, 'webhooks'], message: 'a partner delivered by webhook needs an inbound webhook' });
    }
    if (p.usesSandbox && p.webhooks?.inbound !== undefined && webhookKind.get(p.webhooks.inbound) !== 'sandbox') {
      problems.push({ path: ['partners', i, 'webhooks', 'inbound'], message: 'a sandbox partner delivers only to a sandbox webhook' });
    }
    if (p.connection !== undefined && connectionKind.get(p.connection) === 'sandbox' && !p.usesSandbox) {
      problems.push({ path: ['partners', i, 'connection'], message: 'a sandbox connection needs usesSandbox: true' });
    }
    const seen = new Set<string>();
    (p.transactionSets ?? []).forEach((s, j) => {
      const base: DocPath = ['partners', i, 'transactionSets', j];
      const k = `${s.transactionSetIdentifier}/${s.release}/${s.direction}/${s.usageIndicator ?? 'P'}`;
      if (seen.has(k)) problems.push({ path: base, message: `transaction set ${s.transactionSetIdentifier} ${s.release} ${s.direction} is listed twice` });
      seen.add(k);
      ref([...base, 'implementation'], s.implementation, implementations, 'implementation');
      const impl = implByName.get(s.implementation);
      if (impl && (impl.transactionSet.identifier !== s.transactionSetIdentifier || impl.transactionSet.release !== s.release)) {
        problems.push({ path: [...base, 'implementation'], message: `implementation "${s.implementation}" is for ${impl.transactionSet.identifier} ${impl.transactionSet.release}, not ${s.transactionSetIdentifier} ${s.release}` });
      }
      ref([...base, 'mapping'], s.mapping, mappings, 'mapping');
      const m = s.mapping === undefined ? undefined : mappingByName.get(s.mapping);
      if (m && m.direction !== s.direction) problems.push({ path: [...base, 'mapping'], message: `mapping "${m.name}" is ${m.direction}, the transaction set is ${s.direction}` });
      if (m && m.implementation !== s.implementation) problems.push({ path: [...base, 'mapping'], message: `mapping "${m.name}" targets implementation "${m.implementation}", not "${s.implementation}"` });
    });
  });
  return problems;
}
