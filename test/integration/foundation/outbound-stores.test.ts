/**
 * The Cassandra stores behind outbound documents, in the test worker's shared keyspace under
 * organizations, traces, blobs and job names of this file's own: control numbers
 * taken in blocks (consecutive, remembered per owner, wrapping after 999999999, unique when two
 * clients take at once), transaction writes ordered by their step clocks (a later 997 wins
 * whatever order the two answers are applied in; a re-recorded transaction never resets what
 * later steps wrote), outbound sets with their tracking flag, and the sandbox receipt, deadline
 * and lease stores. Also the processing stores' grouped writes and reads (rows of one partition
 * in unlogged batches, reads of many keys with `IN`) at sizes that span several requests.
 */
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createCassandraClient } from '../../../src/adapters/cassandra/client.ts';
import { CassandraArtifactStore } from '../../../src/adapters/cassandra/artifact-store.ts';
import { CassandraControlNumbers } from '../../../src/adapters/cassandra/control-numbers.ts';
import { CassandraResultStore } from '../../../src/adapters/cassandra/result-store.ts';
import { CassandraSandboxReceipts } from '../../../src/adapters/cassandra/sandbox-receipts.ts';
import { CassandraStepLedger } from '../../../src/adapters/cassandra/step-ledger.ts';
import { CassandraTransactionStore } from '../../../src/adapters/cassandra/transaction-store.ts';
import { CassandraAcknowledgmentDeadlines } from '../../../src/adapters/cassandra/outbound-store.ts';
import { CassandraLeaseStore } from '../../../src/adapters/cassandra/lease-store.ts';
import type { ResultRecord, StoredTransaction } from '../../../src/domain/records.ts';
import { bucketOfId, resultId, traceBucket } from '../../../src/domain/ids.ts';
import { createLogger } from '../../../src/logger.ts';
import { captureIo, eventually, isolatedConfig, migrateWorkerKeyspace } from '../helpers/isolated-config.ts';
import { uniqueId } from '../helpers/env.ts';

const iso = isolatedConfig({}, { sharedKeyspace: true });
/** This file's organization in the shared keyspace; ids that are keys of their own (traces, blobs, job names) start with it too. */
const ORG = uniqueId('org-');
const logger = createLogger({ ...iso.config, logLevel: 'silent' });
let client: cassandra.Client;
let other: cassandra.Client;

