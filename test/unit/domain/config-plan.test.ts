import { describe, expect, it } from 'vitest';
import { planApply, type PlanContext } from '../../../src/domain/config-plan.ts';
import { EMPTY_STATE, type ConfigDocument, type OrgConfigState } from '../../../src/domain/configuration.ts';
import { x12ImplementationEngine as x12Engine } from '../../../src/domain/x12-implementation-engine.ts';
import { exportDocument } from '../../../src/domain/config-export.ts';
import { demoDoc as demo } from '../../support/demo-config.ts';

function ctx(at = '2026-03-01T00:00:00.000Z'): PlanContext {
  let n = 0;
  return {
    now: at,
    newId: () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}-${at}`,
    author: 'tester',
    newSigningSecret: () => `whsec_${Buffer.from(`generated-${n}`).toString('base64')}`,
    engine: x12Engine,
  };
}

function apply(doc: ConfigDocument, state: OrgConfigState, at?: string) {
  return planApply(doc, state, ctx(at));
}

describe('planApply', () => {
  it('creates every resource, then plans nothing when the same document is applied again', () => {
    const first = apply(demo(), EMPTY_STATE);
    expect(first.state.partners).toHaveLength(3);
    expect(first.state.flows.filter((f) => f.current)).toHaveLength(6);
    expect(first.state.mappingVersions).toHaveLength(2);
    const second = apply(demo(), first.state, '2026-03-02T00:00:00.000Z');
    expect(second.changes).toEqual([]);
    expect(second.state).toEqual(first.state);
  });

  it('export then apply of the export changes nothing', () => {
    const first = apply(demo(), EMPTY_STATE);
    const again = apply(exportDocument(first.state), first.state, '2026-03-02T00:00:00.000Z');
    expect(again.changes).toEqual([]);
  });

  it('adds a mapping version when the transformation changes, and keeps the old one', () => {
    const first = apply(demo(), EMPTY_STATE);
    const doc = demo();
    doc.mappings![0]!.transformation = '{ "orderNumber": BEG.BEG03 }';
    doc.mappings![0]!.note = 'only the number';
    const second = apply(doc, first.state, '2026-03-02T00:00:00.000Z');
    const m = second.state.mappings.find((x) => x.name === 'demo-850-to-erp')!;
    expect(m.currentVersion).toBe(2);
    const versions = second.state.mappingVersions.filter((v) => v.mappingId === m.id).map((v) => [v.versionNumber, v.note]);
    expect(versions).toEqual([
      [1, 'first version'],
      [2, 'only the number'],
    ]);
    expect(second.changes.filter((c) => c.op === 'putMappingVersion')).toHaveLength(1);
  });

  it('rebuilds both flows of a partner whose delivery method changes, superseding version 1', () => {
    const first = apply(demo(), EMPTY_STATE);
    const doc = demo();
    const globex = doc.partners!.find((p) => p.key === 'GLOBEX')!;
    globex.deliveryMethod = 'webhook';
    globex.webhooks = { inbound: 'erp-inbound', error: 'erp-notifications' };
    const second = apply(doc, first.state, '2026-03-02T00:00:00.000Z');
    const pid = second.state.partners.find((p) => p.key === 'GLOBEX')!.id;
    const flows = second.state.flows.filter((f) => f.partnerId === pid);
    expect(flows.map((f) => [f.direction, f.versionNumber, f.current]).sort()).toEqual([
      ['inbound', 1, false],
      ['inbound', 2, true],
      ['outbound', 1, false],
      ['outbound', 2, true],
    ]);
    const inbound = flows.find((f) => f.current && f.direction === 'inbound')!;
    expect(inbound.nodes.map((n) => n.service)).toContain('webhook');
    expect(inbound.nodes.map((n) => n.service)).not.toContain('feed');
    // ACME untouched
    const acme = second.state.partners.find((p) => p.key === 'ACME')!.id;
    expect(second.state.flows.filter((f) => f.partnerId === acme).every((f) => f.versionNumber === 1 && f.current)).toBe(true);
  });

  it('derives the inbound and outbound graphs from the DESIGN services', () => {
    const { state } = apply(demo(), EMPTY_STATE);
    const acme = state.partners.find((p) => p.key === 'ACME')!;
    const inbound = state.flows.find((f) => f.partnerId === acme.id && f.direction === 'inbound')!;
    expect(inbound.nodes.map((n) => n.service)).toEqual(['sftp_fetch', 'x12_split', 'mapping', 'validation', 'webhook', 'ack_generate', 'sftp_upload']);
    expect(inbound.frequency).toBe(5);
    expect(inbound.status).toBe('active');
    const outbound = state.flows.find((f) => f.partnerId === acme.id && f.direction === 'outbound')!;
    expect(outbound.nodes.map((n) => [n.kind, n.service])).toEqual([
      ['input', 'partner_endpoint'],
      ['transformation', 'mapping'],
      ['transformation', 'validation'],
      ['transformation', 'x12_write'],
      ['output', 'sftp_upload'],
    ]);
    expect(outbound.connections).toHaveLength(4);
    expect(outbound.frequency).toBe(0);
  });

  it('keeps a flow pending until its connection is provisioned, then activates it in place', () => {
    const doc = demo();
    delete doc.connections![1]!.privateKey;
    const first = apply(doc, EMPTY_STATE);
    const globex = first.state.partners.find((p) => p.key === 'GLOBEX')!;
    expect(first.state.flows.filter((f) => f.partnerId === globex.id).map((f) => f.status)).toEqual(['pending', 'pending']);
    const second = apply(demo(), first.state, '2026-03-02T00:00:00.000Z');
    const now = second.state.flows.filter((f) => f.partnerId === globex.id);
    expect(now.map((f) => [f.status, f.versionNumber])).toEqual([
      ['active', 1],
      ['active', 1],
    ]);
  });

  it('keeps secrets out of every record and keeps a stored secret the file leaves out', () => {
    // the notifications webhook without a secret: one is generated
    const withoutSecret = (): ConfigDocument => {
      const d = demo();
      delete d.webhooks![1]!.signingSecret;
      return d;
    };
    const first = apply(withoutSecret(), EMPTY_STATE);
    const records = JSON.stringify({ ...first.state, secrets: [] });
    for (const s of first.state.secrets) expect(records).not.toContain(s.value);
    // the SFTP connections' keys, the AS2 connection's key and certificates, the webhook secrets
    expect(first.state.secrets.map((s) => s.name).sort()).toEqual(['certificate', 'partnerCertificate', 'privateKey', 'privateKey', 'privateKey', 'signingSecret', 'signingSecret']);
    const generated = first.state.secrets.find((s) => s.name === 'signingSecret' && !s.value.includes('ZGVtby'))!;
    expect(generated.value).toMatch(/^whsec_/);
    const doc = withoutSecret();
    delete doc.connections![0]!.privateKey;
    const second = apply(doc, first.state, '2026-03-02T00:00:00.000Z');
    expect(second.changes).toEqual([]);
  });

  it('removes resources absent from the document and supersedes their flows', () => {
    const first = apply(demo(), EMPTY_STATE);
    const doc = demo();
    doc.partners = doc.partners!.filter((p) => p.key !== 'GLOBEX');
    doc.connections = doc.connections!.filter((c) => c.name !== 'globex-sftp');
    const second = apply(doc, first.state, '2026-03-02T00:00:00.000Z');
    expect(second.state.partners.map((p) => p.key)).toEqual(['ACME', 'GADGET']);
    expect(second.state.flows.filter((f) => f.current)).toHaveLength(4);
    expect(second.changes.filter((c) => c.op === 'delete').map((c) => c.kind).sort()).toEqual(['connection', 'partner']);
    expect(second.changes.some((c) => c.op === 'deleteSecret')).toBe(true);
  });

  it('matches partner keys case-insensitively', () => {
    const first = apply(demo(), EMPTY_STATE);
    const doc = demo();
    doc.partners![0]!.key = 'acme';
    const second = apply(doc, first.state, '2026-03-02T00:00:00.000Z');
    const puts = second.changes.filter((c) => c.op === 'put' && c.kind === 'partner');
    expect(puts).toHaveLength(1);
    expect(second.state.partners.find((p) => p.key === 'acme')!.id).toBe(first.state.partners.find((p) => p.key === 'ACME')!.id);
  });
});
