/* eslint-disable @typescript-eslint/require-await -- fakes of async ports answer synchronously */
/**
 * The other inbound steps over in-memory stores: mapping outcomes (none, expression failure,
 * shape violations), the validation step, feed delivery (output artifact, completion, the feed
 * request that sets deliveredAt), the 997 (control numbers per partner, envelopes, links), the
 * upload's retry schedule and final error, and the failure outcome every step shares.
 */
import { describe, expect, it } from 'vitest';
import { x12SplitNode } from '../../../src/nodes/x12_split/node.ts';
import { mappingNode } from '../../../src/nodes/mapping/node.ts';
import { validationNode } from '../../../src/nodes/validation/node.ts';
import { feedNode } from '../../../src/nodes/feed/node.ts';
import { ackGenerateNode } from '../../../src/nodes/ack_generate/node.ts';
import { sftpUploadNode } from '../../../src/nodes/sftp_upload/node.ts';
import { UPLOAD_MAX_ATTEMPTS } from '../../../src/nodes/sftp_upload/step.ts';
import { firstDeliveries, messagesOf, withTransactionCreatedAt } from '../../../src/nodes/runtime.ts';
import { effects, type StepContext } from '../../../src/nodes/step.ts';
import { stageTo, type NextWork } from '../../../src/nodes/outcomes.ts';
import type { FlowNode } from '../../../src/domain/configuration.ts';
import { readInterchanges, readAcknowledgment } from '../../../src/x12/index.ts';
import { statusOf, type FeedRequest, type ResultRecord, type StoredTransaction } from '../../../src/domain/records.ts';
import type { MappingEngine } from '../../../src/domain/mapping-engine.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import type { DelayedMessage } from '../../../src/wire/delayed.v1.ts';
import type { FeedRequestMessage } from '../../../src/wire/feed-request.v1.ts';
import type { SftpUploader, TransferOutcome } from '../../../src/nodes/ports.ts';
import type { NodeModule } from '../../../src/nodes/node.ts';
import { po850 } from '../../integration/pipeline/support.ts';
import { doc, interchange } from '../support/acme.ts';

import { memoryDeps, type MemoryNodeDeps } from '../support/memory-stores.ts';
import { memoryOrg, workFor } from '../support/org.ts';


const batch = (deps: MemoryNodeDeps) => ({ logger: deps.logger, heartbeat: () => Promise.resolve() });

/** Runs the split, then every node the work reaches, until nothing is left (or a node is missing). */
async function flowThrough(deps: MemoryNodeDeps, nodes: Partial<Record<string, NodeModule>>, text: string): Promise<void> {
  const cfg = deps.config;
  const flow = (await cfg.partnerByKey('org-1', 'ACME'))!;
  const f = (await cfg.currentFlow('org-1', flow.id, 'inbound'))!;
  const msg = workFor(f, 'x12_split', { partnerKey: 'ACME', inputResultId: 'input-result' });
  await deps.stores.artifacts.put(
    { organizationId: 'org-1', id: 'in-1', traceGuid: msg.traceGuid, resultId: 'input-result', nodeName: 'Input', usage: 'input', contentType: 'application/edi-x12', filename: 'po.edi', size: 0, sha256: '', blobId: 'in-1', createdAt: msg.createdAt },
    Buffer.from(text),
  );
  let done = deps.memory.emitter.sent.length;
  await x12SplitNode(deps).handle([{ message: { ...msg, artifacts: [{ id: 'in-1', usage: 'input', contentType: 'application/edi-x12', filename: 'po.edi' }] } }], batch(deps));
  for (;;) {
    const pending = deps.memory.emitter.sent.slice(done);
    done = deps.memory.emitter.sent.length;
    const work = pending.filter((m) => m.topic.startsWith('stage.')).map((m) => m.value as StageMessage);
    const runnable = work.filter((w) => nodes[w.service]);
    if (runnable.length === 0) return;
    for (const w of runnable) await nodes[w.service]!.handle([{ message: w }], batch(deps));
  }
}

