import { describe, expect, it } from 'vitest';
import { deriveFlows } from '../../../src/domain/flow-builder.ts';
import type { PartnerRecord } from '../../../src/domain/configuration.ts';

const partner = (settings: PartnerRecord['transactionSetSettings']): PartnerRecord => ({
  id: 'p',
  key: 'P',
  name: 'P',
  createdAt: '',
  updatedAt: '',
  deliveryMethod: 'polling',
  generateAcknowledgments: true,
  trackAcknowledgments: true,
  connectionId: null,
  internalEnvelopeId: 'i',
  externalEnvelopeId: 'e',
  webhooks: { inbound: null, outbound: null, error: null },
  frequency: 0,
  usesSandbox: false,
  transactionSetSettings: settings,
});
const targets = { connection: null, webhooksById: new Map(), envelopeIds: new Set(['i', 'e']) };
const outbound = { transactionSetIdentifier: '810', release: '004010', direction: 'outbound' as const, usageIndicator: 'P' as const, implementationId: 'x', mappingId: null };

describe('deriveFlows', () => {
  it('gives a partner we only send to an inbound flow too, for the 997s that come back', () => {
    const flows = deriveFlows(partner([outbound]), targets);
    expect(flows.map((f) => [f.direction, f.status])).toEqual([
      ['inbound', 'active'],
      ['outbound', 'active'],
    ]);
    expect(flows[0]!.nodes.map((n) => n.service)).toEqual(['partner_endpoint', 'x12_split', 'mapping', 'validation', 'feed']);
    expect(flows[1]!.nodes.map((n) => n.service)).toEqual(['partner_endpoint', 'mapping', 'validation', 'x12_write', 'sandbox_sink']);
    expect(flows[1]!.nodes[3]!.config).toMatchObject({ trackAcknowledgments: true });
  });

  it('gives a partner with no setting no flow', () => {
    expect(deriveFlows(partner([]), targets)).toEqual([]);
  });
});
