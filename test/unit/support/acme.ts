/**
 * The organization the inbound node tests share: partner ACME (polling, 997s over SFTP) with an
 * inbound 850 mapped by a JSONata mapping, and interchanges from its external envelope.
 */
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { interchange as anyInterchange } from '../../integration/pipeline/support.ts';

/** Interchanges from the partner's external envelope (01:PARTNER), so no sender warning. */
export const interchange = (opts: Parameters<typeof anyInterchange>[0]): string => anyInterchange({ sender: { qualifier: '01', id: 'PARTNER' }, receiver: { qualifier: 'ZZ', id: 'US' }, ...opts });

export const doc: ConfigDocument = {
  envelopes: [
    { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'USAPP' },
    { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: '01', applicationCode: 'THEMAPP' },
  ],
  connections: [{ name: 'c', kind: 'sftp', host: 'sftp.example', port: 22, username: 'u', password: 'p', inboundDirectory: 'in', outboundDirectory: 'out' }],
  sources: [{ name: 'erp', sample: { order: 'X' } }],
  implementations: [{ name: 'po', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
  mappings: [{ name: 'm', direction: 'inbound', implementation: 'po', source: 'erp', transformation: '{ "order": heading.beginning_segment_for_purchase_order_BEG.purchase_order_number_03 }' }],
  partners: [
    {
      key: 'ACME',
      name: 'Acme',
      deliveryMethod: 'polling',
      generateAcknowledgments: true,
      connection: 'c',
      envelopes: { internal: 'us', external: 'them' },
      frequency: 0,
      transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po', mapping: 'm' }],
    },
  ],
};
