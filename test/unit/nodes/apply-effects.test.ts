/** What the runtime writes for a step's effects (src/nodes/runtime.ts applyEffects). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applyEffects, recordEventMessages, snapshotOf } from '../../../src/nodes/runtime.ts';
import * as transactionChange from '../../../src/wire/transaction-change.v1.ts';
import * as recordEvents from '../../../src/wire/record-events.v1.ts';
import type { RecordEvents } from '../../../src/wire/record-events.v1.ts';
import type { TransactionChange } from '../../../src/wire/transaction-change.v1.ts';
import { effects } from '../../../src/nodes/step.ts';
import type { ArtifactRecord, StoredTransaction } from '../../../src/domain/records.ts';
import type { AcknowledgmentDeadline, AcknowledgmentDeadlineStore, SandboxReceiptStore } from '../../../src/domain/processing-ports.ts';
import { doc } from '../support/acme.ts';
import { memoryDeps } from '../support/memory-stores.ts';
import { memoryOrg } from '../support/org.ts';

const org = memoryOrg(doc);

function artifact(id: string, blobId: string): ArtifactRecord {
  return { organizationId: 'org-1', id, traceGuid: 'trace-1', resultId: 'result-1', nodeName: 'Map', usage: 'mapped', contentType: 'application/json', filename: null, size: 0, sha256: '', blobId, createdAt: 1 };
}

describe('applyEffects: artifacts', () => {
  it('writes an alias of bytes written with it, and an alias of that alias, from what was written: no read of the source', async () => {
    const deps = memoryDeps(org);
    const bytes = Buffer.from('{"order":"PO-1"}');
    const e = effects();
    e.artifacts.push({ record: artifact('a-bytes', 'a-bytes'), bytes }, { record: artifact('a-alias', 'a-bytes'), bytes: null }, { record: artifact('a-alias-2', 'a-alias'), bytes: null });
    await applyEffects(deps.stores, deps.emitter, e, 1);
    const a = deps.memory.artifacts;
    expect(a.aliasesGivenTheirSource).toBe(2);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    for (const id of ['a-alias', 'a-alias-2']) expect(await a.get('org-1', id)).toMatchObject({ id, blobId: 'a-bytes', size: bytes.length, sha256 });
    expect((await a.read((await a.get('org-1', 'a-alias-2'))!)).toString()).toBe('{"order":"PO-1"}');
  });

  it('reads the source of an alias whose bytes were written before', async () => {
    const deps = memoryDeps(org);
    await deps.stores.artifacts.put(artifact('earlier', 'earlier'), Buffer.from('abc'));
    const e = effects();
    e.artifacts.push({ record: artifact('later-alias', 'earlier'), bytes: null });
    await applyEffects(deps.stores, deps.emitter, e, 1);
    expect(deps.memory.artifacts.aliasesGivenTheirSource).toBe(0);
    expect(await deps.memory.artifacts.get('org-1', 'later-alias')).toMatchObject({ blobId: 'earlier', size: 3 });
  });
});

function tx(id: string): StoredTransaction {
  return {
    id, organizationId: 'org-1', traceGuid: 'trace-1', direction: 'inbound', usageIndicator: 'P', partnerKey: 'acme', transactionSetIdentifier: '850', release: '004010', reference: null,
    senderQualifier: 'ZZ', senderExtid: 'A', receiverQualifier: 'ZZ', receiverExtid: 'B', interchangeControlNumber: '1', groupControlNumber: '1', transactionSetControlNumber: '0001',
    duplicateOf: null, flowId: 'f', flowVersion: 1, flowName: 'F', createdAt: 100, failed: false, failedNodeName: null, completed: false, deliveredAt: null, warningCount: 0,
    acknowledgmentStatus: null, acknowledgedBy: null, acknowledges: null, resendCount: 0, lastResentAt: null, roles: {}, deliveryNodeId: null, deliveryResultId: null, deliveryInputResultId: null, updatedAt: 100,
  };
}

describe('applyEffects: transactions recorded with their updates', () => {
  it('folds the updates of a transaction recorded in the same effects into its row, written after the results', async () => {
    const deps = memoryDeps(org);
    const calls: string[] = [];
    const t = deps.memory.transactions;
    const record = t.record.bind(t);
    const update = t.update.bind(t);
    const put = deps.memory.results.put.bind(deps.memory.results);
    t.record = async (rows) => (calls.push(`record ${rows.map((r) => `${r.id}${r.completed ? ' completed' : ''}`).join(',')}`), record(rows));
    t.update = async (rows) => (calls.push(`update ${rows.map((r) => r.id).join(',')}`), update(rows));
    deps.memory.results.put = async (rows) => (calls.push('results'), put(rows));
    await t.record([tx('elsewhere')]);
    calls.length = 0;
    const e = effects();
    e.transactions.push(tx('plain'), tx('mapped'));
    e.results.push({ id: 'r1', organizationId: 'org-1', traceGuid: 'trace-1', transactionId: 'mapped', flowId: 'f', nodeId: 'n', nodeName: 'Feed', service: 'feed', status: 'success', direction: 'inbound', partnerKey: 'acme', resend: false, detail: {}, payload: null, createdAt: 101, updatedAt: 101 } as never);
    e.updates.push(
      { organizationId: 'org-1', id: 'mapped', traceGuid: 'trace-1', roles: { mapped: { resultId: 'r0', nodeName: 'Map' } } as never, warningCount: 2 },
      { organizationId: 'org-1', id: 'mapped', traceGuid: 'trace-1', completed: true, deliveryResultId: 'r1' },
      { organizationId: 'org-1', id: 'elsewhere', traceGuid: 'trace-1', completed: true },
      { organizationId: 'org-1', id: 'plain', traceGuid: 'trace-1', acknowledgmentStatus: 'accepted', at: 150 },
    );
    await applyEffects(deps.stores, deps.emitter, e, 200);
    expect(calls).toEqual(['record plain', 'results', 'record mapped completed', 'update elsewhere,plain']);
    expect(await t.get('org-1', 'mapped')).toMatchObject({ completed: true, deliveryResultId: 'r1', warningCount: 2, roles: { mapped: { resultId: 'r0', nodeName: 'Map' } }, createdAt: 100 });
    expect(await t.get('org-1', 'elsewhere')).toMatchObject({ completed: true });
    expect(await t.get('org-1', 'plain')).toMatchObject({ acknowledgmentStatus: 'accepted', completed: false });
    // one change event per transaction, folded or not
    const changes = deps.memory.emitter.on<TransactionChange>('events.transactions').sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(changes.map((c) => c.id)).toEqual(['elsewhere', 'mapped', 'plain']);
    // the row travels with the change only where this pass wrote all of it: 'mapped' (its
    // updates folded in), not 'elsewhere' (recorded before) nor 'plain' (an update as of a clock)
    expect(changes.map((c) => c.snapshot && { completed: c.snapshot.completed, warningCount: c.snapshot.warningCount, reference: c.snapshot.reference })).toEqual([null, { completed: true, warningCount: 2, reference: tx('mapped').reference }, null]);
  });
});

describe('applyEffects: notes kept beside the records', () => {
  it('writes the outbound sets, acknowledgment deadlines and sandbox receipts of the effects, before the results that end the step', async () => {
    const deps = memoryDeps(org);
    const calls: string[] = [];
    const watched: AcknowledgmentDeadline[] = [];
    const put = deps.memory.results.put.bind(deps.memory.results);
    deps.memory.results.put = async (rows) => (calls.push('results'), put(rows));
    const outboundSet = deps.memory.transactions.outboundSet.bind(deps.memory.transactions);
    deps.memory.transactions.outboundSet = async (...args) => (calls.push(`outbound set ${args[1]}`), outboundSet(...args));
    const deadlines: AcknowledgmentDeadlineStore = {
      watch: (d) => {
        calls.push('deadlines');
        watched.push(...d);
        return Promise.resolve();
      },
      due: () => Promise.resolve([]),
      done: () => Promise.resolve(),
    };
    const key = { organizationId: 'org-1', sender: 'ZZ:US', receiver: 'ZZ:ACME', groupControlNumber: '7' };
    const e = effects();
    e.outboundSets.push({ key, setControlNumber: '0001', transactionId: 'tx-1', createdAt: 100, tracked: true }, { key, setControlNumber: '0002', transactionId: 'tx-2', createdAt: 101, tracked: true });
    e.deadlines.push({ organizationId: 'org-1', transactionId: 'tx-1', traceGuid: 'trace-1', partnerKey: 'acme', dueAt: 5_000 });
    e.sandboxReceipts.push({ organizationId: 'org-1', resultIds: ['r0', 'r1'], artifactIds: ['a1'], receivedAt: 101 });
    const receipts: SandboxReceiptStore = {
      record: (r) => {
        calls.push(`receipt ${r.resultIds.join(',')}`);
        return Promise.resolve();
      },
      receivedResults: () => Promise.resolve(new Set()),
      receivedArtifact: () => Promise.resolve(false),
    };
    e.results.push({ id: 'r1', organizationId: 'org-1', traceGuid: 'trace-1', transactionId: 'tx-1', flowId: 'f', nodeId: 'n', nodeName: 'Upload', service: 'sftp_upload', status: 'success', direction: 'outbound', partnerKey: 'acme', resend: false, detail: {}, payload: null, createdAt: 101, updatedAt: 101 } as never);
    await applyEffects({ ...deps.stores, deadlines, sandboxReceipts: receipts }, deps.emitter, e, 200);
    expect(calls.slice(0, 4).sort()).toEqual(['deadlines', 'outbound set 0001', 'outbound set 0002', 'receipt r0,r1']);
    expect(calls.at(-1)).toBe('results');
    expect((await deps.memory.transactions.outboundSets(key)).map((s) => [s.setControlNumber, s.transactionId, s.tracked])).toEqual([
      ['0001', 'tx-1', true],
      ['0002', 'tx-2', true],
    ]);
    expect(watched.map((d) => [d.transactionId, d.dueAt])).toEqual([['tx-1', 5_000]]);
  });
});

describe('transaction snapshots', () => {
  it('hold exactly the fields of the wire schema, and survive encoding', () => {
    const t = { ...tx('snap'), acknowledgmentStatus: 'accepted' as const, deliveredAt: 1234 };
    const snapshot = snapshotOf(t);
    const value = { id: t.id, organizationId: t.organizationId, traceGuid: t.traceGuid, changedAt: 5, snapshot };
    expect(transactionChange.decode(transactionChange.encode(value, 1))).toEqual(value);
    expect(Object.keys(snapshot)).toEqual(transactionChange.schema.fields.find((f) => f.name === 'snapshot')!.type[1].fields.map((f) => f.name));
  });
});

describe('events.records messages', () => {
  const result = (id: string, trace: string, detail: Record<string, unknown> = {}) =>
    ({ id, organizationId: 'org-1', traceGuid: trace, transactionId: null, flowId: null, nodeId: 'n', nodeName: 'Map', service: 'mapping', status: 'success', direction: 'inbound', partnerKey: null, resend: false, detail, payload: null, createdAt: 1, updatedAt: 1 }) as never;
  const log = (id: string, trace: string) => ({ id, organizationId: 'org-1', traceGuid: trace, level: 'info' as const, message: 'm', nodeName: null, createdAt: 1 });

  it('carry a trace\'s results, log entries and changes in one message keyed by the trace, in the order written', () => {
    const out = recordEventMessages([result('r1', 'A'), result('r2', 'B'), result('r3', 'A')], [log('l1', 'B'), log('l2', 'A')], [{ id: 't1', organizationId: 'org-1', traceGuid: 'A', changedAt: 5, snapshot: null }]);
    expect(out.map((m) => [m.topic, m.key])).toEqual([
      ['events.records', 'A'],
      ['events.records', 'B'],
    ]);
    const a = out[0]!.value as RecordEvents;
    expect(a.results.map((r) => r.id)).toEqual(['r1', 'r3']);
    expect(a.logs.map((l) => l.id)).toEqual(['l2']);
    expect(a.changes.map((c) => c.id)).toEqual(['t1']);
    expect((out[1]!.value as RecordEvents).results.map((r) => r.id)).toEqual(['r2']);
  });

  it('are cut at the size bound, losing and repeating nothing', () => {
    const many = Array.from({ length: 50 }, (_, i) => result(`r${i}`, 'A', { text: 'x'.repeat(1000) }));
    const out = recordEventMessages(many, [], [], 10_000);
    expect(out.length).toBeGreaterThan(4);
    expect(out.every((m) => m.key === 'A')).toBe(true);
    expect(out.flatMap((m) => (m.value as RecordEvents).results.map((r) => r.id))).toEqual(many.map((r: { id: string }) => r.id));
    // and each encodes within the bound
    for (const m of out) expect(recordEvents.encode(m.value as RecordEvents, 1).length).toBeLessThanOrEqual(10_000);
  });
});
