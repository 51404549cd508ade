/**
 * The replay plan: each 422 code of the contract's Resend and Redeliver tables from the
 * situation that causes it, and where a replay goes when it can run.
 */
import { describe, expect, it } from 'vitest';
import { planReplay, type ReplayFacts } from '../../../src/domain/replay.ts';
import type { FlowNode, FlowRecord, PartnerRecord } from '../../../src/domain/configuration.ts';
import type { StoredTransaction } from '../../../src/domain/records.ts';
import { TdxError } from '../../../src/errors.ts';

const node = (id: string, service: FlowNode['service'], config: Record<string, unknown> = {}): FlowNode => ({ id, name: service, kind: 'output', service, config });

function flow(id: string, direction: 'inbound' | 'outbound', nodes: FlowNode[]): FlowRecord {
  return {
    id, name: id, partnerId: 'p', direction, status: 'active', frequency: 0, versionNumber: 1, usesSandbox: false, current: true, fingerprint: '',
    nodes, connections: nodes.slice(1).map((n, i) => ({ from: nodes[i]!.id, to: n.id })), createdAt: '', updatedAt: '',
  };
}

const outboundFlow = flow('out', 'outbound', [node('out.1', 'partner_endpoint'), node('out.2', 'mapping'), node('out.3', 'validation'), node('out.4', 'x12_write'), node('out.5', 'sftp_upload', { connectionId: 'conn-a' })]);
const inboundHook = flow('in', 'inbound', [node('in.1', 'partner_endpoint'), node('in.2', 'x12_split'), node('in.3', 'mapping'), node('in.4', 'validation'), node('in.5', 'webhook', { webhookId: 'hook-1' })]);
const inboundAck = flow('in2', 'inbound', [node('a.1', 'sftp_fetch'), node('a.2', 'x12_split'), node('a.3', 'ack_generate'), node('a.4', 'sftp_upload', { connectionId: 'conn-a' })]);

const partner = (deliveryMethod: 'webhook' | 'polling'): PartnerRecord => ({ id: 'p', key: 'P', name: 'P', deliveryMethod } as PartnerRecord);

function tx(over: Partial<StoredTransaction>): StoredTransaction {
  return {
    id: 'tx', organizationId: 'o', traceGuid: 'tr', direction: 'outbound', usageIndicator: 'P', partnerKey: 'P', transactionSetIdentifier: '810', release: '004010', reference: 'INV-1',
    senderQualifier: 'ZZ', senderExtid: 'US', receiverQualifier: 'ZZ', receiverExtid: 'P', interchangeControlNumber: '000000001', groupControlNumber: '1', transactionSetControlNumber: '0001',
    duplicateOf: null, flowId: 'out', flowVersion: 1, flowName: 'out', createdAt: 1, failed: false, failedNodeName: null, completed: true, deliveredAt: 2, warningCount: 0,
    acknowledgmentStatus: null, acknowledgedBy: null, acknowledges: null, resendCount: 0, lastResentAt: null,
    roles: { output: { resultId: 'write', nodeName: 'Write X12', artifact: { id: 'edi', usage: 'output', contentType: 'application/edi-x12', filename: '810.edi' } } },
    deliveryNodeId: 'out.5', deliveryResultId: 'upload', deliveryInputResultId: 'write', updatedAt: 2, ...over,
  };
}

function facts(over: Partial<ReplayFacts>): ReplayFacts {
  const t = over.transaction ?? tx({});
  return {
    kind: 'resend', transaction: t, partner: partner('webhook'), originalFlow: outboundFlow, currentFlow: outboundFlow,
    document: t.roles.output?.artifact ?? null, contentAvailable: true, deliveryInput: null, targetExists: () => true, ...over,
  };
}

const code = (r: ReturnType<typeof planReplay>): string => (r instanceof TdxError ? r.code : 'ok');