beforeAll(async () => {
  const migrate = () => runMigrate(iso.config, logger, captureIo().io, ['cassandra']);
  if (!(await migrateWorkerKeyspace(iso.config, migrate))) await migrate();
  client = createCassandraClient(iso.config, logger);
  other = createCassandraClient(iso.config, logger);
  await Promise.all([client.connect(), other.connect()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([client?.shutdown(), other?.shutdown()]);
  await iso.cleanup();
});

describe('control numbers in blocks', () => {
  it('are consecutive in owner order, and an owner gets its number again', async () => {
    const numbers = new CassandraControlNumbers(client);
    const first = await numbers.takeMany(ORG, 'scope-a', ['a', 'b', 'c']);
    expect([...first.entries()]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    const again = await numbers.takeMany(ORG, 'scope-a', ['d', 'b', 'e']);
    expect([again.get('d'), again.get('b'), again.get('e')]).toEqual([4, 2, 5]);
    expect(await numbers.take(ORG, 'scope-a', 'f')).toBe(6);
    expect(await numbers.take(ORG, 'scope-a', 'c')).toBe(3);
  });

  it('give an owner one number however many runs of its step take one at the same moment, and leave no number unused', async () => {
    // a step run twice at once (a work item delivered twice): both first looks find nothing,
    // both runs take a number from the counter, and both must come away with the same one
    const a = new CassandraControlNumbers(client);
    const b = new CassandraControlNumbers(other);
    for (let round = 0; round < 5; round++) {
      const owner = `twice-${round}`;
      const got = await Promise.all([a.take(ORG, 'scope-twice', owner), b.take(ORG, 'scope-twice', owner), a.take(ORG, 'scope-twice', owner), b.take(ORG, 'scope-twice', owner)]);
      expect(new Set(got).size, `owner ${owner} got ${got.join(', ')}`).toBe(1);
      expect(got[0], 'no number is left unused').toBe(round + 1);
      const block = await Promise.all([a.takeMany(ORG, 'scope-twice-block', [`${owner}-x`, `${owner}-y`]), b.takeMany(ORG, 'scope-twice-block', [`${owner}-x`, `${owner}-y`])]);
      expect(block[0]).toEqual(block[1]);
      expect([...block[0].values()]).toEqual([2 * round + 1, 2 * round + 2]);
    }
  });

  it('give a block back to its owners when the counter moved but the numbers were never recorded, also after another owner took the next block', async () => {
    // what a compare-and-set that timed out with its outcome unknown (or a process stopped right
    // after it) leaves: the counter past the block, the block's owners without a recorded number
    await client.execute('INSERT INTO control_numbers (org_id, scope, value, pending) VALUES (?, ?, ?, ?)', [ORG, 'scope-lost', cassandra.types.Long.fromNumber(12), { p: cassandra.types.Long.fromNumber(11), q: cassandra.types.Long.fromNumber(12) }], { prepare: true });
    const numbers = new CassandraControlNumbers(client);
    expect(await numbers.take(ORG, 'scope-lost', 'q')).toBe(12);
    expect(await numbers.take(ORG, 'scope-lost', 'r')).toBe(13);
    // p's run again, after r's block replaced p's as the counter's last: p finds its number
    expect(await numbers.take(ORG, 'scope-lost', 'p')).toBe(11);
    expect(await numbers.take(ORG, 'scope-lost', 's')).toBe(14);
  });

  it('wrap from 999999999 to 1', async () => {
    await client.execute('INSERT INTO control_numbers (org_id, scope, value) VALUES (?, ?, ?)', [ORG, 'scope-wrap', cassandra.types.Long.fromNumber(999_999_998)], { prepare: true });
    const taken = await new CassandraControlNumbers(client).takeMany(ORG, 'scope-wrap', ['x', 'y', 'z']);
    expect([taken.get('x'), taken.get('y'), taken.get('z')]).toEqual([999_999_999, 1, 2]);
  });

  it('stay unique when two clients take blocks of one sequence at once', async () => {
    const a = new CassandraControlNumbers(client);
    const b = new CassandraControlNumbers(other);
    const blocks = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).takeMany(ORG, 'scope-race', Array.from({ length: 5 }, (_, k) => `o${i}-${k}`))));
    const all = blocks.flatMap((m) => [...m.values()]).sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });
});

function tx(id: string, createdAt: number): StoredTransaction {
  return {
    id,
    organizationId: ORG,
    traceGuid: `trace-${id}`,
    direction: 'outbound',
    usageIndicator: 'P',
    partnerKey: 'P',
    transactionSetIdentifier: '810',
    release: '004010',
    reference: null,
    senderQualifier: 'ZZ',
    senderExtid: 'US',
    receiverQualifier: 'ZZ',
    receiverExtid: 'PARTNER',
    interchangeControlNumber: '000000001',
    groupControlNumber: '1',
    transactionSetControlNumber: '0001',
    duplicateOf: null,
    flowId: null,
    flowVersion: null,
    flowName: null,
    createdAt,
    failed: false,
    failedNodeName: null,
    completed: false,
    deliveredAt: null,
    warningCount: 0,
    acknowledgmentStatus: null,
    acknowledgedBy: null,
    acknowledges: null,
    resendCount: 0,
    lastResentAt: null,
    roles: {},
    deliveryNodeId: null,
    deliveryResultId: null,
    deliveryInputResultId: null,
    updatedAt: createdAt,
  };
}

