/** AS2 connections in `tdx config apply` plans: computed setup status, secrets, flows. */
import { describe, expect, it } from 'vitest';
import { planApply, type PlanContext } from '../../../src/domain/config-plan.ts';
import { exportDocument } from '../../../src/domain/config-export.ts';
import { EMPTY_STATE, type ConfigDocument, type ConnectionDoc, type OrgConfigState } from '../../../src/domain/configuration.ts';
import { x12ImplementationEngine as x12Engine } from '../../../src/domain/x12-implementation-engine.ts';
import { keyPair } from '../../support/as2-keys.ts';

const notBefore = new Date('2026-01-01T00:00:00Z');
const ours = keyPair('ours', { notBefore, days: 3650 });
const partner = keyPair('partner', { notBefore, days: 3650 });

function ctx(at: string): PlanContext {
  let n = 0;
  return { now: at, newId: () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}-${at}`, author: 't', newSigningSecret: () => 'whsec_Z2VuZXJhdGVkLXNlY3JldC12YWx1ZQ==', engine: x12Engine };
}

function doc(conn: Partial<ConnectionDoc>): ConfigDocument {
  return {
    connections: [{ name: 'acme-as2', kind: 'as2', as2: { localId: 'US', partnerId: 'ACME', url: 'https://acme.example/as2' }, ...conn }],
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'acme', external: true, interchangeExtid: 'ACME', interchangeExtidQualifier: 'ZZ', applicationCode: 'ACME' },
    ],
    implementations: [{ name: 'po', version: '1', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true, adjustments: [] } }],
    partners: [{ key: 'ACME', name: 'Acme', deliveryMethod: 'polling', connection: 'acme-as2', envelopes: { internal: 'us', external: 'acme' }, transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', implementation: 'po' }] }],
  };
}

const keys = { privateKey: ours.privateKeyPem, certificate: ours.certificatePem, partnerCertificate: partner.certificatePem };
const at = '2026-06-01T00:00:00.000Z';
const plan = (d: ConfigDocument, state: OrgConfigState = EMPTY_STATE, when = at) => planApply(d, state, ctx(when));

describe('AS2 connections', () => {
  it('are ready and provisioned with a valid key and both certificates; the flow is active and uses the AS2 nodes', () => {
    const { state } = plan(doc(keys));
    const c = state.connections[0]!;
    expect(c.as2).toMatchObject({ localId: 'US', partnerId: 'ACME', setupStatus: 'ready', setupReason: null, signing: 'sha256', encryption: 'aes256-cbc' });
    expect(c.provisioned).toBe(true);
    const flow = state.flows.find((f) => f.current && f.direction === 'inbound')!;
    expect(flow.status).toBe('active');
    expect(flow.nodes.map((n) => n.service)).toEqual(['as2_receive', 'x12_split', 'mapping', 'validation', 'feed', 'ack_generate', 'as2_send']);
  });

  it('stay pending (and the flow with them) while a certificate is missing, then become ready in place when it comes', () => {
    const first = plan(doc({ privateKey: ours.privateKeyPem, certificate: ours.certificatePem }));
    expect(first.state.connections[0]!.as2).toMatchObject({ setupStatus: 'pending', setupReason: "waiting for the partner's certificate (as2.partnerCertificateFile)" });
    expect(first.state.connections[0]!.provisioned).toBe(false);
    const flow1 = first.state.flows.find((f) => f.current)!;
    expect(flow1.status).toBe('pending');
    // only the partner's certificate is added: the stored key and certificate count
    const second = plan(doc({ partnerCertificate: partner.certificatePem }), first.state, '2026-06-02T00:00:00.000Z');
    expect(second.state.connections[0]!.as2?.setupStatus).toBe('ready');
    const flow2 = second.state.flows.find((f) => f.current)!;
    expect([flow2.id, flow2.status, flow2.versionNumber]).toEqual([flow1.id, 'active', 1]);
  });

  it('fail with the reason when a certificate has expired by the time of the apply', () => {
    const { state } = plan(doc(keys), EMPTY_STATE, '2036-01-01T00:00:00.000Z');
    expect(state.connections[0]!.as2?.setupStatus).toBe('failed');
    expect(state.connections[0]!.as2?.setupReason).toMatch(/our certificate expired on 2035-12-30/);
    expect(state.flows.find((f) => f.current)!.status).toBe('pending');
  });

  it('keep key and certificates as secrets, out of every record, and export → apply changes nothing', () => {
    const first = plan(doc(keys));
    expect(first.state.secrets.map((s) => s.name).sort()).toEqual(['certificate', 'partnerCertificate', 'privateKey']);
    const records = JSON.stringify({ ...first.state, secrets: [] });
    expect(records).not.toContain('BEGIN');
    const exported = exportDocument(first.state);
    expect(exported.connections![0]).toEqual({
      name: 'acme-as2',
      kind: 'as2',
      as2: { localId: 'US', partnerId: 'ACME', url: 'https://acme.example/as2', signing: 'sha256', encryption: 'aes256-cbc', compression: false, mdn: { mode: 'sync', signed: true, waitSeconds: 300 }, requireSignature: true, requireEncryption: true, contentType: 'application/edi-x12' },
    });
    expect(plan(exported, first.state, '2026-06-03T00:00:00.000Z').changes).toEqual([]);
  });
});