describe('resend', () => {
  it('goes to the current flow upload node with the stored EDI', () => {
    const r = planReplay(facts({}));
    expect(r).toMatchObject({ kind: 'resend', node: { id: 'out.5', service: 'sftp_upload' }, document: { id: 'edi' }, acknowledgment: false });
  });

  it.each([
    ['not_outbound', facts({ transaction: tx({ direction: 'inbound' }) })],
    ['document_not_generated', facts({ transaction: tx({ roles: {}, failed: true, failedNodeName: 'Validation' }), document: null })],
    ['not_flow_delivered', facts({ transaction: tx({ transactionSetIdentifier: '997', roles: {} }), document: null })],
    ['content_unavailable', facts({ contentAvailable: false })],
    ['delivery_node_missing', facts({ currentFlow: null })],
    ['delivery_node_missing', facts({ currentFlow: flow('out2', 'outbound', [node('x.1', 'partner_endpoint'), node('x.4', 'x12_write'), node('x.5', 'sandbox_sink')]) })],
    ['delivery_target_missing', facts({ targetExists: (n) => n.id !== 'out.5' })],
  ])('%s', (want, f) => {
    const r = planReplay(f);
    expect(code(r)).toBe(want);
    expect((r as TdxError).status).toBe(422);
  });

  it('resends our 997 through the inbound flow, as an acknowledgment', () => {
    const t = tx({ transactionSetIdentifier: '997', flowId: 'in2', deliveryNodeId: 'a.4' });
    const r = planReplay(facts({ transaction: t, originalFlow: inboundAck, currentFlow: inboundAck }));
    expect(r).toMatchObject({ node: { id: 'a.4' }, acknowledgment: true });
  });
});

describe('redeliver', () => {
  const inbound = tx({ direction: 'inbound', transactionSetIdentifier: '850', flowId: 'in', deliveryNodeId: 'in.5', roles: {} });
  const input = { resultId: 'validation', artifacts: [{ id: 'mapped', usage: 'mapped', contentType: 'application/json', filename: null }], document: { id: 'mapped', usage: 'mapped', contentType: 'application/json', filename: null }, params: {} };
  const base = (over: Partial<ReplayFacts>): ReplayFacts => facts({ kind: 'redeliver', transaction: inbound, originalFlow: inboundHook, currentFlow: inboundHook, document: null, deliveryInput: input, ...over });

  it('runs the delivery node again on what it received, whether or not the first delivery failed', () => {
    expect(planReplay(base({}))).toMatchObject({ kind: 'redeliver', node: { service: 'webhook' }, deliveryInput: { resultId: 'validation' } });
    expect(code(planReplay(base({ transaction: { ...inbound, failed: true, failedNodeName: 'Webhook delivery' } })))).toBe('ok');
  });

  it.each([
    ['not_inbound', base({ transaction: tx({}) })],
    ['poll_delivery', base({ partner: partner('polling') })],
    ['delivery_not_reached', base({ deliveryInput: null, transaction: { ...inbound, failed: true, failedNodeName: 'Mapping' } })],
    ['content_unavailable', base({ contentAvailable: false })],
    ['delivery_node_missing', base({ currentFlow: null })],
    ['delivery_target_missing', base({ targetExists: () => false })],
  ])('%s', (want, f) => {
    expect(code(planReplay(f))).toBe(want);
  });
});

describe('content_unavailable names the configured retention', () => {
  const inbound = tx({ direction: 'inbound', transactionSetIdentifier: '850', flowId: 'in', deliveryNodeId: 'in.5', roles: {} });
  const input = { resultId: 'validation', artifacts: [], document: { id: 'mapped', usage: 'mapped', contentType: 'application/json', filename: null }, params: {} };
  const cases: [string, ReplayFacts][] = [
    ['resend', facts({ contentAvailable: false })],
    ['redeliver', facts({ kind: 'redeliver', transaction: inbound, originalFlow: inboundHook, currentFlow: inboundHook, document: null, deliveryInput: input, contentAvailable: false })],
  ];

  it.each(cases)('%s: the retention given, not the contract default', (_kind, f) => {
    const r = planReplay(f, 7 * 86_400) as TdxError;
    expect(r.code).toBe('content_unavailable');
    expect(r.message).toMatch(/kept 7 days\)\.$/);
    expect(r.message).not.toContain('45 days');
    expect((planReplay(f, 3_600) as TdxError).message).toMatch(/kept 1 hour\)\.$/);
  });

  it.each(cases)('%s: the contract 45 days without a configured retention', (_kind, f) => {
    expect((planReplay(f) as TdxError).message).toMatch(/kept 45 days\)\.$/);
  });
});
