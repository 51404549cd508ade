/**
 * An organization's configuration records built the way `tdx config apply` builds them (the
 * plan over an empty state), for unit tests of node adapters over in-memory stores.
 */
import { planApply } from '../../../src/domain/config-plan.ts';
import { EMPTY_STATE, type ConfigDocument, type FlowNode, type FlowRecord, type PartnerRecord } from '../../../src/domain/configuration.ts';
import { x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import type { MemoryConfig } from './memory-stores.ts';

let n = 0;
const id = (): string => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}`;

export function memoryOrg(doc: ConfigDocument): MemoryConfig & { partner(key: string): PartnerRecord; flow(key: string, direction: 'inbound' | 'outbound'): FlowRecord } {
  const plan = planApply(doc, EMPTY_STATE, { now: '2026-01-01T00:00:00.000Z', newId: id, author: 'test', newSigningSecret: () => 'whsec_dGVzdA==', engine: x12ImplementationEngine });
  const s = plan.state;
  const secrets: Record<string, Record<string, string>> = {};
  for (const x of s.secrets) (secrets[`${x.ownerKind}:${x.ownerId}`] ??= {})[x.name] = x.value;
  return {
    partners: [...s.partners],
    flows: [...s.flows],
    envelopes: [...s.envelopes],
    connections: [...s.connections],
    webhooks: [...s.webhooks],
    implementations: [...s.implementations],
    mappings: [...s.mappings],
    mappingVersions: [...s.mappingVersions],
    sources: [...s.sources],
    secrets,
    partner: (key) => s.partners.find((p) => p.key === key)!,
    flow: (key, direction) => s.flows.find((f) => f.partnerId === s.partners.find((p) => p.key === key)!.id && f.direction === direction && f.current)!,
  };
}

/** A work item for node `service` of `flow` (the first node of that service). */
export function workFor(flow: FlowRecord, service: FlowNode['service'], over: Partial<StageMessage> = {}): StageMessage {
  const node = flow.nodes.find((x) => x.service === service)!;
  return {
    id: `work-${service}-${++n}`,
    traceGuid: `trace-${n}`,
    organizationId: 'org-1',
    service,
    flowId: flow.id,
    flowVersion: flow.versionNumber,
    nodeId: node.id,
    direction: flow.direction,
    partnerKey: null,
    transactionId: null,
    inputResultId: null,
    artifacts: [],
    usageIndicator: null,
    resend: false,
    attempt: 1,
    createdAt: 1_767_225_600_000_000,
    params: {},
    ...over,
  };
}
