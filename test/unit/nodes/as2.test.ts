/* eslint-disable @typescript-eslint/require-await -- fakes of async ports answer synchronously */
/**
 * The AS2 nodes over in-memory stores and a fake AS2 transport: as2_send (detail.as2, the
 * Message-ID of a transmission and of its retries and resends, retries through the delay
 * topics honouring Retry-After, a negative receipt, async mode awaiting and then settling),
 * and as2_receive posting asynchronous MDNs (retries, final failure).
 */
import { describe, expect, it } from 'vitest';
import { as2MessageIdForWork, type As2DeliveryDetail, type As2SendReport } from '../../../src/domain/as2-delivery.ts';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { statusOf } from '../../../src/domain/records.ts';
import { ackGenerateNode } from '../../../src/nodes/ack_generate/node.ts';
import { as2ReceiveNode } from '../../../src/nodes/as2_receive/node.ts';
import { AS2_MDN_PURPOSE } from '../../../src/nodes/as2_receive/step.ts';
import { as2SendNode } from '../../../src/nodes/as2_send/node.ts';
import { completeAwaitedDelivery } from '../../../src/nodes/as2_send/receipts.ts';
import { AS2_SEND_MAX_ATTEMPTS, messageIdOf } from '../../../src/nodes/as2_send/step.ts';
import type { NodeModule } from '../../../src/nodes/node.ts';
import type { As2ReceiptPost, As2SendRequest, As2Transport, TransferOutcome } from '../../../src/nodes/ports.ts';
import type { StepContext } from '../../../src/nodes/step.ts';
import { x12SplitNode } from '../../../src/nodes/x12_split/node.ts';
import type { DelayedMessage } from '../../../src/wire/delayed.v1.ts';
import type { FeedRequestMessage } from '../../../src/wire/feed-request.v1.ts';
import type { LogEvent } from '../../../src/wire/log-event.v1.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import { interchange as anyInterchange, po850 } from '../../integration/pipeline/support.ts';
import { keyPair } from '../../support/as2-keys.ts';
import { memoryDeps, type MemoryNodeDeps } from '../support/memory-stores.ts';
import { memoryOrg, workFor } from '../support/org.ts';

const ours = keyPair('ours');
const partner = keyPair('partner');
const interchange = (opts: Parameters<typeof anyInterchange>[0]): string => anyInterchange({ sender: { qualifier: '01', id: 'PARTNER' }, receiver: { qualifier: 'ZZ', id: 'US' }, ...opts });