describe('transaction writes ordered by step clocks', () => {
  it('the answer with the later clock wins whatever order the answers are applied in', async () => {
    const store = new CassandraTransactionStore(client);
    const t0 = (Date.now() - 60_000) * 1000;
    await store.record([tx('t1', t0)]);
    // the 997 taken up later is applied first; the upload's unacknowledged and an earlier 997 come after
    await store.update([{ organizationId: ORG, id: 't1', traceGuid: 'trace-t1', acknowledgmentStatus: 'rejected', acknowledgedBy: 'ack-2', at: t0 + 3000 }]);
    await store.update([{ organizationId: ORG, id: 't1', traceGuid: 'trace-t1', acknowledgmentStatus: 'unacknowledged', at: t0 + 1000 }]);
    await store.update([{ organizationId: ORG, id: 't1', traceGuid: 'trace-t1', acknowledgmentStatus: 'accepted', acknowledgedBy: 'ack-1', at: t0 + 2000 }]);
    const got = (await store.get(ORG, 't1'))!;
    expect([got.acknowledgmentStatus, got.acknowledgedBy]).toEqual(['rejected', 'ack-2']);
    expect(got.updatedAt).toBeGreaterThan(t0 + 3000);
  });

  it('a transaction recorded again (a step re-run) keeps what later steps wrote', async () => {
    const store = new CassandraTransactionStore(client);
    const t0 = (Date.now() - 60_000) * 1000;
    await store.record([tx('t2', t0)]);
    await store.update([{ organizationId: ORG, id: 't2', traceGuid: 'trace-t2', completed: true, deliveredAt: t0 + 5 }]);
    await store.record([tx('t2', t0)]);
    const got = (await store.get(ORG, 't2'))!;
    expect([got.completed, got.deliveredAt]).toEqual([true, t0 + 5]);
  });

  it('outbound sets keep their tracking flag', async () => {
    const store = new CassandraTransactionStore(client);
    const key = { organizationId: ORG, sender: 'ZZ:US', receiver: 'ZZ:PARTNER', groupControlNumber: '7' };
    await store.outboundSet(key, '0001', 'a', 1, true);
    await store.outboundSet(key, '0002', 'b', 2);
    expect(await store.outboundSets(key)).toEqual([
      { setControlNumber: '0001', transactionId: 'a', tracked: true },
      { setControlNumber: '0002', transactionId: 'b', tracked: false },
    ]);
  });
});

describe('sandbox, deadline and lease stores', () => {
  it('sandbox receipts: recorded results and artifacts are received, others are not', async () => {
    const s = new CassandraSandboxReceipts(client);
    await s.record({ organizationId: ORG, resultIds: ['r1', 'r2'], artifactIds: ['a1'], receivedAt: 1 });
    expect(await s.receivedResults(ORG, ['r1', 'r2', 'r3'])).toEqual(new Set(['r1', 'r2']));
    expect(await s.receivedResults(`${ORG}-other`, ['r1'])).toEqual(new Set());
    expect([await s.receivedArtifact(ORG, 'a1'), await s.receivedArtifact(ORG, 'r1')]).toEqual([true, false]);
  });

  it('deadlines: read in due order over hours, forgotten once done', async () => {
    const s = new CassandraAcknowledgmentDeadlines(client);
    const hour = 3_600_000_000;
    const at = 1_800_000_000 * 1_000_000;
    // the deadlines of an hour are one partition whatever their organization: this file reads its own
    const mine = async (from: number, to: number) => (await s.due(from, to)).filter((x) => x.organizationId === ORG).map((x) => x.transactionId);
    const d = (id: string, dueAt: number) => ({ organizationId: ORG, transactionId: id, traceGuid: `trace-${id}`, partnerKey: 'P', dueAt });
    await s.watch([d('late', at + 2 * hour + 5), d('early', at + 1), d('middle', at + hour + 3)]);
    expect(await mine(at, at + 3 * hour)).toEqual(['early', 'middle', 'late']);
    expect(await mine(at, at + hour + 3)).toEqual(['early']);
    await s.done(d('middle', at + hour + 3));
    expect(await mine(at, at + 3 * hour)).toEqual(['early', 'late']);
  });

  it('leases: one holder at a time, renewable, released; positions kept', async () => {
    const l = new CassandraLeaseStore(client);
    expect(await l.hold(`${ORG}-job`, 'a', 30)).toBe(true);
    expect(await l.hold(`${ORG}-job`, 'b', 30)).toBe(false);
    expect(await l.hold(`${ORG}-job`, 'a', 30)).toBe(true);
    await l.release(`${ORG}-job`, 'a');
    expect(await l.hold(`${ORG}-job`, 'b', 30)).toBe(true);
    expect(await l.position(`${ORG}-job`)).toBeNull();
    await l.setPosition(`${ORG}-job`, 42);
    expect(await l.position(`${ORG}-job`)).toBe(42);
  });

  it('leases: a lease not renewed lapses', async () => {
    const l = new CassandraLeaseStore(client);
    expect(await l.hold(`${ORG}-short`, 'a', 1)).toBe(true);
    // the 1 s lease lapses (within 2 s: Cassandra TTLs count whole seconds), then another holder takes it
    expect(await eventually(async () => ((await l.hold(`${ORG}-short`, 'b', 30)) ? true : undefined), 5_000, 'the lease to lapse')).toBe(true);
  });
});

