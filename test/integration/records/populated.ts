/**
 * An organization with something of every kind for the API to return: every configuration
 * resource (connections with a private key, a password and a passphrase, a sandbox connection
 * with its token, webhooks with signing secrets, sources, implementations, mappings with two
 * versions, flows, partners on webhook and polling delivery) and documents sent through the
 * pipeline (delivered, in error, with warnings, unreadable), so that transaction, result,
 * artifact and trace ids exist. Used by the cross-organization probing test and by the API
 * fuzzer (`npm run fuzz:api`, test/fuzz/api-fuzz.ts).
 *
 * Every secret is random per organization and returned in `secrets`, so a test can look for
 * each of them in every response it received.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import type { ResultRecord, StoredTransaction } from '../../../src/domain/records.ts';
import { statusOf } from '../../../src/domain/records.ts';
import { eventually } from '../helpers/isolated-config.ts';
import type { Pipeline } from '../pipeline/support.ts';
import { from, interchange, invoice810, po850 } from './fixture.ts';

/** The SFTP account the connections name (the stack's, from `sftpFolder`). */
export interface SftpAccount {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly privateKey: string;
  readonly dir: string;
}

/** The secrets one organization's configuration holds. */
export interface Secrets {
  readonly sftpPassword: string;
  readonly passphrase: string;
  readonly sandboxToken: string;
  readonly signingSecret: string;
  readonly privateKey: string;
}

export function newSecrets(privateKey: string): Secrets {
  const r = (n: number): string => randomBytes(n).toString('hex');
  return {
    sftpPassword: `pw-${r(12)}`,
    passphrase: `pass-${r(12)}`,
    sandboxToken: `sbx-${r(16)}`,
    signingSecret: `whsec_${randomBytes(24).toString('base64')}`,
    privateKey,
  };
}

/** The configuration: every resource kind, every secret field that a connection or webhook takes. */
export function populatedDoc(sftp: SftpAccount, webhookBase: string, s: Secrets, note = 'first version', extraPartner?: string): ConfigDocument {
  const inbound850 = { transactionSetIdentifier: '850', release: '004010', direction: 'inbound' as const, usageIndicator: 'P' as const, implementation: 'po-850' };
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'globex', external: true, interchangeExtid: 'GLOBEX', interchangeExtidQualifier: 'ZZ', applicationCode: 'GLOBEX' },
      { name: 'acme', external: true, interchangeExtid: 'ACME', interchangeExtidQualifier: 'ZZ', applicationCode: 'ACME' },
      { name: 'hooli', external: true, interchangeExtid: 'HOOLI', interchangeExtidQualifier: 'ZZ', applicationCode: 'HOOLI' },
    ],
    connections: [
      { name: 'globex-sftp', kind: 'sftp', host: sftp.host, port: sftp.port, username: sftp.username, privateKey: s.privateKey, passphrase: s.passphrase, inboundDirectory: `${sftp.dir}/in`, outboundDirectory: `${sftp.dir}/out`, tags: ['probe'] },
      { name: 'spare-sftp', kind: 'sftp', host: sftp.host, port: sftp.port, username: sftp.username, password: s.sftpPassword, inboundDirectory: `${sftp.dir}/in`, outboundDirectory: `${sftp.dir}/out` },
      { name: 'sandbox', kind: 'sandbox', sandboxToken: s.sandboxToken },
    ],
    webhooks: [
      { name: 'erp-in', kind: 'standard', url: `${webhookBase}/in`, contentType: 'application/json', signingSecret: s.signingSecret },
      { name: 'erp-errors', kind: 'standard', url: `${webhookBase}/errors`, contentType: 'application/json', signingSecret: s.signingSecret },
    ],
    sources: [{ name: 'erp-order', semantics: 'Orders as the ERP keeps them.', sample: { orderNumber: 'PO-1', lines: [{ sku: 'A', quantity: 1 }] } }],
    implementations: [
      { name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, description: 'Purchase orders', tags: ['probe'], definition: { base: true } },
      { name: 'inv-810', version: '1', status: 'draft', transactionSet: { identifier: '810', release: '004010' }, definition: { base: true } },
    ],
    mappings: [
      {
        name: 'po-to-erp',
        direction: 'inbound',
        implementation: 'po-850',
        source: 'erp-order',
        note,
        transformation: '{ "orderNumber": heading.beginning_segment_for_purchase_order_BEG.purchase_order_number_03, "lines": [detail.baseline_item_data_PO1_loop.baseline_item_data_PO1.{ "sku": product_service_id_07, "quantity": quantity_ordered_02 }] }' + (note === 'first version' ? '' : ` /* ${note} */`),
      },
    ],
    partners: [
      { key: 'GLOBEX', name: 'Globex Inc', deliveryMethod: 'polling', generateAcknowledgments: true, trackAcknowledgments: false, connection: 'globex-sftp', frequency: 0, envelopes: { internal: 'us', external: 'globex' }, transactionSets: [inbound850] },
      { key: 'ACME', name: 'Acme Corp', deliveryMethod: 'polling', envelopes: { internal: 'us', external: 'acme' }, transactionSets: [{ ...inbound850, mapping: 'po-to-erp' }] },
      { key: 'HOOLI', name: 'Hooli', deliveryMethod: 'webhook', envelopes: { internal: 'us', external: 'hooli' }, webhooks: { inbound: 'erp-in', error: 'erp-errors' }, transactionSets: [inbound850] },
      // a partner key only this organization has (for probing another organization's keys)
      ...(extraPartner ? [{ key: extraPartner, name: `${extraPartner} Ltd`, deliveryMethod: 'polling' as const, envelopes: { internal: 'us', external: 'acme' }, transactionSets: [inbound850] }] : []),
    ],
  };
}