function engine(run: MappingEngine['run']): MappingEngine {
  return { run, validate: () => Promise.resolve([]), close: () => Promise.resolve() };
}

describe('inbound steps after the split', () => {
  it('maps, validates and places the document on the feed: output artifact, completed, a feed request that sets deliveredAt', async () => {
    const deps = memoryDeps(memoryOrg(doc), { mappings: engine(async (expr, input) => ({ ok: true, outputJson: JSON.stringify({ order: (JSON.parse(input) as { heading: { beginning_segment_for_purchase_order_BEG: { purchase_order_number_03: string } } }).heading.beginning_segment_for_purchase_order_BEG.purchase_order_number_03, expr: expr.length > 0 }), violations: [] })) });
    await flowThrough(deps, { mapping: mappingNode(deps), validation: validationNode(deps), feed: feedNode(deps) }, interchange({ control: 1, groups: [{ sets: [po850('PO-77')] }] }));
    const [tx] = deps.memory.transactions.all();
    expect(statusOf(tx!)).toBe('delivered');
    const results = deps.memory.results.all();
    expect(results.map((r) => r.service)).toEqual(['x12_split', 'mapping', 'validation', 'feed']);
    const feed = results[3]!;
    const output = feed.detail.artifacts!.find((a) => a.usage === 'output')!;
    expect(JSON.parse(deps.memory.artifacts.text('org-1', output.id))).toEqual({ order: 'PO-77', expr: true });
    expect(tx!.roles.output).toEqual({ resultId: feed.id, nodeName: feed.nodeName, artifact: output });
    expect(tx!.deliveryResultId).toBe(feed.id);
    expect(tx!.deliveryInputResultId).toBe(results[2]!.id);
    // the artifacts accumulate down the flow
    expect(feed.detail.artifacts!.map((a) => a.usage)).toEqual(['input', 'translation', 'mapped', 'output']);
    const requests = deps.memory.emitter.on<FeedRequestMessage>('events.feed');
    // the work of every later step carries the transaction's createdAt (its updates' TTL)
    const work = deps.memory.emitter.sent.filter((m) => m.topic.startsWith('stage.')).map((m) => m.value as StageMessage).filter((w) => w.transactionId === tx!.id);
    expect(work.map((w) => [w.service, w.transactionCreatedAt])).toEqual([
      ['mapping', tx!.createdAt],
      ['validation', tx!.createdAt],
      ['feed', tx!.createdAt],
    ]);
    // the feed step ran apart from the pass that recorded the transaction: the sequencer reads it
    expect(requests).toEqual([expect.objectContaining({ direction: 'inbound', status: 'success', resultId: feed.id, transactionId: tx!.id, partnerKey: 'ACME', transactionCreatedAt: null, transactionSetIdentifier: null })]);
    expect(JSON.parse(requests[0]!.detail)).toMatchObject({ id: feed.id, nodeName: feed.nodeName, status: 'success' });
  });

  it('delivers the untransformed translation when the mapping fails, flagged, with a mapping_failed warning', async () => {
    const deps = memoryDeps(memoryOrg(doc), { mappings: engine(async () => ({ ok: false, kind: 'expression', message: 'line 1, column 3: boom (JSONata D3137).', line: 1, column: 3 })) });
    await flowThrough(deps, { mapping: mappingNode(deps), validation: validationNode(deps), feed: feedNode(deps) }, interchange({ control: 2, groups: [{ sets: [po850('PO-78')] }] }));
    const [tx] = deps.memory.transactions.all();
    expect(statusOf(tx!)).toBe('delivered');
    expect(tx!.warningCount).toBe(1);
    const mapping = deps.memory.results.all().find((r) => r.service === 'mapping')!;
    expect(mapping.detail).toMatchObject({ mappingFailed: true, mappingError: { kind: 'expression' }, errors: ['line 1, column 3: boom (JSONata D3137).'] });
    expect(mapping.detail.mappingError!.message).toBe('Mapping m (version 1) failed to run: line 1, column 3: boom (JSONata D3137).');
    const feed = deps.memory.results.all().find((r) => r.service === 'feed')!;
    const output = feed.detail.artifacts!.find((a) => a.usage === 'output')!;
    expect(JSON.parse(deps.memory.artifacts.text('org-1', output.id))).toHaveProperty('heading');
  });

  it('writes the 997 in our envelope to the partner, with control numbers from the partner counters, linked both ways', async () => {
    const deps = memoryDeps(memoryOrg(doc));
    await flowThrough(deps, { ack_generate: ackGenerateNode(deps) }, interchange({ control: 3, groups: [{ sets: [po850('PO-1'), po850('PO-2')] }] }));
    await flowThrough(deps, { ack_generate: ackGenerateNode(deps) }, interchange({ control: 4, groups: [{ sets: [po850('PO-3')] }] }));
    const acks = deps.memory.transactions.all().filter((t) => t.transactionSetIdentifier === '997');
    expect(acks.map((a) => [a.interchangeControlNumber, a.groupControlNumber])).toEqual([
      ['000000001', '1'],
      ['000000002', '2'],
    ]);
    const first = acks[0]!;
    const answered = deps.memory.transactions.all().filter((t) => t.traceGuid === first.traceGuid && t.direction === 'inbound');
    expect(first.acknowledges).toBe(answered[0]!.id);
    expect(answered.map((t) => t.acknowledgedBy)).toEqual([first.id, first.id]);
    const text = deps.memory.artifacts.text('org-1', first.roles.output!.artifact!.id);
    const ic = readInterchanges(text).interchanges[0]!;
    expect(ic.header.sender).toEqual({ qualifier: 'ZZ', id: 'US' });
    expect(ic.header.receiver).toEqual({ qualifier: '01', id: 'PARTNER' });
    expect(ic.groups[0]!.header).toMatchObject({ functionalId: 'FA', applicationSender: 'USAPP', applicationReceiver: 'THEMAPP', controlNumber: '1' });
    const ack = readAcknowledgment(ic.groups[0]!.sets[0]!.set)!;
    expect(ack.groups[0]).toMatchObject({ groupControlNumber: '3', status: 'A', received: '2', accepted: '2' });
    // and it goes to the partner's upload node
    expect(deps.memory.emitter.on<StageMessage>('stage.sftp_upload').map((m) => m.transactionId)).toEqual(acks.map((a) => a.id));
  });
});