const doc: ConfigDocument = {
  envelopes: [
    { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'USAPP' },
    { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: '01', applicationCode: 'THEMAPP' },
  ],
  connections: [
    {
      name: 'acme-as2',
      kind: 'as2',
      privateKey: ours.privateKeyPem,
      certificate: ours.certificatePem,
      partnerCertificate: partner.certificatePem,
      as2: { localId: 'TDX US', partnerId: 'ACMEAS2', url: 'https://as2.acme.example/as2' },
    },
  ],
  implementations: [{ name: 'po', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
  partners: [
    {
      key: 'ACME',
      name: 'Acme',
      deliveryMethod: 'polling',
      generateAcknowledgments: true,
      connection: 'acme-as2',
      envelopes: { internal: 'us', external: 'them' },
      transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po' }],
    },
  ],
};

const batch = (deps: MemoryNodeDeps) => ({ logger: deps.logger, heartbeat: () => Promise.resolve() });

const detail = (over: Partial<As2DeliveryDetail> = {}): As2DeliveryDetail => ({
  messageId: 'tdx-1@tdx-us',
  from: 'TDX US',
  to: 'ACMEAS2',
  url: 'https://as2.acme.example/as2',
  mdnMode: 'sync',
  mdnStatus: 'processed',
  mic: 'abc=, sha-256',
  returnedMic: 'abc=, sha-256',
  micMatched: true,
  disposition: 'automatic-action/MDN-sent-automatically; processed',
  mdnMessageId: 'mdn-1@acme',
  httpStatus: 200,
  error: null,
  ...over,
});

/** A transport answering with `reports` in turn (a positive receipt once they run out), recording each request. */
function transport(reports: Partial<As2SendReport>[] = [], posts: (TransferOutcome & { httpStatus: number | null })[] = []): As2Transport & { sent: As2SendRequest[]; posted: As2ReceiptPost[] } {
  const sent: As2SendRequest[] = [];
  const posted: As2ReceiptPost[] = [];
  return {
    sent,
    posted,
    send: async (r) => {
      sent.push(r);
      const over = reports.shift() ?? {};
      const bare = r.messageId.replace(/^<(.*)>$/, '$1');
      return { status: 'processed', retryable: false, retryAfterSeconds: null, error: null, deadline: null, ...over, detail: { ...detail(over.detail ?? {}), messageId: bare } };
    },
    postReceipt: async (p) => {
      posted.push(p);
      return posts.shift() ?? { kind: 'delivered', httpStatus: 200 };
    },
  };
}

/** Splits an 850 from ACME and runs ack_generate: returns the as2_send work item of its 997. */
async function ackWork(deps: MemoryNodeDeps): Promise<StageMessage> {
  const acme = (await deps.config.partnerByKey('org-1', 'ACME'))!;
  const flow = (await deps.config.currentFlow('org-1', acme.id, 'inbound'))!;
  expect(flow.nodes.map((n) => n.service)).toEqual(expect.arrayContaining(['as2_receive', 'x12_split', 'ack_generate', 'as2_send']));
  const msg = workFor(flow, 'x12_split', { partnerKey: 'ACME', inputResultId: 'input-result' });
  await deps.stores.artifacts.put(
    { organizationId: 'org-1', id: 'in-1', traceGuid: msg.traceGuid, resultId: 'input-result', nodeName: 'Input', usage: 'input', contentType: 'application/edi-x12', filename: 'po.edi', size: 0, sha256: '', blobId: 'in-1', createdAt: msg.createdAt },
    Buffer.from(interchange({ control: 5, groups: [{ sets: [po850('PO-1')] }] })),
  );
  await x12SplitNode(deps).handle([{ message: { ...msg, artifacts: [{ id: 'in-1', usage: 'input', contentType: 'application/edi-x12', filename: 'po.edi' }] } }], batch(deps));
  await runAll(deps, { ack_generate: ackGenerateNode(deps) });
  return deps.memory.emitter.on<StageMessage>('stage.as2_send')[0]!;
}

async function runAll(deps: MemoryNodeDeps, nodes: Record<string, NodeModule>): Promise<void> {
  let done = 0;
  for (;;) {
    const work = deps.memory.emitter.sent.slice(done).filter((m) => m.topic.startsWith('stage.')).map((m) => m.value as StageMessage);
    done = deps.memory.emitter.sent.length;
    const runnable = work.filter((w) => nodes[w.service]);
    if (runnable.length === 0) return;
    for (const w of runnable) await nodes[w.service]!.handle([{ message: w }], batch(deps));
  }
}

const delayedAfter = (deps: MemoryNodeDeps, from: number): DelayedMessage | undefined => deps.memory.emitter.sent.slice(from).find((m) => m.topic.startsWith('delay.'))?.value as DelayedMessage | undefined;
const unwrap = (d: DelayedMessage): StageMessage => (JSON.parse(d.value.toString()) as { value: StageMessage }).value;

describe('as2_send', () => {
  it('sends the 997 with a Message-ID derived from its work item and records detail.as2 on the delivered result', async () => {
    const as2 = transport();
    const deps = memoryDeps(memoryOrg(doc), { as2 });
    const work = await ackWork(deps);
    await as2SendNode(deps).handle([{ message: work }], batch(deps));
    expect(as2.sent).toHaveLength(1);
    const req = as2.sent[0]!;
    expect(req.messageId).toBe(as2MessageIdForWork('TDX US', work.id));
    expect(req.messageId).toMatch(/^<tdx-[0-9a-f-]{36}@tdx-us>$/);
    expect(req.filename).toBe('997_000000001.edi');
    expect(req.payload.toString()).toMatch(/^ISA\*.*ST\*997\*/s);
    expect(req.connection.as2?.partnerId).toBe('ACMEAS2');
    expect(req.secrets['privateKey']).toBe(ours.privateKeyPem);
    expect(req.work).toEqual(work);
    const r = deps.memory.results.all().find((x) => x.service === 'as2_send')!;
    expect(r).toMatchObject({ status: 'success', direction: 'outbound', payload: null });
    expect(r.detail['as2']).toEqual(detail({ messageId: req.messageId.slice(1, -1) }));
    const ack = deps.memory.transactions.all().find((t) => t.transactionSetIdentifier === '997')!;
    expect(statusOf(ack)).toBe('delivered');
    expect(deps.memory.emitter.on<FeedRequestMessage>('events.feed').find((f) => f.resultId === r.id)).toMatchObject({ direction: 'outbound', status: 'success', transactionId: ack.id });
  });

  it('a redelivered work item sends the same Message-ID; a resend (a work item of its own) a fresh one', async () => {
    const deps = memoryDeps(memoryOrg(doc));
    const work = await ackWork(deps);
    const ctx = (m: StageMessage): StepContext => ({ now: 0, message: m, flow: null, node: null, partner: null });
    expect(messageIdOf(ctx(work), 'TDX US')).toBe(messageIdOf(ctx({ ...work }), 'TDX US'));
    const resend = { ...work, id: `${work.id}-resend`, resend: true, attempt: 2 };
    expect(messageIdOf(ctx(resend), 'TDX US')).not.toBe(messageIdOf(ctx(work), 'TDX US'));
    expect(messageIdOf(ctx({ ...work, params: { ...work.params, 'as2.messageId': '<kept@x>' } }), 'TDX US')).toBe('<kept@x>');
  });

  it('retries a passing failure through the delay topics with the same Message-ID (a longer Retry-After wins, up to the longest delay), then gives up with an error', async () => {
    const failing = (retryAfterSeconds: number | null): Partial<As2SendReport> => ({ status: 'failed', retryable: true, retryAfterSeconds, error: 'HTTP 503 Service Unavailable', detail: detail({ mdnStatus: 'failed', httpStatus: 503, micMatched: null }) });
    const as2 = transport([failing(null), failing(30), failing(600), failing(null), failing(null), failing(null)]);
    const deps = memoryDeps(memoryOrg(doc), { as2, retry: { delaysMs: [1000, 2000, 4000, 8000, 60_000], jitterPercent: 0, attemptTimeoutMs: 15_000 } });
    let work = await ackWork(deps);
    const node = as2SendNode(deps);
    const delays: number[] = [];
    for (let attempt = 1; attempt < AS2_SEND_MAX_ATTEMPTS; attempt++) {
      const before = deps.memory.emitter.sent.length;
      deps.memory.setClock(work.createdAt);
      await node.handle([{ message: work }], batch(deps));
      const delayed = delayedAfter(deps, before)!;
      expect(delayed.targetTopic).toBe('stage.as2_send');
      const next = unwrap(delayed);
      delays.push(Math.round((delayed.dueAt - work.createdAt) / 1_000_000));
      expect(next.params['deliveryAttempt']).toBe(String(attempt + 1));
      work = next;
    }
    expect(delays).toEqual([1, 30, 60, 8, 60]);
    expect(new Set(as2.sent.map((s) => s.messageId)).size).toBe(1);
    expect(deps.memory.results.all().filter((r) => r.service === 'as2_send')).toEqual([]);
    await node.handle([{ message: work }], batch(deps));
    expect(as2.sent).toHaveLength(6);
    const failed = deps.memory.results.all().find((r) => r.service === 'as2_send')!;
    expect(failed.status).toBe('error');
    expect(failed.detail.errorMessage).toBe('AS2 delivery of 997_000000001.edi to ACMEAS2 (https://as2.acme.example/as2) failed after 6 attempts: HTTP 503 Service Unavailable.');
    expect(failed.detail['as2']).toMatchObject({ mdnStatus: 'failed', httpStatus: 503, messageId: as2.sent[0]!.messageId.slice(1, -1) });
    const logs = deps.memory.emitter.on<LogEvent>('events.logs').filter((l) => l.level === 'warn');
    expect(logs.map((l) => /attempt (\d) of 6/.exec(l.message)?.[1])).toEqual(['1', '2', '3', '4', '5']);
  });

  it('a resend is a real send under a new Message-ID, even after a retried first transmission', async () => {
    const as2 = transport([{ status: 'failed', retryable: true, retryAfterSeconds: null, error: 'HTTP 503', detail: detail({ mdnStatus: 'failed', httpStatus: 503, micMatched: null }) }]);
    const deps = memoryDeps(memoryOrg(doc), { as2, retry: { delaysMs: [1000, 2000, 4000, 8000, 16000], jitterPercent: 0, attemptTimeoutMs: 15_000 } });
    const work = await ackWork(deps);
    const node = as2SendNode(deps);
    const before = deps.memory.emitter.sent.length;
    await node.handle([{ message: work }], batch(deps));
    const retry = unwrap(delayedAfter(deps, before)!);
    await node.handle([{ message: retry }], batch(deps));
    expect(as2.sent.map((r) => r.messageId)).toEqual([as2.sent[0]!.messageId, as2.sent[0]!.messageId]);
    // the resend work item as the replay consumer builds it: its own id, fresh params
    const { 'as2.messageId': _kept, ...fresh } = retry.params;
    void _kept;
    const resend: StageMessage = { ...work, id: 'replay-work-1', resend: true, attempt: 2, params: { ...fresh, deliveryAttempt: '1' } };
    await node.handle([{ message: resend }], batch(deps));
    expect(as2.sent).toHaveLength(3);
    expect(as2.sent[2]!.messageId).not.toBe(as2.sent[0]!.messageId);
    expect(as2.sent[2]!.payload.equals(as2.sent[0]!.payload)).toBe(true);
    const results = deps.memory.results.all().filter((r) => r.service === 'as2_send');
    expect(results.map((r) => [r.status, r.resend])).toEqual([
      ['success', false],
      ['success', true],
    ]);
  });

  it('a partner that never answers: the send is kept in flight (the partition moves on) and ends at the attempt timeout as a retry', async () => {
    let calls = 0;
    const hanging: As2Transport = {
      send: (r) => {
        calls++;
        // the first send never ends; the others answer at once
        if (calls === 1) return new Promise(() => undefined);
        return Promise.resolve({ status: 'processed', retryable: false, retryAfterSeconds: null, error: null, deadline: null, detail: { ...detail({}), messageId: r.messageId.slice(1, -1) } });
      },
      postReceipt: () => Promise.resolve({ kind: 'delivered', httpStatus: 200 }),
    };
    const deps = memoryDeps(memoryOrg(doc), { as2: hanging, retry: { delaysMs: [1000, 2000, 4000, 8000, 16000], jitterPercent: 0, attemptTimeoutMs: 400 } });
    const work = await ackWork(deps);
    const node = as2SendNode(deps);
    const other: StageMessage = { ...work, id: 'other-work', traceGuid: 'other-trace' };
    const started = Date.now();
    const first = await node.handle([{ message: work }, { message: other }], batch(deps));
    // handed back at once: nothing passed (the hanging item is first), both come back with the next fetch
    expect(Date.now() - started).toBeLessThan(400);
    expect(first).toEqual({ processed: 0, pauseUntil: 0 });
    // the other trace's send already completed meanwhile
    expect(deps.memory.results.all().filter((r) => r.service === 'as2_send' && r.traceGuid === 'other-trace').map((r) => r.status)).toEqual(['success']);
    await new Promise((res) => setTimeout(res, 450));
    expect(await node.handle([{ message: work }, { message: other }], batch(deps))).toBeUndefined();
    const delayed = deps.memory.emitter.sent.filter((m) => m.topic.startsWith('delay.')).map((m) => m.value as DelayedMessage);
    expect(delayed).toHaveLength(1);
    expect(unwrap(delayed[0]!).params['deliveryAttempt']).toBe('2');
    const warn = deps.memory.emitter.on<LogEvent>('events.logs').find((l) => l.level === 'warn')!;
    expect(warn.message).toMatch(/failed \(attempt 1 of 6\): no answer within 400 ms \(the attempt's timeout\); trying again in 1 s/);
  });

  it('a negative receipt is an error at once, with the partner disposition in detail.as2', async () => {
    const as2 = transport([
      {
        status: 'failed',
        retryable: false,
        error: 'the partner reports processed/error: decryption-failed',
        detail: detail({ mdnStatus: 'failed', disposition: 'automatic-action/MDN-sent-automatically; processed/error: decryption-failed', returnedMic: null, micMatched: null }),
      },
    ]);
    const deps = memoryDeps(memoryOrg(doc), { as2 });
    await as2SendNode(deps).handle([{ message: await ackWork(deps) }], batch(deps));
    const r = deps.memory.results.all().find((x) => x.service === 'as2_send')!;
    expect(r.status).toBe('error');
    expect(r.detail.errorMessage).toBe('AS2 delivery of 997_000000001.edi to ACMEAS2 (https://as2.acme.example/as2) failed: the partner reports processed/error: decryption-failed.');
    expect(r.detail['as2']).toMatchObject({ mdnStatus: 'failed', disposition: expect.stringContaining('decryption-failed') as unknown });
    expect(as2.sent).toHaveLength(1);
  });

  it('async mode: sending writes only a log entry; the receipt (or its absence) settles the delivery later, idempotently', async () => {
    const as2 = transport([{ status: 'pending', deadline: 1_767_225_900_000_000, detail: detail({ mdnMode: 'async', mdnStatus: 'pending', returnedMic: null, micMatched: null, disposition: null, mdnMessageId: null }) }]);
    const deps = memoryDeps(memoryOrg(doc), { as2 });
    const work = await ackWork(deps);
    await as2SendNode(deps).handle([{ message: work }], batch(deps));
    expect(deps.memory.results.all().filter((r) => r.service === 'as2_send')).toEqual([]);
    expect(deps.memory.emitter.on<LogEvent>('events.logs').map((l) => l.message)).toContainEqual(expect.stringMatching(/^Sent 997_000000001\.edi to ACMEAS2 over AS2 as message tdx-.*; awaiting the asynchronous MDN until 2026-01-01T00:05:00\.000000Z\.$/));

    const at = 1_767_225_700_000_000;
    const outcome = { status: 'processed' as const, at, detail: detail({ mdnMode: 'async' }) };
    await completeAwaitedDelivery(deps, as2.sent[0]!.work, outcome);
    await completeAwaitedDelivery(deps, as2.sent[0]!.work, outcome);
    const delivered = deps.memory.results.all().filter((r) => r.service === 'as2_send');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ status: 'success', createdAt: at });
    expect(statusOf(deps.memory.transactions.all().find((t) => t.transactionSetIdentifier === '997')!)).toBe('delivered');
  });

  it('async mode: no receipt within the wait is an error result naming the message and the wait', async () => {
    const deps = memoryDeps(memoryOrg(doc), { as2: transport() });
    const work = await ackWork(deps);
    await completeAwaitedDelivery(deps, work, { status: 'timeout', at: 1_767_225_900_000_000, detail: detail({ mdnMode: 'async', mdnStatus: 'timeout', error: 'no MDN within 300 s', returnedMic: null, micMatched: null, disposition: null, mdnMessageId: null }) });
    const r = deps.memory.results.all().find((x) => x.service === 'as2_send')!;
    expect(r.status).toBe('error');
    expect(r.detail.errorMessage).toBe('AS2 delivery of 997_000000001.edi to ACMEAS2 (https://as2.acme.example/as2) failed: no MDN for message tdx-1@tdx-us within 300 s.');
    expect(statusOf(deps.memory.transactions.all().find((t) => t.transactionSetIdentifier === '997')!)).toBe('error');
  });

  it('a connection that is gone, or no transport in the process, fails the delivery without sending', async () => {
    const deps = memoryDeps(memoryOrg(doc));
    await as2SendNode(deps).handle([{ message: await ackWork(deps) }], batch(deps));
    expect(deps.memory.results.all().find((x) => x.service === 'as2_send')?.detail.errorMessage).toBe('AS2 transmissions are not available in this process.');
  });
});

describe('as2_receive posting asynchronous MDNs', () => {
  const mdnWork = (over: Partial<StageMessage> = {}): StageMessage => ({
    id: 'work-mdn-000000000000000000001',
    traceGuid: 'trace-mdn',
    organizationId: 'org-1',
    service: 'as2_receive',
    flowId: null,
    flowVersion: null,
    nodeId: null,
    direction: 'inbound',
    partnerKey: 'ACME',
    transactionId: null,
    inputResultId: null,
    artifacts: [],
    usageIndicator: null,
    resend: false,
    attempt: 1,
    createdAt: 1_767_225_600_000_000,
    params: { purpose: AS2_MDN_PURPOSE, 'as2.messageId': 'm-1@acme', 'mdn.url': 'http://acme.example/mdn', 'mdn.headers': JSON.stringify({ 'Content-Type': 'multipart/report', 'Message-ID': '<mdn-1@tdx>' }), 'mdn.body': Buffer.from('the receipt').toString('base64') },
    ...over,
  });

  it('posts the receipt as handed over and logs it on the trace', async () => {
    const as2 = transport();
    const deps = memoryDeps(memoryOrg(doc), { as2 });
    await as2ReceiveNode(deps).handle([{ message: mdnWork() }], batch(deps));
    expect(as2.posted).toEqual([{ url: 'http://acme.example/mdn', headers: { 'Content-Type': 'multipart/report', 'Message-ID': '<mdn-1@tdx>' }, body: Buffer.from('the receipt') }]);
    expect(deps.memory.emitter.on<LogEvent>('events.logs').map((l) => [l.traceGuid, l.level, l.message])).toEqual([['trace-mdn', 'info', 'Asynchronous MDN for AS2 message m-1@acme posted to http://acme.example/mdn (HTTP 200).']]);
    expect(deps.memory.results.all()).toEqual([]);
  });

  it('tries a passing failure again through the delay topics, and logs an error after the last attempt', async () => {
    const refused = { kind: 'retryable' as const, reason: 'ECONNREFUSED', httpStatus: null };
    const as2 = transport([], Array.from({ length: 6 }, () => refused));
    const deps = memoryDeps(memoryOrg(doc), { as2 });
    const node = as2ReceiveNode(deps);
    let work = mdnWork();
    for (let attempt = 1; attempt < 6; attempt++) {
      const before = deps.memory.emitter.sent.length;
      deps.memory.setClock(work.createdAt);
      await node.handle([{ message: work }], batch(deps));
      const delayed = delayedAfter(deps, before)!;
      expect(delayed.targetTopic).toBe('stage.as2_receive');
      work = unwrap(delayed);
    }
    await node.handle([{ message: work }], batch(deps));
    expect(as2.posted).toHaveLength(6);
    const logs = deps.memory.emitter.on<LogEvent>('events.logs');
    expect(logs.filter((l) => l.level === 'warn')).toHaveLength(5);
    expect(logs.filter((l) => l.level === 'error').map((l) => l.message)).toEqual(['The asynchronous MDN for AS2 message m-1@acme could not be posted to http://acme.example/mdn after 6 attempts: ECONNREFUSED. The partner has no receipt for it.']);
  });
});
