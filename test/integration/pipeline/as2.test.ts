/**
 * AS2 through the whole pipeline on the real stack, against pyas2lib (an AS2 implementation
 * nobody here wrote, run as a separate Python peer):
 *
 * - pyas2lib sends an 850 to a partner's AS2 connection → our endpoint stores it and starts the
 *   partner's inbound flow → pyas2lib verifies our MDN → the order is delivered to the feed with
 *   `detail.as2` on the input result → our 997 goes back to pyas2lib's server over AS2
 *   (as2_send), whose MDN we verify;
 * - an 810 submitted through `/platform/partners/:key/documents` reaches pyas2lib, MDN verified;
 * - asynchronous MDNs both ways; a receipt that never comes (error once the wait ends);
 * - a negative MDN from the peer, and a peer that is down (retries, then an error result);
 * - a message id received twice is processed once; a connection without a partner, a tampered
 *   message, a wrong certificate and an unknown AS2-To get the right negative MDN and store nothing;
 * - the demo's AS2 partner GADGET (deploy/demo/config.yaml, keys by deploy/demo/as2-keys.sh) takes
 *   the README's command: the sample order sent with the bundled peer script.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readConfigFile } from '../../../src/admin/config-file.ts';
import { as2TraceGuid } from '../../../src/domain/as2-delivery.ts';
import { x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';
import type { ConfigDocument, ConnectionDoc, PartnerDoc } from '../../../src/domain/configuration.ts';
import { feedEntryId } from '../../../src/domain/ids.ts';
import { statusOf, type ResultRecord } from '../../../src/domain/records.ts';
import { keyPair } from '../../support/as2-keys.ts';
import { PeerServer, peerPython, peerSend, type PeerSendResult } from '../helpers/as2-peer.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { kafkaQuiet } from '../helpers/quiet.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const python = peerPython();
const root = path.resolve(import.meta.dirname, '../../..');
const demo = parse(readFileSync(path.join(root, 'deploy/demo/config.yaml'), 'utf8')) as ConfigDocument;

// AS2 identifiers with a space: both sides quote them in headers (RFC 4130 §6.2)
const US = 'TDX AS2';
const PEER_ID = 'PYAS2 PEER';
const ORG_PEER_ID = 'PYAS2 ORG PEER';
const ours = keyPair('tdx-pipeline');
const peerKeys = keyPair('peer-pipeline');
const stranger = keyPair('stranger-pipeline');
const dir = mkdtempSync(path.join(tmpdir(), 'tdx-as2-pipeline-'));
const file = (name: string): string => path.join(dir, name);
for (const [name, k] of Object.entries({ ours, peer: peerKeys, stranger })) {
  writeFileSync(file(`${name}.key.pem`), k.privateKeyPem);
  writeFileSync(file(`${name}.cert.pem`), k.certificatePem);
}
const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** An 850 from the peer to us, written to a file for pyas2lib. */
function order(control: number, po: string): string {
  const f = file(`po-${control}.edi`);
  writeFileSync(f, interchange({ sender: { qualifier: 'ZZ', id: 'PYAS2PEER' }, receiver: { qualifier: 'ZZ', id: 'TDXUS' }, control, groups: [{ sets: [po850(po)] }] }));
  return f;
}

/** An ERP invoice (the demo source's shape). */
const invoice = (n: string): Record<string, unknown> => ({ invoiceNumber: `INV-${n}`, invoiceDate: '2026-03-05', orderNumber: `PO-${n}`, total: 25, lines: [{ sku: 'WIDGET-1', quantity: 10, unitPrice: 2.5 }] });