function result(trace: string, i: number, detail = ''): ResultRecord {
  const at = (Date.now() - 1000) * 1000 + i;
  return {
    id: `${trace}-r${i}`,
    organizationId: ORG,
    traceGuid: trace,
    transactionId: `${trace}-t${i % 50}`,
    flowId: 'flow',
    nodeId: 'node',
    nodeName: 'Mapping',
    service: 'mapping',
    status: i % 3 === 0 ? 'error' : 'success',
    direction: 'inbound',
    partnerKey: 'P',
    resend: false,
    detail: detail ? { errorMessage: detail } : {},
    payload: null,
    createdAt: at,
    updatedAt: at,
  };
}

describe('grouped writes and reads of the processing stores', () => {
  it('step clocks: many work items of several traces get one clock each, kept on the next call', async () => {
    const ledger = new CassandraStepLedger(client);
    const items = Array.from({ length: 450 }, (_, i) => ({ id: `w${i}`, traceGuid: `${ORG}-clock-${i % 3}` }));
    const first = await ledger.clocks(items.slice(0, 300), 1000);
    expect(first.size).toBe(300);
    expect(new Set(first.values())).toEqual(new Set([1000]));
    // a redelivery of the first 300, with 150 new ones: the old keep their clock
    const second = await ledger.clocks(items, 2000);
    expect(second.size).toBe(450);
    for (const [id, at] of second) expect(at, id).toBe(Number(id.slice(1)) < 300 ? 1000 : 2000);
  });

  it('results: 600 of one trace (some larger than a batch) are all stored, in the trace partition and by id', async () => {
    const store = new CassandraResultStore(client);
    const rs = Array.from({ length: 600 }, (_, i) => result('grouped-trace', i, i % 97 === 0 ? 'e'.repeat(40_000) : ''));
    await store.put(rs);
    const byTrace = await store.byTrace(ORG, 'grouped-trace');
    expect(byTrace.map((r) => r.id).sort()).toEqual(rs.map((r) => r.id).sort());
    expect(byTrace.find((r) => r.id === 'grouped-trace-r97')?.detail.errorMessage).toHaveLength(40_000);
    expect((await store.get(ORG, 'grouped-trace-r599'))?.status).toBe('success');
  });

  it('results: stored once with their fields, in the trace partition; by id a row names only where they are; rows of the earlier shapes still read', async () => {
    const store = new CassandraResultStore(client);
    const r = { ...result('pointer-trace', 7, 'the mapping failed'), payload: { artifactId: 'a-7', format: 'json' as const } };
    await store.put([r]);
    expect(await store.get(ORG, r.id)).toEqual(r);
    const pointer = (await client.execute('SELECT * FROM proc_result_ids WHERE org_id = ? AND bucket = ? AND id = ?', [ORG, bucketOfId(r.id), r.id], { prepare: true })).first();
    expect([pointer.get('trace_guid'), pointer.get('transaction_id')]).toEqual(['pointer-trace', 'pointer-trace-t7']);
    // a pointer of the shape before the buckets: in proc_results, its fields in the trace row
    await client.execute('DELETE FROM proc_result_ids WHERE org_id = ? AND bucket = ? AND id = ?', [ORG, bucketOfId(r.id), r.id], { prepare: true });
    await client.execute('INSERT INTO proc_results (org_id, id, trace_guid, transaction_id) VALUES (?, ?, ?, ?)', [ORG, r.id, r.traceGuid, r.transactionId], { prepare: true });
    expect(await store.get(ORG, r.id)).toEqual(r);
    // a result written before that shape: every field in proc_results, its trace row gone
    const old = result('pointer-old-trace', 3, 'older');
    await client.execute(
      'INSERT INTO proc_results (org_id, id, trace_guid, transaction_id, flow_id, node_id, node_name, service, status, direction, partner_key, resend, detail, payload_artifact_id, payload_format, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [ORG, old.id, old.traceGuid, old.transactionId, old.flowId, old.nodeId, old.nodeName, old.service, old.status, old.direction, old.partnerKey, old.resend, JSON.stringify(old.detail), null, null, old.createdAt, old.updatedAt],
      { prepare: true },
    );
    expect(await store.get(ORG, old.id)).toEqual(old);
    expect(await store.get(ORG, 'pointer-trace-missing')).toBeNull();
  });

  it("results: the ids resultId makes for one trace are one partition of proc_result_ids, whatever their node, transaction and attempt", async () => {
    const store = new CassandraResultStore(client);
    const trace = `bucket-trace-${Date.now()}`;
    const rs = Array.from({ length: 120 }, (_, i) => ({ ...result(trace, i, i % 7 === 0 ? 'failed' : undefined), id: resultId(trace, `flow-b.n${i % 4}`, `${trace}-t${i}`, 1 + (i % 3)) }));
    await store.put(rs);
    const partition = await client.execute('SELECT id FROM proc_result_ids WHERE org_id = ? AND bucket = ?', [ORG, traceBucket(trace)], { prepare: true, fetchSize: 1000 });
    expect(partition.rows.map((row) => row.get('id') as string).sort()).toEqual(rs.map((r) => r.id).sort());
    for (const r of [rs[0]!, rs[61]!, rs[119]!]) expect(await store.get(ORG, r.id)).toEqual(r);
    // another trace's results: another partition
    const other = { ...result(`${trace}-other`, 1), id: resultId(`${trace}-other`, 'flow-b.n0', null, 1) };
    await store.put([other]);
    expect(bucketOfId(other.id)).not.toBe(traceBucket(trace));
    expect(await store.get(ORG, other.id)).toEqual(other);
  });

  it('transactions: 250 recorded, read back by id and by trace, and updated in place', async () => {
    const store = new CassandraTransactionStore(client, { retentionSeconds: 3600 });
    const t0 = (Date.now() - 10_000) * 1000;
    const txs = Array.from({ length: 250 }, (_, i) => ({ ...tx(`g${i}`, t0 + i), traceGuid: 'grouped-tx-trace' }));
    await store.record(txs);
    const got = await store.getMany(ORG, [...txs.map((t) => t.id), 'absent']);
    expect(got.map((t) => t.id).sort()).toEqual(txs.map((t) => t.id).sort());
    expect((await store.byTrace(ORG, 'grouped-tx-trace')).map((t) => t.id)).toEqual(txs.map((t) => t.id));
    await store.update(txs.map((t) => ({ organizationId: ORG, id: t.id, traceGuid: t.traceGuid, acknowledgmentStatus: 'accepted' as const, at: t0 + 5000 })));
    const after = await store.getMany(ORG, txs.map((t) => t.id));
    expect(after.every((t) => t.acknowledgmentStatus === 'accepted' && t.updatedAt > t0 + 5000)).toBe(true);
  });
});

