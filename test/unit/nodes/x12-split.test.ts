/**
 * x12_split over in-memory stores: what it records for each set, what it sends on, the 997
 * request per group, warnings, duplicates, a set with no setting, an unreadable input, and a
 * redelivered work item rewriting the same rows.
 */
import { describe, expect, it } from 'vitest';
import { x12SplitNode } from '../../../src/nodes/x12_split/node.ts';
import { statusOf, type ArtifactRecord } from '../../../src/domain/records.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import type { FeedRequestMessage } from '../../../src/wire/feed-request.v1.ts';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { interchange, po850 } from '../../integration/pipeline/support.ts';
import { memoryDeps, type MemoryNodeDeps } from '../support/memory-stores.ts';
import { memoryOrg, workFor } from '../support/org.ts';

const doc = (acks = true): ConfigDocument => ({
  envelopes: [
    { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
    { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
  ],
  connections: [{ name: 'c', kind: 'sftp', host: 'h', port: 22, username: 'u', password: 'p', inboundDirectory: 'in', outboundDirectory: 'out' }],
  webhooks: [{ name: 'errors', url: 'http://127.0.0.1:9/err' }],
  implementations: [{ name: 'po', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
  partners: [
    {
      key: 'ACME',
      name: 'Acme',
      deliveryMethod: 'polling',
      generateAcknowledgments: acks,
      connection: 'c',
      envelopes: { internal: 'us', external: 'them' },
      webhooks: { error: 'errors' },
      frequency: 0,
      transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po' }],
    },
  ],
});

async function split(deps: MemoryNodeDeps, cfg: ReturnType<typeof memoryOrg>, text: string, over: Partial<StageMessage> = {}): Promise<StageMessage> {
  const flow = cfg.flow('ACME', 'inbound');
  const msg = workFor(flow, 'x12_split', { partnerKey: 'ACME', inputResultId: 'input-result', ...over });
  const input: ArtifactRecord = {
    organizationId: msg.organizationId, id: `in-${msg.traceGuid}`, traceGuid: msg.traceGuid, resultId: 'input-result', nodeName: 'Fetch from SFTP', usage: 'input',
    contentType: 'application/edi-x12', filename: 'po.edi', size: 0, sha256: '', blobId: `in-${msg.traceGuid}`, createdAt: msg.createdAt,
  };
  await deps.stores.artifacts.put(input, Buffer.from(text));
  const work = { ...msg, artifacts: [{ id: input.id, usage: 'input', contentType: input.contentType, filename: input.filename }] };
  await x12SplitNode(deps).handle([{ message: work }], { logger: deps.logger, heartbeat: () => Promise.resolve() });
  return work;
}

describe('x12_split', () => {
  it('records each set with every list field, its translation and split result, and sends it on to the mapping', async () => {
    const cfg = memoryOrg(doc());
    const deps = memoryDeps(cfg);
    const work = await split(deps, cfg, interchange({ control: 12, groups: [{ sets: [po850('PO-1'), po850('PO-2  ')] }] }));
    const txs = deps.memory.transactions.all();
    expect(txs.map((t) => [t.reference, statusOf(t), t.transactionSetControlNumber])).toEqual([
      ['PO-1', 'processing', '0001'],
      ['PO-2', 'processing', '0002'],
    ]);
    expect(txs[0]).toMatchObject({ direction: 'inbound', usageIndicator: 'P', partnerKey: 'ACME', senderQualifier: 'ZZ', senderExtid: 'PARTNER', receiverExtid: 'US', interchangeControlNumber: '000000012', groupControlNumber: '12', duplicateOf: null, warningCount: 0, traceGuid: work.traceGuid });
    expect(txs[0]!.roles.input).toEqual({ resultId: 'input-result', nodeName: 'Fetch from SFTP', artifact: work.artifacts[0] });
    expect(txs[1]!.createdAt - txs[0]!.createdAt).toBe(1);
    const results = deps.memory.results.all();
    expect(results).toHaveLength(2);
    const r = results[0]!;
    expect(r).toMatchObject({ status: 'success', service: 'x12_split', transactionId: txs[0]!.id, direction: 'inbound' });
    expect(r.detail.x12).toEqual({ sender: { isa: { qualifier: 'ZZ', id: 'PARTNER' } }, receiver: { isa: { qualifier: 'ZZ', id: 'US' } }, transaction: { transactionSetIdentifier: '850', controlNumber: 1 }, interchange: { controlNumber: 12 }, functionalGroup: { controlNumber: 12 } });
    expect(r.detail.usageIndicator).toBe('P');
    expect(r.detail.partner).toEqual({ key: 'ACME' });
    const translation = r.detail.artifacts!.find((a) => a.usage === 'translation')!;
    expect(r.payload).toEqual({ artifactId: translation.id, format: 'json' });
    expect(JSON.parse(deps.memory.artifacts.text('org-1', translation.id))).toHaveProperty('heading');
    const mapping = deps.memory.emitter.on<StageMessage>('stage.mapping');
    // a group's first set waits for the group's trailer, so it may go on last
    expect(mapping.map((m) => m.transactionId).sort()).toEqual(txs.map((t) => t.id).sort());
    expect(mapping.find((m) => m.transactionId === txs[0]!.id)).toMatchObject({ inputResultId: r.id, usageIndicator: 'P', params: expect.objectContaining({ transactionSetIdentifier: '850', release: '004010', warningCount: '0' }) as object });
    // one 997 request for the group
    const acks = deps.memory.emitter.on<StageMessage>('stage.ack_generate');
    expect(acks).toHaveLength(1);
    const request = JSON.parse(deps.memory.artifacts.text('org-1', acks[0]!.artifacts[0]!.id)) as { answered: string[]; kind: string; status: string };
    expect(request).toMatchObject({ kind: '997', status: 'A', answered: txs.map((t) => t.id) });
  });

  it('rewrites the same rows when the same work item comes again (Kafka redelivery)', async () => {
    const cfg = memoryOrg(doc());
    const deps = memoryDeps(cfg);
    const text = interchange({ control: 13, groups: [{ sets: [po850('PO-1'), po850('PO-2')] }] });
    const work = await split(deps, cfg, text);
    const before = { tx: deps.memory.transactions.all(), results: deps.memory.results.all(), sent: deps.memory.emitter.sent.length };
    await x12SplitNode(deps).handle([{ message: work }], { logger: deps.logger, heartbeat: () => Promise.resolve() });
    expect(deps.memory.transactions.all()).toEqual(before.tx);
    expect(deps.memory.results.all()).toEqual(before.results);
    // the same messages again, with the same ids
    const ids = deps.memory.emitter.sent.map((m) => (m.value as { id: string }).id);
    expect(ids.slice(before.sent)).toEqual(ids.slice(0, before.sent));
    // and a redelivery is never a duplicate of itself
    expect(deps.memory.transactions.all().map((t) => t.duplicateOf)).toEqual([null, null]);
  });

  it('names the earlier interchange of the same sender and control number as duplicateOf', async () => {
    const cfg = memoryOrg(doc());
    const deps = memoryDeps(cfg);
    const text = interchange({ control: 14, groups: [{ sets: [po850('PO-1')] }] });
    await split(deps, cfg, text);
    const first = deps.memory.transactions.all()[0]!;
    const second = await split(deps, cfg, text);
    const again = deps.memory.transactions.all().find((t) => t.traceGuid === second.traceGuid)!;
    expect(again.duplicateOf).toBe(first.id);
  });

  it('names the first of two interchanges of one file with the same control number as the duplicateOf of the second, before either is stored', async () => {
    const cfg = memoryOrg(doc());
    const deps = memoryDeps(cfg);
    const one = interchange({ control: 16, groups: [{ sets: [po850('PO-1')] }] });
    await split(deps, cfg, `${one}${one}`);
    const [first, second] = deps.memory.transactions.all().sort((a, b) => a.createdAt - b.createdAt);
    expect(first!.duplicateOf).toBeNull();
    expect(second!.duplicateOf).toBe(first!.id);
    // both are noted in the index, with the pass's writes
    expect((await deps.stores.transactions.sightings({ organizationId: first!.organizationId, senderQualifier: 'ZZ', senderExtid: 'PARTNER', interchangeControlNumber: '000000016', usageClass: 'P' })).map((x) => x.transactionId)).toEqual([first!.id, second!.id]);
  });

  it('carries a group-level structural warning once, on the group first set', async () => {
    const cfg = memoryOrg(doc());
    const deps = memoryDeps(cfg);
    const text = interchange({ control: 15, groups: [{ sets: [po850('PO-1'), po850('PO-2')] }] }).replace(/GE\*2\*/, 'GE*3*');
    await split(deps, cfg, text);
    const results = deps.memory.results.all();
    expect(results.map((r) => (r.detail.warnings ?? []).map((w) => w.code))).toEqual([['structural_error'], []]);
    expect(results[0]!.detail.warnings![0]!.detail).toMatchObject({ ak905: '5', scope: 'group' });
    expect(deps.memory.transactions.all().map((t) => t.warningCount)).toEqual([1, 0]);
  });

  it('records a set the partner has no setting for, as an error naming the setting, and still acknowledges it', async () => {
    const cfg = memoryOrg(doc());
    const deps = memoryDeps(cfg);
    await split(deps, cfg, interchange({ control: 16, groups: [{ sets: [{ id: '855', segments: [{ id: 'BAK', elements: ['00', 'AC', 'PO-9', '20260301'] }] }] }] }));
    const [tx] = deps.memory.transactions.all();
    expect(tx).toMatchObject({ transactionSetIdentifier: '855', reference: 'PO-9', failed: true });
    expect(statusOf(tx!)).toBe('error');
    const [r] = deps.memory.results.all();
    expect(r).toMatchObject({ status: 'error', transactionId: tx!.id });
    expect(r!.detail.errorMessage).toBe('Partner ACME has no inbound transaction set setting for 855 release 004010; the set was recorded but not processed further.');
    expect(r!.detail.incomingResultId).toBe('input-result');
    expect(deps.memory.emitter.on<FeedRequestMessage>('events.feed')).toEqual([expect.objectContaining({ status: 'error', resultId: r!.id, transactionId: null })]);
    expect(deps.memory.emitter.on<StageMessage>('stage.webhook')).toEqual([expect.objectContaining({ params: expect.objectContaining({ purpose: 'notification', role: 'error', event: 'processing_failed' }) as object })]);
    expect(deps.memory.emitter.on('stage.mapping')).toEqual([]);
    expect(deps.memory.emitter.on('stage.ack_generate')).toHaveLength(1);
  });

  it('ends an unreadable input in one error result naming the fault, with no transaction', async () => {
    const cfg = memoryOrg(doc());
    const deps = memoryDeps(cfg);
    await split(deps, cfg, 'ISA*00*not an interchange');
    expect(deps.memory.transactions.all()).toEqual([]);
    const [r] = deps.memory.results.all();
    expect(r!.status).toBe('error');
    expect(r!.transactionId).toBeNull();
    expect(r!.detail.errorMessage).toMatch(/^The file po\.edi is not readable X12 \(byte offset 0, segment ISA/);
  });

  it('ends a file in which no transaction set is found in one error result quoting the reader\'s findings', async () => {
    const cfg = memoryOrg(doc());
    const deps = memoryDeps(cfg);
    // an interchange cut short after its ISA: readable, but nothing in it
    const whole = interchange({ control: 18, groups: [{ sets: [po850('PO-1')] }] });
    await split(deps, cfg, whole.slice(0, whole.indexOf('~') + 1));
    expect(deps.memory.transactions.all()).toEqual([]);
    const rs = deps.memory.results.all();
    expect(rs).toHaveLength(1);
    expect(rs[0]!.status).toBe('error');
    expect(rs[0]!.transactionId).toBeNull();
    expect(rs[0]!.detail.errorMessage).toMatch(/^The file po\.edi holds no transaction set that could be read \(1 interchange, 0 functional groups\): .*IEA/);
    // a group with no set in it is the same fault
    const cfg2 = memoryOrg(doc());
    const deps2 = memoryDeps(cfg2);
    const isa19 = whole.slice(0, whole.indexOf('~') + 1).replace('000000018', '000000019');
    await split(deps2, cfg2, `${isa19}GS*PO*PARTNER*US*20260301*1200*19*X*004010~GE*0*19~IEA*1*000000019~`);
    const [r2] = deps2.memory.results.all();
    expect(r2!.status).toBe('error');
    expect(r2!.detail.errorMessage).toMatch(/no transaction set that could be read \(1 interchange, 1 functional group\)/);
  });

  it('records a TA1-only interchange as split into nothing, without an error', async () => {
    const cfg = memoryOrg(doc());
    const deps = memoryDeps(cfg);
    const whole = interchange({ control: 20, groups: [{ sets: [po850('PO-1')] }] });
    const isa = whole.slice(0, whole.indexOf('~') + 1);
    await split(deps, cfg, `${isa}TA1*000000020*260301*1200*A*000~IEA*0*000000020~`);
    const rs = deps.memory.results.all();
    expect(rs.map((r) => r.status)).toEqual(['success']);
    expect(rs[0]!.transactionId).toBeNull();
    const logs = deps.memory.emitter.on<{ message: string }>('events.logs');
    expect(logs.map((l) => l.message)).toContain('The file po.edi holds interchange-level segments only (TA1) and no transaction set.');
  });

  it('sends no 997 request when the partner does not get acknowledgments', async () => {
    const cfg = memoryOrg(doc(false));
    const deps = memoryDeps(cfg);
    await split(deps, cfg, interchange({ control: 17, groups: [{ sets: [po850('PO-1')] }] }));
    expect(deps.memory.emitter.on('stage.ack_generate')).toEqual([]);
    expect(deps.memory.emitter.on('stage.mapping')).toHaveLength(1);
  });

  it('writes a file of large sets in several flushes of bounded bytes, and records every set', async () => {
    const cfg = memoryOrg(doc(false));
    const deps = memoryDeps(cfg);
    let flushes = 0;
    const produce = deps.emitter.produce.bind(deps.emitter);
    deps.emitter.produce = (ms) => ((flushes += 1), produce(ms));
    // four sets of 30,000 lines: about 1.3 MB of X12 each, several times that as translation
    const sets = Array.from({ length: 4 }, (_, i) => po850(`BIG-${i}`, 30_000));
    await split(deps, cfg, interchange({ control: 18, groups: [{ sets }] }));
    expect(deps.memory.transactions.all().map((t) => t.reference)).toEqual(['BIG-0', 'BIG-1', 'BIG-2', 'BIG-3']);
    expect(deps.memory.emitter.on('stage.mapping')).toHaveLength(4);
    expect(flushes).toBeGreaterThan(1);
  }, 60_000);
});