const peer = new PeerServer();
const peerWrongCert = new PeerServer();
// the demo partner GADGET's side, with the keys the demo's script makes
const gadget = new PeerServer();
const demoKeys = path.join(dir, 'demo-as2');
const demoAs2Env = Object.fromEntries([...execFileSync('bash', [path.join(root, 'deploy/demo/as2-keys.sh'), demoKeys], { encoding: 'utf8' }).matchAll(/^export (DEMO_AS2_\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
let silent: Server;
let silentUrl = '';
let p: Pipeline;
const connectionIds = new Map<string, string>();
const early = new Map<string, string>();

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** pyas2lib sends `edi` to one of our connections, signed and encrypted by default. */
function peerSends(connection: string, edi: string, ...options: string[]): Promise<PeerSendResult> {
  const id = connectionIds.get(connection) ?? connection;
  return peerSend([
    '--url', `${p.url}/as2/${id}`, '--file', edi, '--as2-from', PEER_ID, '--as2-to', US,
    '--key', file('peer.key.pem'), '--cert', file('peer.cert.pem'), '--partner-cert', file('ours.cert.pem'),
    '--sign', 'sha256', '--encrypt', 'aes_256_cbc', '--mdn-sign', 'sha256', '--wait', '30',
    ...options,
  ]);
}

const byService = (results: readonly ResultRecord[], service: string): ResultRecord[] => results.filter((r) => r.service === service);
const as2Of = (r: ResultRecord | undefined): Record<string, unknown> => (r?.detail['as2'] ?? {}) as Record<string, unknown>;

async function logsOf(trace: string): Promise<{ message: string; level: string }[]> {
  const ch = await p.reader.clickhouse();
  const rs = await ch.client.query({ query: `SELECT message, level FROM ${ch.database}.logs WHERE org_id = {org:String} AND trace_guid = {t:String} ORDER BY created_at`, query_params: { org: p.org, t: trace }, format: 'JSONEachRow' });
  return rs.json<{ message: string; level: string }>();
}

async function artifactText(id: string): Promise<string> {
  const stores = await p.reader.stores();
  const rec = await stores.artifacts.get(p.org, id);
  if (!rec) throw new Error(`artifact ${id} is not stored`);
  return (await stores.artifacts.read(rec)).toString('latin1');
}

describe.skipIf(python === null)('AS2 through the pipeline, against pyas2lib', () => {
  beforeAll(async () => {
    const apiPort = await freePort();
    const out = mkdtempSync(path.join(tmpdir(), 'tdx-as2-peer-out-'));
    const serve = (partnerCert: string): string[] => ['--as2-id', PEER_ID, '--key', file('peer.key.pem'), '--cert', file('peer.cert.pem'), '--partner-id', US, '--partner-cert', partnerCert, '--out', out];
    const gadgetServe = ['--as2-id', 'GADGETAS2', '--partner-id', 'DEMOCORP', '--key', path.join(demoKeys, 'gadgetas2.key.pem'), '--cert', path.join(demoKeys, 'gadgetas2.cert.pem'), '--partner-cert', path.join(demoKeys, 'democorp.cert.pem'), '--out', out];
    await Promise.all([peer.start(serve(file('ours.cert.pem'))), peerWrongCert.start(serve(file('stranger.cert.pem'))), gadget.start(gadgetServe)]);
    // a receiver that takes messages in async mode and never sends the receipt
    silent = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'Content-Length': '0' });
        res.end();
      });
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/as2`;

    const keys = { privateKey: ours.privateKeyPem, certificate: ours.certificatePem, partnerCertificate: peerKeys.certificatePem };
    const asyncMdn = { mode: 'async' as const, signed: true, asyncUrl: `http://127.0.0.1:${apiPort}/as2/mdn`, waitSeconds: 30 };
    const conn = (name: string, url: string, more: Partial<NonNullable<ConnectionDoc['as2']>> = {}): ConnectionDoc => ({ name, kind: 'as2', ...keys, as2: { localId: US, partnerId: PEER_ID, url, ...more } });
    const outbound810 = { transactionSetIdentifier: '810', release: '004010', direction: 'outbound' as const, usageIndicator: 'P' as const, implementation: 'demo-810-outbound', mapping: 'demo-erp-to-810' };
    const inbound850 = { transactionSetIdentifier: '850', release: '004010', direction: 'inbound' as const, usageIndicator: 'P' as const, implementation: 'po-850' };
    const partner = (key: string, connection: string, sets: PartnerDoc['transactionSets'], acks = false): PartnerDoc => ({
      key,
      name: `${key} Inc`,
      deliveryMethod: 'polling',
      generateAcknowledgments: acks,
      trackAcknowledgments: false,
      connection,
      envelopes: { internal: 'us', external: 'peer' },
      transactionSets: sets,
    });
    const doc: ConfigDocument = {
      envelopes: [
        { name: 'us', external: false, interchangeExtid: 'TDXUS', interchangeExtidQualifier: 'ZZ', applicationCode: 'TDXUS' },
        { name: 'peer', external: true, interchangeExtid: 'PYAS2PEER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PYAS2PEER' },
      ],
      connections: [
        // unencrypted messages accepted here, so a tampered (signed, clear) one reaches the signature check
        conn('peer-sync', peer.url, { requireEncryption: false }),
        conn('peer-async', peer.url, { mdn: asyncMdn, signing: 'sha384', encryption: 'aes128-cbc', compression: true }),
        conn('peer-neg', peerWrongCert.url),
        conn('peer-down', 'http://127.0.0.1:1/as2'),
        conn('peer-silent', silentUrl, { mdn: { ...asyncMdn, waitSeconds: 3 } }),
        conn('orphan', peer.url),
        // a partner of its own AS2 identifier: reached through the organization's URL
        conn('peer-org', peer.url, { partnerId: ORG_PEER_ID, requireEncryption: false }),
      ],
      sources: demo.sources!.filter((s) => s.name === 'erp-invoice'),
      implementations: [demo.implementations!.find((i) => i.name === 'demo-810-outbound')!, { name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
      mappings: demo.mappings!.filter((m) => m.name === 'demo-erp-to-810'),
      partners: [
        partner('PEER', 'peer-sync', [inbound850, outbound810], true),
        partner('PEERASYNC', 'peer-async', [inbound850, outbound810], true),
        partner('NEG', 'peer-neg', [outbound810]),
        partner('DOWN', 'peer-down', [outbound810]),
        partner('SILENT', 'peer-silent', [outbound810]),
        partner('ORGP', 'peer-org', [inbound850]),
      ],
    };
    // the demo's GADGET, as the demo file resolves with its keys (its url: this test's GADGET peer)
    const demoDoc = readConfigFile(path.join(root, 'deploy/demo/config.yaml'), x12ImplementationEngine, { env: { SFTP_USERNAME: 'demo', ...demoAs2Env } });
    const gadgetPartner = demoDoc.partners!.find((x) => x.key === 'GADGET')!;
    const gadgetConn = demoDoc.connections!.find((c) => c.name === gadgetPartner.connection)!;
    const named = <T extends { name: string }>(have: T[] | undefined, all: T[] | undefined, wanted: (x: T) => boolean): T[] => [...(have ?? []), ...(all ?? []).filter((x) => wanted(x) && !(have ?? []).some((h) => h.name === x.name))];
    doc.connections!.push({ ...gadgetConn, as2: { ...gadgetConn.as2!, url: gadget.url } });
    doc.envelopes = named(doc.envelopes, demoDoc.envelopes, (e) => e.name === gadgetPartner.envelopes!.internal || e.name === gadgetPartner.envelopes!.external);
    doc.webhooks = named(doc.webhooks, demoDoc.webhooks, (w) => Object.values(gadgetPartner.webhooks ?? {}).includes(w.name));
    doc.implementations = named(doc.implementations, demoDoc.implementations, () => true);
    doc.mappings = named(doc.mappings, demoDoc.mappings, () => true);
    doc.sources = named(doc.sources, demoDoc.sources, () => true);
    doc.partners!.push(gadgetPartner);
    p = await startPipeline(doc, { env: { TDX_API_PORT: String(apiPort), TDX_AS2_MDN_CHECK_INTERVAL_MS: '500' }, sharedKeyspace: true });
    const list = await p.api('/platform/connections?limit=100');
    for (const c of list.body['connections'] as { id: string; name: string; as2Ready: boolean }[]) {
      connectionIds.set(c.name, c.id);
      expect(c.as2Ready, c.name).toBe(true);
    }
    // the slow cases start now and are checked last
    for (const key of ['DOWN', 'SILENT']) {
      const r = await p.submitDocument(key, { transactionSetIdentifier: '810', document: invoice(key) });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      early.set(key, r.body['traceGuid'] as string);
    }
  }, 300_000);

  afterAll(async () => {
    peer.stop();
    peerWrongCert.stop();
    gadget.stop();
    await new Promise<void>((r) => (silent ? silent.close(() => r()) : r()));
    await p?.stop();
  }, 60_000);

  it('pyas2lib sends an 850: our MDN verifies, the order reaches the feed with detail.as2, and our 997 goes back over AS2 with its MDN verified', async () => {
    const sent = await peerSends('peer-sync', order(101, 'PO-AS2-1'));
    expect(sent.httpStatus).toBe(200);
    expect([sent.mdnStatus, sent.mdnDetail, sent.mdnSigned]).toEqual(['processed', null, true]);

    const trace = as2TraceGuid(connectionIds.get('peer-sync')!, sent.messageId);
    const txs = await p.settled(trace, 2);
    const po = txs.find((t) => t.transactionSetIdentifier === '850')!;
    const ack = txs.find((t) => t.transactionSetIdentifier === '997')!;
    expect([statusOf(po), statusOf(ack)]).toEqual(['delivered', 'delivered']);
    expect(po.reference).toBe('PO-AS2-1');

    const results = await p.results(trace);
    const [input] = byService(results, 'as2_receive');
    expect(input?.status).toBe('success');
    expect(as2Of(input)).toMatchObject({ messageId: sent.messageId, from: PEER_ID, to: US, signed: 'sha256', encrypted: 'aes256-cbc', compressed: 'no', mdnMode: 'sync' });
    // pyas2lib computed the MIC over what it signed; we returned the same one
    expect(String(as2Of(input)['mic']).split(',')[0]).toBe(sent.mic);

    const feed = byService(results, 'feed').find((r) => r.transactionId === po.id)!;
    const stores = await p.reader.stores();
    // recorded by the feed sequencer within the feed's lag of the feed step's result
    const entries = await eventually(async () => {
      const e = await stores.feed.get(p.org, [{ id: feedEntryId(feed.id), traceGuid: feed.traceGuid }]);
      return e.size > 0 ? e : undefined;
    }, 10_000, 'the feed entry');
    expect(entries.size).toBe(1);

    const [delivery] = byService(results, 'as2_send');
    expect(delivery?.status).toBe('success');
    const d = as2Of(delivery);
    expect(d).toMatchObject({ from: US, to: PEER_ID, url: peer.url, mdnMode: 'sync', mdnStatus: 'processed', micMatched: true });
    const event = peer.eventFor(String(d['messageId']));
    expect(event).toMatchObject({ status: 'processed', signed: true, encrypted: true, digestAlg: 'sha256' });
    expect(`${event!.mic}, sha-256`).toBe(d['mic']);
    const got997 = readFileSync(event!.payloadPath!, 'latin1');
    expect(got997).toMatch(/ST\*997\*/);
    expect(got997).toMatch(/AK1\*PO\*101/);
    expect(got997).toContain('TDXUS');
  });

  it('an 810 submitted through /platform/partners/:key/documents reaches pyas2lib, its MDN verified, and the transaction is delivered', async () => {
    const r = await p.submitDocument('PEER', { transactionSetIdentifier: '810', document: invoice('9001') });
    expect(r.status).toBe(202);
    const trace = r.body['traceGuid'] as string;
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('delivered');
    const [delivery] = byService(await p.results(trace), 'as2_send');
    const d = as2Of(delivery);
    expect(d).toMatchObject({ mdnStatus: 'processed', micMatched: true, httpStatus: 200 });
    expect(String(d['messageId'])).toMatch(/^tdx-[0-9a-f-]{36}@tdx-as2$/);
    const event = peer.eventFor(String(d['messageId']))!;
    expect(event.status).toBe('processed');
    // what pyas2lib decrypted is, byte for byte, the interchange we wrote
    const written = await artifactText(tx!.roles['output']!.artifact!.id);
    expect(event.payloadSha256).toBe(sha256(Buffer.from(written, 'latin1')));
    expect(written).toContain('BIG*20260305*INV-9001');
  });

  it('asynchronous MDNs both ways: pyas2lib gets ours posted by as2_receive, and our 997 and 810 are completed by the receipts pyas2lib posts to /as2/mdn', async () => {
    const sent = await peerSends('peer-async', order(102, 'PO-AS2-ASYNC'), '--mdn', 'async', '--sign', 'sha512', '--mdn-sign', 'sha512');
    expect([sent.mdnStatus, sent.mdnDetail, sent.mdnSigned]).toEqual(['processed', null, true]);
    const trace = as2TraceGuid(connectionIds.get('peer-async')!, sent.messageId);
    const txs = await p.settled(trace, 2);
    expect(txs.map(statusOf)).toEqual(['delivered', 'delivered']);
    const results = await p.results(trace);
    expect(as2Of(byService(results, 'as2_receive')[0])).toMatchObject({ messageId: sent.messageId, mdnMode: 'async', signed: 'sha512' });
    const ackDelivery = as2Of(byService(results, 'as2_send')[0]);
    expect(ackDelivery).toMatchObject({ mdnMode: 'async', mdnStatus: 'processed', micMatched: true });
    // the peer notes the post once our answer reaches it, which can be after the 997 reads delivered
    const posted = await eventually(() => peer.eventFor(String(ackDelivery['messageId']), 'async-mdn-posted'), 10_000, 'the peer to note its MDN post');
    expect(posted).toMatchObject({ httpStatus: 200 });
    expect(peer.eventFor(String(ackDelivery['messageId']))).toMatchObject({ status: 'processed', compressed: true, digestAlg: 'sha384', mdnMode: 'ASYNC' });
    // two entries from two steps (as2_receive posting our MDN, as2_send awaiting the peer's), each
    // in ClickHouse when the materializer gets to it: wait for both, not for one of them
    const logs = await eventually(async () => {
      const l = await logsOf(trace);
      return l.some((x) => x.message.startsWith('Asynchronous MDN for AS2 message')) && l.some((x) => /awaiting the asynchronous MDN until/.test(x.message)) ? l : undefined;
    }, 30_000, 'the log entries of the posted MDN and of the awaited one');
    expect(logs.map((l) => l.message).join('\n')).toMatch(/awaiting the asynchronous MDN until/);

    const r = await p.submitDocument('PEERASYNC', { transactionSetIdentifier: '810', document: invoice('9002') });
    const [tx] = await p.settled(r.body['traceGuid'] as string, 1);
    expect(statusOf(tx!)).toBe('delivered');
    expect(as2Of(byService(await p.results(r.body['traceGuid'] as string), 'as2_send')[0])).toMatchObject({ mdnMode: 'async', mdnStatus: 'processed', micMatched: true });
  });

  it('a negative MDN from the peer (it holds a wrong certificate for us) makes the delivery an error result with the disposition', async () => {
    const r = await p.submitDocument('NEG', { transactionSetIdentifier: '810', document: invoice('9003') });
    const trace = r.body['traceGuid'] as string;
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('error');
    const [failed] = byService(await p.results(trace), 'as2_send');
    expect(failed?.status).toBe('error');
    expect(failed?.detail.errorMessage).toMatch(/^AS2 delivery of 810_\d+\.edi to PYAS2 PEER \(.*\) failed: the partner reports processed\/error: authentication-failed/i);
    expect(as2Of(failed)).toMatchObject({ mdnStatus: 'failed' });
    expect(String(as2Of(failed)['disposition'])).toMatch(/processed\/error: authentication-failed/i);
  });

  it('a message id received twice is acknowledged twice and processed once; the id again with other content is refused, never a plain processed', async () => {
    const id = `dup-${Date.now()}@peer.test`;
    const firstFile = order(103, 'PO-FIRST');
    const first = await peerSends('peer-sync', firstFile, '--message-id', id.split('@')[0]!);
    const trace = as2TraceGuid(connectionIds.get('peer-sync')!, first.messageId);
    await p.settled(trace, 2);
    const again = await peerSends('peer-sync', firstFile, '--message-id', id.split('@')[0]!);
    expect(again.messageId).toBe(first.messageId);
    expect([first.mdnStatus, again.mdnStatus]).toEqual(['processed', 'processed']);
    expect(again.mdnRaw).toMatch(/received before; it is acknowledged again and not processed twice/);
    const other = await peerSends('peer-sync', order(104, 'PO-SECOND'), '--message-id', id.split('@')[0]!);
    expect(other.messageId).toBe(first.messageId);
    expect([other.mdnStatus, other.mdnDetail]).toEqual(['processed/error', 'unexpected-processing-error']);
    expect(other.mdnRaw).toMatch(/received before with other content/);
    // asked for an asynchronous receipt, a verified sender gets the refusal where it asked
    const otherAsync = await peerSends('peer-sync', order(105, 'PO-THIRD'), '--message-id', id.split('@')[0]!, '--mdn', 'async');
    expect([otherAsync.mdnStatus, otherAsync.mdnDetail, otherAsync.mdnVia]).toEqual(['processed/error', 'unexpected-processing-error', 'post']);
    // had the second been processed, its bytes would have replaced the input (same ids) and its PO the reference
    await kafkaQuiet(p.iso.config);
    const txs = await p.transactions(trace);
    expect(txs.filter((t) => t.transactionSetIdentifier === '850').map((t) => t.reference)).toEqual(['PO-FIRST']);
    const input = byService(await p.results(trace), 'as2_receive');
    expect(input).toHaveLength(1);
    expect(await artifactText(input[0]!.detail.artifacts![0]!.id)).toContain('PO-FIRST');
  });

  it('one receiving URL per organization routes by AS2-From and AS2-To; parties naming no single connection are refused', async () => {
    const base = ['--key', file('peer.key.pem'), '--cert', file('peer.cert.pem'), '--partner-cert', file('ours.cert.pem'), '--sign', 'sha256', '--wait', '30'];
    const sent = await peerSend(['--url', `${p.url}/as2/org/${p.org}`, '--file', order(120, 'PO-ORG-URL'), '--as2-from', ORG_PEER_ID, '--as2-to', US, '--mdn-sign', 'sha256', ...base]);
    expect([sent.httpStatus, sent.mdnStatus, sent.mdnDetail, sent.mdnSigned]).toEqual([200, 'processed', null, true]);
    const trace = as2TraceGuid(connectionIds.get('peer-org')!, sent.messageId);
    const [t] = await p.settled(trace, 1);
    expect([t!.partnerKey, t!.reference]).toEqual(['ORGP', 'PO-ORG-URL']);
    // PEER and PEERASYNC share one pair of identifiers: only their per-connection URLs tell them apart
    const shared = await peerSend(['--url', `${p.url}/as2/org/${p.org}`, '--file', order(121, 'PO-ORG-SHARED'), '--as2-from', PEER_ID, '--as2-to', US, ...base]);
    expect([shared.httpStatus, shared.mdnStatus, shared.mdnDetail]).toEqual([200, 'processed/error', 'unknown-trading-partner']);
    expect(shared.mdnRaw).toMatch(/[2-9] connections of this organization have them/);
    const nobody = await peerSend(['--url', `${p.url}/as2/org/${p.org}`, '--file', order(122, 'PO-ORG-NOBODY'), '--as2-from', 'NOBODY', '--as2-to', US, ...base]);
    expect([nobody.mdnStatus, nobody.mdnDetail]).toEqual(['processed/error', 'unknown-trading-partner']);
    expect(await p.transactions(as2TraceGuid(connectionIds.get('peer-org')!, nobody.messageId))).toEqual([]);
  });

  it('refuses with the right negative MDN and stores nothing: no partner on the connection, a tampered message, a wrong certificate, an unknown AS2-To', async () => {
    const tampered = (): Promise<PeerSendResult> =>
      // signed, in clear (pyas2lib flips a bit of the visible payload after signing)
      peerSend(['--url', `${p.url}/as2/${connectionIds.get('peer-sync')!}`, '--file', order(110, 'PO-TAMPER'), '--as2-from', PEER_ID, '--as2-to', US, '--key', file('peer.key.pem'), '--cert', file('peer.cert.pem'), '--partner-cert', file('ours.cert.pem'), '--sign', 'sha256', '--mdn-sign', 'sha256', '--tamper']);
    const cases: [string, string, () => Promise<PeerSendResult>][] = [
      ['orphan', 'unexpected-processing-error', () => peerSends('orphan', order(111, 'PO-ORPHAN'))],
      ['peer-sync', 'integrity-check-failed', tampered],
      ['peer-sync', 'authentication-failed', () => peerSends('peer-sync', order(112, 'PO-STRANGER'), '--key', file('stranger.key.pem'), '--cert', file('stranger.cert.pem'))],
      ['peer-sync', 'unknown-trading-partner', () => peerSends('peer-sync', order(113, 'PO-UNKNOWN'), '--as2-to', 'NOT US')],
    ];
    for (const [connection, modifier, sendIt] of cases) {
      const r = await sendIt();
      expect([connection, r.httpStatus, r.mdnStatus, r.mdnDetail, r.mdnSigned]).toEqual([connection, 200, 'processed/error', modifier, true]);
      if (connection === 'orphan') expect(r.mdnRaw).toMatch(/no partner receives inbound documents over this AS2 connection/);
      const trace = as2TraceGuid(connectionIds.get(connection)!, r.messageId);
      expect(await p.results(trace)).toEqual([]);
      expect(await p.transactions(trace)).toEqual([]);
    }
  });

  it('the demo partner GADGET: the README\'s peer command sends the sample order, the MDN verifies, the order is mapped for the ERP and the 997 goes back', async () => {
    const K = demoKeys;
    // as in the README, with this test's API address and the connection id it looked up
    const sent = await peerSend([
      '--url', `${p.url}/as2/${connectionIds.get('gadget-as2')!}`, '--file', path.join(root, 'deploy/demo/samples/gadget-850.edi'),
      '--as2-from', 'GADGETAS2', '--as2-to', 'DEMOCORP', '--key', `${K}/gadgetas2.key.pem`, '--cert', `${K}/gadgetas2.cert.pem`,
      '--partner-cert', `${K}/democorp.cert.pem`, '--sign', 'sha256', '--encrypt', 'aes_256_cbc', '--mdn-sign', 'sha256',
    ]);
    expect([sent.httpStatus, sent.mdnStatus, sent.mdnDetail, sent.mdnSigned]).toEqual([200, 'processed', null, true]);
    const trace = as2TraceGuid(connectionIds.get('gadget-as2')!, sent.messageId);
    const txs = await p.settled(trace, 2);
    const po = txs.find((t) => t.transactionSetIdentifier === '850')!;
    expect([statusOf(po), po.reference, po.partnerKey]).toEqual(['delivered', 'PO-2001', 'GADGET']);
    const results = await p.results(trace);
    const mapped = byService(results, 'mapping')[0]!;
    const output = await artifactText(mapped.payload!.artifactId);
    expect(JSON.parse(output)).toMatchObject({ orderNumber: 'PO-2001', buyer: { name: 'Gadget Retail', id: 'GADGET' } });
    const ack = as2Of(byService(results, 'as2_send')[0]);
    expect(ack).toMatchObject({ from: 'DEMOCORP', to: 'GADGETAS2', mdnStatus: 'processed', micMatched: true });
    expect(gadget.eventFor(String(ack['messageId']))).toMatchObject({ status: 'processed', signed: true, encrypted: true });
  });

  it('a receipt that never comes: the delivery is an error once the connection\'s wait (3 s) ends', async () => {
    const trace = early.get('SILENT')!;
    const [tx] = await p.settled(trace, 1, 60_000);
    expect(statusOf(tx!)).toBe('error');
    const [failed] = byService(await p.results(trace), 'as2_send');
    expect(failed?.detail.errorMessage).toMatch(/^AS2 delivery of 810_\d+\.edi to PYAS2 PEER \(http:\/\/127\.0\.0\.1:\d+\/as2\) failed: no MDN for message tdx-.* within 3 s\.$/);
    expect(as2Of(failed)).toMatchObject({ mdnMode: 'async', mdnStatus: 'timeout', error: 'no MDN within 3 s' });
  });

  it('a peer that is down: tried 6 times through the delay topics with one message id, then an error result', async () => {
    const trace = early.get('DOWN')!;
    const [tx] = await p.settled(trace, 1, 120_000);
    expect(statusOf(tx!)).toBe('error');
    const [failed] = byService(await p.results(trace), 'as2_send');
    expect(failed?.detail.errorMessage).toMatch(/^AS2 delivery of 810_\d+\.edi to PYAS2 PEER \(http:\/\/127\.0\.0\.1:1\/as2\) failed after 6 attempts: ECONNREFUSED/);
    const messageId = String(as2Of(failed)['messageId']);
    const retries = await eventually(async () => {
      const l = (await logsOf(trace)).filter((x) => x.level === 'warn');
      return l.length >= 5 ? l : undefined;
    }, 30_000, 'five retry log entries');
    expect(retries.map((l) => /attempt (\d) of 6/.exec(l.message)?.[1])).toEqual(['1', '2', '3', '4', '5']);
    for (const l of retries) expect(l.message).toContain(`same message id ${messageId}`);
  });
});
