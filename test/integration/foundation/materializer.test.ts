/**
 * The materializer on the real stack: the feed sequencer gives feed entries their createdAt in
 * the order it takes them, keeps the first createdAt of a repeated request, sets a transaction's
 * deliveredAt from its first success entry, inserts into ClickHouse and then moves the watermark
 * past what it inserted; results and logs are inserted as they come. The records are kept in the
 * test worker's shared keyspace, under an organization of this file's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { Resources } from '../../../src/compose.ts';
import { materializerRole, readFeedWatermark } from '../../../src/roles/materializer.ts';
import type { Role } from '../../../src/roles/role.ts';
import type { FeedRequestMessage } from '../../../src/wire/feed-request.v1.ts';
import type { RecordEvents } from '../../../src/wire/record-events.v1.ts';
import type { StoredTransaction } from '../../../src/domain/records.ts';
import { feedEntryId } from '../../../src/domain/ids.ts';
import { snapshotOf } from '../../../src/nodes/runtime.ts';
import { fromChTime } from '../../../src/adapters/clickhouse/client.ts';
import { captureIo, eventually, isolatedConfig, migrateWorkerKeyspace } from '../helpers/isolated-config.ts';
import { uniqueId } from '../helpers/env.ts';

const iso = isolatedConfig({}, { sharedKeyspace: true });
/** This file's organization in the shared keyspace. */
const ORG = uniqueId('org-m-');
const { config } = iso;
const logger = createLogger({ ...config, logLevel: 'silent' });
const resources = new Resources(config, logger);
let role: Role;
const db = config.clickhouse.database;

beforeAll(async () => {
  const migrate = (parts: string[]) => runMigrate(config, logger, captureIo().io, parts);
  await Promise.all([
    migrate(['topics', 'schemas']),
    migrateWorkerKeyspace(config, () => migrate(['cassandra'])).then((shared) => (shared ? undefined : migrate(['cassandra']))),
    migrate(['clickhouse']),
  ]);
  role = materializerRole(resources);
  await role.start();
}, 180_000);

afterAll(async () => {
  await role?.stop();
  await resources.close();
  await iso.cleanup();
});

interface Row {
  id: string;
  created_at: string;
  result_id: string;
}

async function page(org: string): Promise<Row[]> {
  const ch = await resources.clickhouse();
  const rs = await ch.client.query({
    query: `SELECT id, created_at, result_id FROM ${db}.feed_entries FINAL WHERE org_id = {org:String} ORDER BY created_at, id`,
    query_params: { org },
    format: 'JSONEachRow',
  });
  return rs.json<Row>();
}

function transaction(id: string, trace: string): StoredTransaction {
  const now = Date.now() * 1000;
  return {
    id, organizationId: ORG, traceGuid: trace, direction: 'inbound', usageIndicator: 'P', partnerKey: 'ACME', transactionSetIdentifier: '850', release: '004010', reference: 'PO-1',
    senderQualifier: 'ZZ', senderExtid: 'A', receiverQualifier: 'ZZ', receiverExtid: 'B', interchangeControlNumber: '1', groupControlNumber: '1', transactionSetControlNumber: '0001',
    duplicateOf: null, flowId: null, flowVersion: null, flowName: null, createdAt: now, failed: false, failedNodeName: null, completed: true, deliveredAt: null, warningCount: 0,
    acknowledgmentStatus: null, acknowledgedBy: null, acknowledges: null, resendCount: 0, lastResentAt: null, roles: {}, deliveryNodeId: null, deliveryResultId: null, deliveryInputResultId: null, updatedAt: now,
  };
}