describe('sftp_upload', () => {
  const outcomes = (list: TransferOutcome[]): SftpUploader & { calls: string[] } => {
    const calls: string[] = [];
    return {
      calls,
      upload: async (target, dir, name) => {
        calls.push(`${target.host}:${dir}/${name}`);
        return list.shift() ?? { kind: 'delivered' };
      },
    };
  };

  it('retries a passing failure later through the delay topics, spaced by the retry policy (here 1, 2, 4, 8, 16 s), then gives up with an error', async () => {
    const sftp = outcomes(Array.from({ length: UPLOAD_MAX_ATTEMPTS }, () => ({ kind: 'retryable', reason: 'connection refused' })));
    const deps = memoryDeps(memoryOrg(doc), { sftp, retry: { delaysMs: [1000, 2000, 4000, 8000, 16000], jitterPercent: 0, attemptTimeoutMs: 15_000 } });
    await flowThrough(deps, { ack_generate: ackGenerateNode(deps) }, interchange({ control: 5, groups: [{ sets: [po850('PO-1')] }] }));
    const upload = sftpUploadNode(deps);
    let work = deps.memory.emitter.on<StageMessage>('stage.sftp_upload')[0]!;
    const delays: number[] = [];
    for (let attempt = 1; attempt < UPLOAD_MAX_ATTEMPTS; attempt++) {
      const before = deps.memory.emitter.sent.length;
      deps.memory.setClock(work.createdAt); // a retry is taken up when it is due
      await upload.handle([{ message: work }], batch(deps));
      const later = deps.memory.emitter.sent.slice(before).find((m) => m.topic.startsWith('delay.'))!;
      const delayed = later.value as DelayedMessage;
      const next = (JSON.parse(delayed.value.toString()) as { value: StageMessage }).value;
      delays.push(Math.round((delayed.dueAt - work.createdAt) / 1_000_000));
      expect(delayed.targetTopic).toBe('stage.sftp_upload');
      expect(next.params['deliveryAttempt']).toBe(String(attempt + 1));
      expect(next.id).not.toBe(work.id);
      work = next;
    }
    expect(delays).toEqual([1, 2, 4, 8, 16]);
    expect(deps.memory.results.all().filter((r) => r.service === 'sftp_upload')).toEqual([]);
    await upload.handle([{ message: work }], batch(deps));
    const failed = deps.memory.results.all().find((r) => r.service === 'sftp_upload')!;
    expect(failed.status).toBe('error');
    expect(failed.detail.errorMessage).toMatch(/^Upload of 997_000000001\.edi to sftp\.example:out failed after 6 attempts: connection refused/);
    expect(sftp.calls).toHaveLength(6);
    const ack = deps.memory.transactions.all().find((t) => t.transactionSetIdentifier === '997')!;
    expect(statusOf(ack)).toBe('error');
  });

  it('gives up at once on a failure that cannot pass (a refused login)', async () => {
    const sftp = outcomes([{ kind: 'final', reason: 'authentication failed for u@sftp.example:22' }]);
    const deps = memoryDeps(memoryOrg(doc), { sftp });
    await flowThrough(deps, { ack_generate: ackGenerateNode(deps), sftp_upload: sftpUploadNode(deps) }, interchange({ control: 6, groups: [{ sets: [po850('PO-1')] }] }));
    const r = deps.memory.results.all().find((x) => x.service === 'sftp_upload')!;
    expect(r.status).toBe('error');
    expect(r.detail.errorMessage).toBe('Upload of 997_000000001.edi to sftp.example:out failed: authentication failed for u@sftp.example:22');
    expect(r.detail.sftp).toEqual({ filename: '997_000000001.edi', directory: 'out', host: 'sftp.example' });
  });

  it('records an upload: detail.sftp without a path, no payload, completed, an outbound success feed request', async () => {
    const sftp = outcomes([]);
    const deps = memoryDeps(memoryOrg(doc), { sftp });
    await flowThrough(deps, { ack_generate: ackGenerateNode(deps), sftp_upload: sftpUploadNode(deps) }, interchange({ control: 7, groups: [{ sets: [po850('PO-1')] }] }));
    const r = deps.memory.results.all().find((x) => x.service === 'sftp_upload')!;
    expect(r).toMatchObject({ status: 'success', direction: 'outbound', payload: null });
    expect(Object.keys(r.detail.sftp!).sort()).toEqual(['directory', 'filename', 'host', 'uploadedAt']);
    expect(sftp.calls).toEqual(['sftp.example:out/997_000000001.edi']);
    const ack = deps.memory.transactions.all().find((t) => t.transactionSetIdentifier === '997')!;
    expect(statusOf(ack)).toBe('delivered');
    expect(deps.memory.emitter.on<FeedRequestMessage>('events.feed').find((f) => f.resultId === r.id)).toMatchObject({ direction: 'outbound', status: 'success', transactionId: ack.id });
  });
});

