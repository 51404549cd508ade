/* eslint-disable @typescript-eslint/require-await -- fakes of async ports answer synchronously */
/**
 * The AS2 endpoints over in-memory stores, with real AS2 messages (built and read by the AS2
 * adapter): what an accepted message leaves behind and in which order (bytes, work, message
 * id, then the MDN), a message id received twice, 503 when a store or the broker fails (and the
 * partner's next attempt taken in), no inbound flow, async receipts handed to as2_receive, the
 * body limit, and asynchronous receipts settling an awaited delivery once (a forged unsigned
 * receipt refused, a late one noted).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mimeHeadersOf } from '../../../src/adapters/as2/index.ts';
import { loadCredentials } from '../../../src/adapters/as2/keys.ts';
import { buildMdn, parseMdn } from '../../../src/adapters/as2/mdn.ts';
import { buildMessage } from '../../../src/adapters/as2/message.ts';
import { computeMic } from '../../../src/adapters/as2/mic.ts';
import type { As2AwaitedMdnStore, AwaitedMdn } from '../../../src/adapters/as2/pipeline.ts';
import type { As2ReceivedEntry } from '../../../src/adapters/cassandra/as2-store.ts';
import { as2TraceGuid, type As2DeliveryDetail, type As2ReceiptOutcome } from '../../../src/domain/as2-delivery.ts';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { resultId } from '../../../src/domain/ids.ts';
import type { ArtifactRecord } from '../../../src/domain/records.ts';
import type { StoredBytes } from '../../../src/domain/processing-ports.ts';
import { TdxError } from '../../../src/errors.ts';
import { as2Router } from '../../../src/http/as2/routes.ts';
import { createApp } from '../../../src/http/app.ts';
import { createLogger } from '../../../src/logger.ts';
import { artifactId } from '../../../src/nodes/outcomes.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import { credentials, keyPair } from '../../support/as2-keys.ts';
import { MemoryArtifacts, MemoryConfigView } from '../support/memory-stores.ts';
import { memoryOrg } from '../support/org.ts';

const ours = keyPair('ours');
const partner = keyPair('partner');
const stranger = keyPair('stranger');
const partnerCreds = loadCredentials(credentials(partner, ours));
const X12 = Buffer.from('ISA*00*          *00*          *ZZ*ACMEEDI        *ZZ*US             *260301*1000*U*00401*000000001*0*P*>~\r\nGS*PO*ACMEEDI*US*20260301*1000*1*X*004010~\r\nST*850*0001~\r\nBEG*00*SA*PO-1**20260301~\r\nSE*3*0001~\r\nGE*1*1~\r\nIEA*1*000000001~\r\n');
const keys = { privateKey: ours.privateKeyPem, certificate: ours.certificatePem, partnerCertificate: partner.certificatePem };
const doc: ConfigDocument = {
  envelopes: [
    { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
    { name: 'acme', external: true, interchangeExtid: 'ACMEEDI', interchangeExtidQualifier: 'ZZ', applicationCode: 'ACMEEDI' },
  ],
  connections: [
    { name: 'acme-as2', kind: 'as2', ...keys, as2: { localId: 'TDX US', partnerId: 'ACMEAS2', url: 'https://as2.acme.example/as2' } },
    { name: 'lonely-as2', kind: 'as2', ...keys, as2: { localId: 'TDX US', partnerId: 'ACMEAS2', url: 'https://as2.acme.example/as2' } },
  ],
  implementations: [{ name: 'po', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
  partners: [
    {
      key: 'ACME',
      name: 'Acme',
      deliveryMethod: 'polling',
      connection: 'acme-as2',
      envelopes: { internal: 'us', external: 'acme' },
      transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po' }],
    },
  ],
};
const planned = memoryOrg(doc);
// the plan runs as of 2026-01-01, before these freshly made certificates are valid: ready (and the flow active) as of today
const org = {
  ...planned,
  connections: planned.connections!.map((c) => ({ ...c, provisioned: true, as2: c.as2 ? { ...c.as2, setupStatus: 'ready' as const, setupReason: null } : null })),
  flows: planned.flows!.map((f) => ({ ...f, status: 'active' as const })),
};
const conn = (name: string): string => org.connections.find((c) => c.name === name)!.id;
const inboundFlow = org.flows.find((f) => f.id === planned.flow('ACME', 'inbound').id)!;

// --- the fakes, recording the order of what the route does -----------------------------------
const calls: string[] = [];
let failArtifacts = false;
let failBroker = false;
class RecordingArtifacts extends MemoryArtifacts {
  override async put(record: ArtifactRecord, bytes: Uint8Array): Promise<StoredBytes> {
    if (failArtifacts) throw new TdxError('store_unavailable', 'Cassandra artifact write failed: no host available');
    calls.push(`put ${record.id}`);
    return super.put(record, bytes);
  }
}
const artifacts = new RecordingArtifacts();
const produced: { topic: string; key: string; value: unknown }[] = [];
const received = new Map<string, As2ReceivedEntry>();
const awaited = new Map<string, AwaitedMdn>();
const completed: As2ReceiptOutcome[] = [];
const notes: string[] = [];
const awaitedStore: As2AwaitedMdnStore = {
  get: async (id) => awaited.get(id) ?? null,
  record: async (id) => awaited.get(id) ?? null,
  expect: async () => undefined,
  settle: async (id, o) => {
    const a = awaited.get(id);
    if (!a) return null;
    if (a.outcome) return a.outcome;
    awaited.set(id, { ...a, outcome: o });
    return o;
  },
  forget: async (id) => void awaited.delete(id),
  due: async () => [],
  done: async () => undefined,
};

let server: Server;
let base = '';
beforeAll(async () => {
  const router = as2Router({
    directory: { organizationOf: async (id) => (org.connections.some((c) => c.id === id) ? 'org-1' : null) },
    config: new MemoryConfigView(org),
    flows: async () => org.flows,
    artifacts,
    producer: {
      produce: async (messages) => {
        if (failBroker) throw new Error('KafkaJSNumberOfRetriesExceeded: broker down');
        calls.push(`produce ${messages.map((m) => m.topic).join(',')}`);
        produced.push(...messages);
      },
    },
    received: {
      seen: async (c, m) => received.has(`${c}|${m}`),
      remember: async (e) => {
        calls.push(`remember ${e.messageId}`);
        received.set(`${e.connectionId}|${e.messageId}`, e);
      },
    },
    awaited: awaitedStore,
    complete: async (_work, o) => void completed.push(o),
    note: async (_work, level, message) => void notes.push(`${level}: ${message}`),
    maxBytes: 200_000,
    logger: createLogger({ serviceName: 'test', logLevel: 'silent' }),
    now: () => 1_767_225_600_000_000,
  });
  const app = createApp({ logger: createLogger({ serviceName: 'test', logLevel: 'silent' }), checks: [], routers: [router] });
  server = await new Promise<Server>((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  calls.length = 0;
  produced.length = 0;
  failArtifacts = false;
  failBroker = false;
});

let n = 0;
/** ACME's message to us (signed and encrypted, signed receipt asked for). */
async function message(opts: { messageId?: string; asyncUrl?: string | null; payload?: Buffer } = {}) {
  return buildMessage({
    payload: opts.payload ?? X12,
    filename: 'po.edi',
    contentType: 'application/edi-x12',
    from: 'ACMEAS2',
    to: 'TDX US',
    messageId: opts.messageId ?? `<m-${++n}-${Date.now()}@acme>`,
    signing: 'sha256',
    encryption: 'aes256-cbc',
    compression: false,
    receipt: { signed: true, asyncUrl: opts.asyncUrl ?? null },
    credentials: partnerCreds,
  });
}