describe('feed sequencer', () => {
  it('orders entries as it takes them, collapses repeats, sets deliveredAt once, and moves the watermark after the insert', async () => {
    const wire = await resources.wire();
    const producer = await resources.producer();
    const stores = await resources.stores();
    await stores.transactions.record([transaction('tx-1', 'trace-1')]);
    const before = Date.now() * 1000;
    // requestedAt out of order on purpose: the sequencer's own clock decides the order
    const request = (n: number, opts: Partial<FeedRequestMessage> = {}): FeedRequestMessage => ({
      id: feedEntryId(`res-${n}`),
      organizationId: ORG,
      direction: 'inbound',
      status: n === 2 ? 'error' : 'success',
      partnerKey: 'ACME',
      traceGuid: `trace-${n}`,
      resultId: `res-${n}`,
      transactionId: null,
      detail: JSON.stringify({ id: `res-${n}` }),
      requestedAt: before - n * 1_000_000,
      transactionCreatedAt: null,
      transactionSetIdentifier: null,
      ...opts,
    });
    const first = [request(1, { transactionId: 'tx-1' }), request(2), request(3)];
    await producer.send(first.map((e) => ({ topic: wire.topic('events.feed'), key: e.traceGuid, value: wire.encode('events.feed', e) })));
    const three = await eventually(async () => {
      const rows = await page(ORG);
      return rows.length === 3 ? rows : undefined;
    }, 60_000, 'three feed entries');
    expect(three.map((r) => r.result_id)).toEqual(['res-1', 'res-2', 'res-3']);
    const times = three.map((r) => fromChTime(r.created_at));
    expect(times[0]!).toBeGreaterThanOrEqual(before);
    expect(times[0]!).toBeLessThan(times[1]!);
    expect(times[1]!).toBeLessThan(times[2]!);
    // the watermark moves after the insert, past everything inserted (the rows can be read
    // before it has moved: one read of it right after them found none on a loaded machine)
    const ch = await resources.clickhouse();
    await eventually(async () => ((await readFeedWatermark(ch)) >= times[2]! ? true : undefined), 30_000, 'the watermark to pass the three entries');
    const tx = await eventually(async () => {
      const t = await stores.transactions.get(ORG, 'tx-1');
      return t?.deliveredAt ? t : undefined;
    }, 30_000, 'deliveredAt');
    expect(tx.deliveredAt).toBe(times[0]);

    // a repeated request (a re-run step) keeps its entry; a second success entry of the same
    // transaction (a redelivery) does not move deliveredAt
    await producer.send([request(1, { transactionId: 'tx-1' }), request(4, { transactionId: 'tx-1' })].map((e) => ({ topic: wire.topic('events.feed'), key: e.traceGuid, value: wire.encode('events.feed', e) })));
    const four = await eventually(async () => {
      const rows = await page(ORG);
      return rows.length === 4 ? rows : undefined;
    }, 60_000, 'the fourth entry');
    expect(four.map((r) => r.result_id)).toEqual(['res-1', 'res-2', 'res-3', 'res-4']);
    expect(fromChTime(four[0]!.created_at)).toBe(times[0]);
    expect(fromChTime(four[3]!.created_at)).toBeGreaterThan(times[2]!);
    expect((await stores.transactions.get(ORG, 'tx-1'))!.deliveredAt).toBe(times[0]);

    // a first delivery (the pass that recorded tx-2 delivered it) carries the transaction's
    // createdAt and set over the wire: its deliveredAt is written without a read
    const tx2 = transaction('tx-2', 'trace-5');
    await stores.transactions.record([tx2]);
    const fifth = request(5, { transactionId: 'tx-2', transactionCreatedAt: tx2.createdAt, transactionSetIdentifier: tx2.transactionSetIdentifier });
    await producer.send([{ topic: wire.topic('events.feed'), key: fifth.traceGuid, value: wire.encode('events.feed', fifth) }]);
    const five = await eventually(async () => {
      const rows = await page(ORG);
      return rows.length === 5 ? rows : undefined;
    }, 60_000, 'the fifth entry');
    const delivered = await eventually(async () => (await stores.transactions.get(ORG, 'tx-2'))?.deliveredAt ?? undefined, 30_000, 'deliveredAt of tx-2');
    expect(delivered).toBe(fromChTime(five[4]!.created_at));
  });
});