describe('runtime', () => {
  it('puts work for later on the delay tier that holds its due time', () => {
    const e = effects();
    const base = { id: 'w', traceGuid: 't', organizationId: 'o', service: 'webhook', flowId: null, flowVersion: null, nodeId: null, direction: 'inbound' as const, partnerKey: null, transactionId: null, inputResultId: null, artifacts: [], usageIndicator: null, resend: false, attempt: 1, createdAt: 0, params: {} };
    const now = 10_000_000_000;
    for (const s of [1, 2, 3, 16, 45]) e.later.push({ message: base, dueAt: now + s * 1_000_000, reason: 'test' });
    const tiers = messagesOf(e, now, () => Buffer.alloc(0)).map((m) => m.topic);
    expect(tiers).toEqual(['delay.1s', 'delay.2s', 'delay.4s', 'delay.16s', 'delay.60s']);
  });

  it('hands the work\'s transaction createdAt on with its own transaction only, unless the step gives one', () => {
    const message = { id: 'w', traceGuid: 't', organizationId: 'o', service: 'mapping', flowId: 'f', flowVersion: 1, nodeId: 'n1', direction: 'inbound' as const, partnerKey: null, transactionId: 'tx1', inputResultId: null, artifacts: [], usageIndicator: null, resend: false, attempt: 1, createdAt: 0, params: {}, transactionCreatedAt: 5 };
    const ctx = { message } as unknown as StepContext;
    const node = { id: 'n2', service: 'feed' } as FlowNode;
    const created = (work: Partial<NextWork>) => stageTo(ctx, node, { inputResultId: 'r', artifacts: [], createdAt: 1, ...work }).value as StageMessage;
    expect(created({}).transactionCreatedAt).toBe(5);
    expect(created({ transactionId: 'tx1' }).transactionCreatedAt).toBe(5);
    expect(created({ transactionId: 'tx2' }).transactionCreatedAt).toBeNull();
    expect(created({ transactionId: null }).transactionCreatedAt).toBeNull();
    expect(created({ transactionId: 'tx2', transactionCreatedAt: 9 }).transactionCreatedAt).toBe(9);
  });

  it('gives the work\'s transaction createdAt to the updates of that transaction that lack one, and to no other', () => {
    const e = effects();
    const u = (id: string, createdAt?: number) => ({ organizationId: 'o', id, traceGuid: 't', completed: true, ...(createdAt === undefined ? {} : { createdAt }) });
    e.updates.push(u('tx1'), u('tx2'), u('tx1', 3));
    const m = { organizationId: 'o', transactionId: 'tx1', transactionCreatedAt: 7 };
    expect(withTransactionCreatedAt(e, m).updates.map((x) => [x.id, x.createdAt])).toEqual([
      ['tx1', 7],
      ['tx2', undefined],
      ['tx1', 3],
    ]);
    // work that does not know it leaves the updates to the store (which reads it)
    expect(withTransactionCreatedAt(e, { ...m, transactionCreatedAt: null }).updates.map((x) => x.createdAt)).toEqual([undefined, undefined, 3]);
  });

  it('marks a success entry as its transaction\'s first delivery only when the pass recorded the transaction and delivered it itself', () => {
    const tx = (id: string) => ({ organizationId: 'o', id, traceGuid: 't', createdAt: 5, transactionSetIdentifier: '850' }) as StoredTransaction;
    const res = (id: string, transactionId: string, resend = false, status: 'success' | 'error' = 'success') => ({ organizationId: 'o', id, traceGuid: 't', transactionId, status, resend }) as ResultRecord;
    const req = (resultId: string, transactionId: string, status: 'success' | 'error' = 'success'): FeedRequest => ({ id: `f-${resultId}`, organizationId: 'o', direction: 'inbound', status, partnerKey: 'P', traceGuid: 't', resultId, transactionId, detail: '{}', requestedAt: 1 });
    const e = { feed: [req('r1', 'tx1'), req('r2', 'tx2'), req('r3', 'tx3'), req('elsewhere', 'tx1'), req('r5', 'tx5', 'error')], results: [res('r1', 'tx1'), res('r2', 'tx2', true), res('r3', 'tx3'), res('r5', 'tx5', false, 'error')] };
    const marked = firstDeliveries(e, { recorded: [tx('tx1'), tx('tx2'), tx('tx5')], folded: [] }).map((f) => [f.resultId, f.firstDelivery ?? null]);
    expect(marked).toEqual([
      // recorded and delivered here
      ['r1', { createdAt: 5, transactionSetIdentifier: '850' }],
      // a replay's result
      ['r2', null],
      // its transaction was recorded by another pass
      ['r3', null],
      // a result this pass did not write (a republished delivery)
      ['elsewhere', null],
      // not a success
      ['r5', null],
    ]);
  });
});