/** A receiver for the webhook partner: answers every call 204. */
export async function webhookSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

/** The ids an organization's data gave. */
export interface Populated {
  readonly traces: string[];
  readonly transactions: StoredTransaction[];
  readonly results: ResultRecord[];
  readonly artifactIds: string[];
  /** Configuration ids by kind (`connection`, `envelope`, ...), read back from the list endpoints. */
  readonly config: Record<string, string[]>;
  readonly partnerKeys: string[];
  /** Version numbers of each mapping, by mapping id. */
  readonly mappingVersions: Record<string, number[]>;
}

type Api = Pipeline['api'];

const CONFIG_LISTS = { connection: 'connections', envelope: 'envelopes', webhook: 'webhooks', flow: 'flows', mapping: 'mappings', implementation: 'implementations', source: 'sources' } as const;

/** Sends documents for an organization, waits until they settled, and gathers its ids. */
export async function populate(p: Pipeline, org: string, tenant: { api: Api; submitEdi: Pipeline['submitEdi'] }, control = 100): Promise<Populated> {
  const sends: [string, string][] = [
    ['GLOBEX', interchange({ sender: from('GLOBEX'), control: control + 1, groups: [{ sets: [po850(`PO-${control}-1`), po850(`PO-${control}-2`, 3)] }] })],
    ['globex', interchange({ sender: from('GLOBEX'), control: control + 2, groups: [{ sets: [invoice810(`INV-${control}`)] }] })],
    ['acme', interchange({ sender: from('ACME'), control: control + 3, usage: 'T', groups: [{ sets: [po850(`PX-${control}`)] }] })],
    ['ACME', 'ISA*00*an interchange nobody can read~'],
    ['HOOLI', interchange({ sender: from('OTHER'), control: control + 4, groups: [{ sets: [po850(`PH-${control}`)] }] })],
  ];
  const traces: string[] = [];
  for (const [key, edi] of sends) {
    const r = await tenant.submitEdi(key, edi);
    if (r.status !== 202) throw new Error(`submission to ${key} answered ${r.status}: ${JSON.stringify(r.body)}`);
    traces.push(r.body['traceGuid'] as string);
  }
  const stores = await p.reader.stores();
  const transactions: StoredTransaction[] = [];
  const results: ResultRecord[] = [];
  for (const [i, trace] of traces.entries()) {
    const expected = [2, 1, 1, 0, 1][i]!;
    await eventually(
      async () => {
        const t = await stores.transactions.byTrace(org, trace);
        const r = await stores.results.byTrace(org, trace);
        if (expected === 0) return r.some((x) => x.status === 'error') ? true : undefined;
        return t.length >= expected && t.every((x) => statusOf(x) !== 'processing') ? true : undefined;
      },
      90_000,
      `trace ${trace} to settle`,
    );
    transactions.push(...(await stores.transactions.byTrace(org, trace)));
    results.push(...(await stores.results.byTrace(org, trace)));
  }
  const artifactIds = [...new Set(results.flatMap((r) => (r.detail.artifacts ?? []).map((a) => a.id)))];
  const config: Record<string, string[]> = {};
  for (const [kind, arrayName] of Object.entries(CONFIG_LISTS)) {
    const r = await tenant.api(`/platform/${arrayName}?limit=100`);
    if (r.status !== 200) throw new Error(`list ${arrayName} answered ${r.status}`);
    config[kind] = (r.body[arrayName] as { id: string }[]).map((x) => x.id);
  }
  const partners = await tenant.api('/platform/partners?limit=100');
  const partnerKeys = (partners.body['partners'] as { key: string }[]).map((x) => x.key);
  const mappingVersions: Record<string, number[]> = {};
  for (const id of config['mapping'] ?? []) {
    const v = await tenant.api(`/platform/mappings/${id}/versions`);
    mappingVersions[id] = (v.body['versions'] as { versionNumber: number }[]).map((x) => x.versionNumber);
  }
  return { traces, transactions, results, artifactIds, config, partnerKeys, mappingVersions };
}