async function post(path: string, m: { headers: Readonly<Record<string, string>>; body: Buffer }) {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: m.headers, body: new Uint8Array(m.body) });
  const body = Buffer.from(await res.arrayBuffer());
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  return { status: res.status, headers, body };
}
const dispositionOf = (r: { headers: Record<string, string>; body: Buffer }) => {
  const mdn = parseMdn(mimeHeadersOf(r.headers), r.body);
  return { disposition: mdn.disposition?.text ?? null, text: mdn.text, signed: mdn.signature !== null };
};

describe('POST /as2/:connectionId', () => {
  it('stores the payload as the input artifact, produces the work item, records the message id, and only then answers the MDN', async () => {
    const m = await message();
    const r = await post(`/as2/${conn('acme-as2')}`, m);
    expect(r.status).toBe(200);
    expect(dispositionOf(r)).toMatchObject({ disposition: 'automatic-action/MDN-sent-automatically; processed', signed: true });
    const messageId = m.messageId.slice(1, -1);
    const trace = as2TraceGuid(conn('acme-as2'), messageId);
    const inputNode = inboundFlow.nodes[0]!;
    expect(inputNode.service).toBe('as2_receive');
    const id = artifactId(resultId(trace, inputNode.id, null, 1), 'input');
    expect(calls).toEqual([`put ${id}`, 'produce stage.as2_receive', `remember ${messageId}`]);
    const stored = await artifacts.get('org-1', id);
    expect(stored).toMatchObject({ traceGuid: trace, usage: 'input', filename: 'po.edi', contentType: 'application/edi-x12' });
    expect(await artifacts.read(stored!)).toEqual(X12);
    const work = produced[0]!.value as StageMessage;
    expect(work).toMatchObject({ traceGuid: trace, organizationId: 'org-1', service: 'as2_receive', flowId: inboundFlow.id, nodeId: inputNode.id, partnerKey: 'ACME', direction: 'inbound' });
    expect(work.artifacts).toEqual([{ id, usage: 'input', contentType: 'application/edi-x12', filename: 'po.edi' }]);
    expect(work.params).toMatchObject({ 'as2.messageId': messageId, 'as2.from': 'ACMEAS2', 'as2.to': 'TDX US', 'as2.signed': 'sha256', 'as2.encrypted': 'aes256-cbc', 'as2.compressed': 'no', 'as2.mdnMode': 'sync' });
    expect(received.get(`${conn('acme-as2')}|${messageId}`)).toMatchObject({ organizationId: 'org-1', traceGuid: trace });

    // the same message id again: acknowledged, nothing stored or started
    calls.length = 0;
    const again = await post(`/as2/${conn('acme-as2')}`, await message({ messageId: m.messageId, payload: Buffer.from(X12.toString().replace('PO-1', 'PO-2')) }));
    expect(dispositionOf(again).disposition).toMatch(/; processed$/);
    expect(dispositionOf(again).text).toMatch(/received before; it is acknowledged again and not processed twice/);
    expect(calls).toEqual([]);
    expect((await artifacts.read((await artifacts.get('org-1', id))!)).toString()).toContain('PO-1');
  });

  it('answers 503 (no MDN) when the artifact store fails, records nothing, and takes the message in when the partner sends it again', async () => {
    const m = await message();
    failArtifacts = true;
    const r = await post(`/as2/${conn('acme-as2')}`, m);
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('5');
    expect(JSON.parse(r.body.toString())).toMatchObject({ error: { code: 'service_unavailable' } });
    expect(calls).toEqual([]);
    failArtifacts = false;
    const again = await post(`/as2/${conn('acme-as2')}`, m);
    expect(dispositionOf(again).disposition).toMatch(/; processed$/);
    expect(calls.map((c) => c.split(' ')[0])).toEqual(['put', 'produce', 'remember']);
  });

  it('answers 503 when the broker does not take the work item, and leaves the message id unrecorded', async () => {
    const m = await message();
    failBroker = true;
    const r = await post(`/as2/${conn('acme-as2')}`, m);
    expect(r.status).toBe(503);
    expect(calls.map((c) => c.split(' ')[0])).toEqual(['put']);
    expect(received.has(`${conn('acme-as2')}|${m.messageId.slice(1, -1)}`)).toBe(false);
  });

  it('a connection no partner receives over: a negative MDN (unexpected-processing-error) naming why, nothing stored', async () => {
    const r = await post(`/as2/${conn('lonely-as2')}`, await message());
    expect(r.status).toBe(200);
    const d = dispositionOf(r);
    expect(d.disposition).toBe('automatic-action/MDN-sent-automatically; processed/error: unexpected-processing-error');
    expect(d.text).toContain('no partner receives inbound documents over this AS2 connection; the message was not taken in');
    expect(calls).toEqual([]);
  });

  it('an asynchronous receipt: 200 at once, the MDN handed to as2_receive to post with the work item', async () => {
    const m = await message({ asyncUrl: 'https://as2.acme.example/mdn' });
    const r = await post(`/as2/${conn('acme-as2')}`, m);
    expect([r.status, r.body.length]).toEqual([200, 0]);
    expect(calls.map((c) => c.split(' ')[0])).toEqual(['put', 'produce', 'remember']);
    // one produce: the flow's work item and the receipt's, before the answer
    expect(calls[1]).toBe('produce stage.as2_receive,stage.as2_receive');
    const mdnWork = produced.map((p) => p.value as StageMessage).find((w) => w.params['purpose'] === 'as2_mdn')!;
    expect(mdnWork).toMatchObject({ service: 'as2_receive', flowId: null, organizationId: 'org-1', traceGuid: as2TraceGuid(conn('acme-as2'), m.messageId.slice(1, -1)) });
    expect(mdnWork.params['mdn.url']).toBe('https://as2.acme.example/mdn');
    const mdn = parseMdn(mimeHeadersOf(JSON.parse(mdnWork.params['mdn.headers']!) as Record<string, string>), Buffer.from(mdnWork.params['mdn.body']!, 'base64'));
    expect(mdn.disposition?.text).toMatch(/; processed$/);
    expect(mdn.originalMessageId).toBe(m.messageId.slice(1, -1));
  });

  it('refuses a body over the limit with 413, and an unknown connection with a negative MDN', async () => {
    const big = await message({ payload: Buffer.alloc(300_000, 0x41) });
    expect((await post(`/as2/${conn('acme-as2')}`, big)).status).toBe(413);
    const r = await post('/as2/not-a-connection', await message());
    expect(dispositionOf(r).disposition).toMatch(/processed\/error: unknown-trading-partner$/);
    expect(calls).toEqual([]);
  });
});