describe('requests in flight', () => {
  it('are bounded by the client: 6,000 at once all succeed where the bare driver refuses some as busy', async () => {
    const many = Array.from({ length: 6000 }, () => client.execute('SELECT now() FROM system.local', [], { prepare: true }));
    const settled = await Promise.allSettled(many);
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    // the same burst through a driver client without the bound: it needs the bound
    const bare = new cassandra.Client({ contactPoints: [...iso.config.cassandra.contactPoints], localDataCenter: iso.config.cassandra.localDataCenter, pooling: { warmup: false } });
    await bare.connect();
    try {
      const refused = (await Promise.allSettled(Array.from({ length: 6000 }, () => bare.execute('SELECT now() FROM system.local', [], { prepare: true })))).filter((s) => s.status === 'rejected');
      expect(refused.length).toBeGreaterThan(0);
      expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/busy|NoHostAvailable/i);
    } finally {
      await bare.shutdown();
    }
  });
});

describe('artifact aliases', () => {
  /** An artifact that holds its bytes has its own id as blob id, a key of its own (chunks are stored by blob): this file's start with its organization. */
  const blob = (name: string): string => `${ORG}-${name}`;

  it('written from the bytes put returned are the same rows as aliases that read their source', async () => {
    const store = new CassandraArtifactStore(client);
    const base = { organizationId: `${ORG}-alias`, traceGuid: 'trace-alias', resultId: 'r', nodeName: 'Map', usage: 'mapped', contentType: 'application/json', filename: null, size: 0, sha256: '', createdAt: 1 };
    const bytes = Buffer.alloc(600 * 1024, 'x'); // two chunks
    const source = await store.put({ ...base, id: blob('src'), blobId: blob('src') }, bytes);
    await store.alias({ ...base, id: 'read', blobId: blob('src') });
    await store.alias({ ...base, id: 'given', blobId: blob('src') }, source);
    const read = await store.get(`${ORG}-alias`, 'read');
    const given = await store.get(`${ORG}-alias`, 'given');
    expect(given).toEqual({ ...read, id: 'given' });
    expect(given).toMatchObject({ blobId: blob('src'), size: bytes.length });
    expect((await store.read(given!)).equals(bytes)).toBe(true);
  });

  it('written together (putAll, aliasAll) are the rows put and alias write one by one', async () => {
    const store = new CassandraArtifactStore(client);
    const base = { organizationId: `${ORG}-all`, traceGuid: 'trace-all', resultId: 'r', nodeName: 'Map', usage: 'mapped', contentType: 'application/json', filename: null, size: 0, sha256: '', createdAt: 1 };
    const big = Buffer.alloc(700 * 1024, 'b');
    const small = Buffer.from('{"a":1}');
    const empty = Buffer.alloc(0);
    const stored = await store.putAll([
      { record: { ...base, id: blob('all-big'), blobId: blob('all-big') }, bytes: big },
      { record: { ...base, id: blob('all-small'), blobId: blob('all-small') }, bytes: small },
      { record: { ...base, id: blob('all-empty'), blobId: blob('all-empty') }, bytes: empty },
    ]);
    await store.put({ ...base, id: blob('one-big'), blobId: blob('one-big') }, big);
    await store.aliasAll([
      { record: { ...base, id: 'all-alias-given', blobId: blob('all-big') }, source: stored[0] },
      { record: { ...base, id: 'all-alias-read', blobId: blob('all-small') } },
    ]);
    await store.alias({ ...base, id: 'one-alias', blobId: blob('one-big') });
    expect(await store.get(`${ORG}-all`, blob('all-big'))).toEqual({ ...(await store.get(`${ORG}-all`, blob('one-big'))), id: blob('all-big'), blobId: blob('all-big') });
    expect(await store.get(`${ORG}-all`, 'all-alias-given')).toEqual({ ...(await store.get(`${ORG}-all`, 'one-alias')), id: 'all-alias-given', blobId: blob('all-big') });
    expect(await store.get(`${ORG}-all`, 'all-alias-read')).toMatchObject({ blobId: blob('all-small'), size: small.length, sha256: stored[1]!.sha256 });
    expect((await store.read((await store.get(`${ORG}-all`, 'all-alias-given'))!)).equals(big)).toBe(true);
    expect((await store.read((await store.get(`${ORG}-all`, 'all-alias-read'))!)).toString()).toBe('{"a":1}');
    expect((await store.read((await store.get(`${ORG}-all`, blob('all-empty')))!)).length).toBe(0);
    await expect(store.aliasAll([{ record: { ...base, id: 'orphan', blobId: blob('never-stored') } }])).rejects.toThrow(/not stored/);
  });
});