describe('projector', () => {
  it('projects the results, log entries and transaction changes of an events.records message', async () => {
    const wire = await resources.wire();
    const producer = await resources.producer();
    const stores = await resources.stores();
    await stores.transactions.record([transaction('tx-r1', 'trace-r'), transaction('tx-r2', 'trace-r')]);
    const now = Date.now() * 1000;
    const result = (id: string, tx: string) => ({ id, organizationId: ORG, traceGuid: 'trace-r', transactionId: tx, flowId: null, nodeId: 'n-map', nodeName: 'Map', service: 'mapping', status: 'success' as const, direction: 'inbound' as const, partnerKey: 'ACME', errorMessage: null, resend: false, detail: '{}', createdAt: now, updatedAt: now, version: now });
    const value: RecordEvents = {
      results: [result('res-r1', 'tx-r1'), result('res-r2', 'tx-r2')],
      logs: [{ id: 'log-r1', organizationId: ORG, traceGuid: 'trace-r', level: 'info', message: 'mapped two sets', nodeName: 'Map', createdAt: now }],
      changes: [{ id: 'tx-r1', organizationId: ORG, traceGuid: 'trace-r', changedAt: now, snapshot: null }, { id: 'tx-r2', organizationId: ORG, traceGuid: 'trace-r', changedAt: now, snapshot: null }],
    };
    await producer.send([{ topic: wire.topic('events.records'), key: 'trace-r', value: wire.encode('events.records', value) }]);
    const ch = await resources.clickhouse();
    const count = async (table: string): Promise<number> => {
      const rs = await ch.client.query({ query: `SELECT count() AS n FROM ${db}.${table} FINAL WHERE org_id = {org:String} AND trace_guid = 'trace-r'`, query_params: { org: ORG }, format: 'JSONEachRow' });
      return Number((await rs.json<{ n: string }>())[0]!.n);
    };
    const counts = await eventually(async () => {
      const c = [await count('results'), await count('logs'), await count('transactions')];
      return c.every((n) => n > 0) && c[0] === 2 && c[2] === 2 ? c : undefined;
    }, 60_000, 'the projected rows');
    expect(counts).toEqual([2, 1, 2]);
  });

  it('projects a transaction its pass wrote whole from the row its change carries, and reads one whose change carries none', async () => {
    const wire = await resources.wire();
    const producer = await resources.producer();
    const stores = await resources.stores();
    // tx-s1 is in no store: only its change's snapshot can project it. tx-s2 is stored with
    // reference PO-STORED, and its batch has a change with a snapshot (PO-SNAPSHOT) and one
    // without: the stored row wins.
    await stores.transactions.record([{ ...transaction('tx-s2', 'trace-s'), reference: 'PO-STORED' }]);
    const now = Date.now() * 1000;
    const snapshot = (ref: string) => ({ ...snapshotOf({ ...transaction('x', 'trace-s'), reference: ref, warningCount: 3 }), updatedAt: now });
    const value: RecordEvents = {
      results: [],
      logs: [],
      changes: [
        { id: 'tx-s1', organizationId: ORG, traceGuid: 'trace-s', changedAt: now, snapshot: snapshot('PO-SNAPSHOT') },
        { id: 'tx-s2', organizationId: ORG, traceGuid: 'trace-s', changedAt: now, snapshot: snapshot('PO-SNAPSHOT') },
        { id: 'tx-s2', organizationId: ORG, traceGuid: 'trace-s', changedAt: now, snapshot: null },
      ],
    };
    await producer.send([{ topic: wire.topic('events.records'), key: 'trace-s', value: wire.encode('events.records', value) }]);
    const ch = await resources.clickhouse();
    const rows = await eventually(async () => {
      const rs = await ch.client.query({ query: `SELECT id, reference, warning_count FROM ${db}.transactions FINAL WHERE org_id = {org:String} AND trace_guid = 'trace-s' ORDER BY id`, query_params: { org: ORG }, format: 'JSONEachRow' });
      const r = await rs.json<{ id: string; reference: string; warning_count: number }>();
      return r.length === 2 ? r : undefined;
    }, 60_000, 'the projected transactions');
    expect(rows).toEqual([
      { id: 'tx-s1', reference: 'PO-SNAPSHOT', warning_count: 3 },
      { id: 'tx-s2', reference: 'PO-STORED', warning_count: 0 },
    ]);
  });
});