describe('POST /as2/mdn', () => {
  const sentDetail: As2DeliveryDetail = { messageId: '', from: 'TDX US', to: 'ACMEAS2', url: 'https://as2.acme.example/as2', mdnMode: 'async', mdnStatus: 'pending', mic: null, returnedMic: null, micMatched: null, disposition: null, mdnMessageId: null, httpStatus: null, error: null };
  const mic = computeMic(Buffer.from('what we signed'), 'sha256');
  const awaiting = (messageId: string, outcome: As2ReceiptOutcome | null = null): void => {
    awaited.set(messageId, {
      messageId,
      connectionId: conn('acme-as2'),
      organizationId: 'org-1',
      mic,
      micRequired: true,
      signedReceipt: true,
      sentAt: '2026-01-01T00:00:00.000Z',
      deadline: '2026-01-01T00:05:00.000Z',
      work: { id: 'work-1' } as StageMessage,
      detail: { ...sentDetail, messageId },
      outcome,
    });
  };
  const receipt = (messageId: string, signedBy: typeof partner | null = partner) =>
    buildMdn({
      originalMessageId: messageId,
      from: 'ACMEAS2',
      to: 'TDX US',
      mic,
      modifier: null,
      text: 'ok',
      sign: signedBy ? { credentials: loadCredentials(credentials(signedBy, ours)), digest: 'sha256' } : null,
    });

  it('settles the awaited delivery once with the judged receipt; the same receipt again completes it with the same outcome', async () => {
    completed.length = 0;
    awaiting('sent-1@tdx');
    const mdn = await receipt('sent-1@tdx');
    const r = await post('/as2/mdn', mdn);
    expect(r.status).toBe(200);
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ status: 'processed', at: 1_767_225_600_000_000, detail: { messageId: 'sent-1@tdx', mdnStatus: 'processed', micMatched: true, mdnMessageId: mdn.messageId, error: null } });
    await post('/as2/mdn', mdn);
    expect(completed).toEqual([completed[0], completed[0]]);
    expect(awaited.get('sent-1@tdx')?.outcome).toEqual(completed[0]);
  });

  it('refuses a receipt not signed by the partner (unsigned, or by someone else) without settling: the real one or the deadline decides', async () => {
    completed.length = 0;
    notes.length = 0;
    awaiting('sent-2@tdx');
    for (const forged of [await receipt('sent-2@tdx', null), await receipt('sent-2@tdx', stranger)]) {
      const r = await post('/as2/mdn', forged);
      expect(r.status).toBe(400);
    }
    expect(completed).toEqual([]);
    expect(awaited.get('sent-2@tdx')?.outcome).toBeNull();
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^warn: A receipt for AS2 message sent-2@tdx was refused: the MDN is unsigned where a signed receipt was asked for/);
    // a receipt posted to a message endpoint is recognized as one
    const r = await post(`/as2/${conn('acme-as2')}`, await receipt('sent-2@tdx'));
    expect(r.status).toBe(200);
    expect(completed).toHaveLength(1);
  });

  it('a receipt after the wait ended changes nothing and is noted on the trace; one for no awaited message is 404', async () => {
    completed.length = 0;
    notes.length = 0;
    awaiting('sent-3@tdx', { status: 'timeout', at: 1, detail: { ...sentDetail, mdnStatus: 'timeout', error: 'no MDN within 300 s' } });
    const r = await post('/as2/mdn', await receipt('sent-3@tdx'));
    expect(r.status).toBe(200);
    expect(r.body.toString()).toMatch(/after the wait ended/);
    expect(completed).toEqual([]);
    expect(notes[0]).toMatch(/^warn: The receipt for AS2 message sent-3@tdx came after the wait ended \(positive\); the delivery stays failed\.$/);
    expect((await post('/as2/mdn', await receipt('never-sent@tdx'))).status).toBe(404);
  });
});
