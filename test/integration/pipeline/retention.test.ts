/**
 * Retention on the real stack (docs/retention.md), with a retention of a few seconds:
 *
 * - Cassandra cell TTLs: a transaction updated after its creation expires whole at
 *   createdAt + R, while a plain update (the table's default TTL, counted from the write) would
 *   leave a partial row behind, which is why every write carries the rest of the record's life.
 * - The pipeline: documents are readable while kept; past R, lists no longer show them, details,
 *   results, payloads and artifacts answer 404 naming the id and saying it may have aged out,
 *   replays answer 404, the Cassandra rows are gone (TTL, no partial transaction row), and the
 *   public feed topic was created with retention.ms = R. Bytes gone by TTL while their
 *   transaction is still kept answer 422 content_unavailable to resend and redeliver.
 */
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import kafkajs from 'kafkajs';
import type { Client } from 'cassandra-driver';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { statusOf, type StoredTransaction } from '../../../src/domain/records.ts';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { createCassandraClient } from '../../../src/adapters/cassandra/client.ts';
import { CassandraTransactionStore } from '../../../src/adapters/cassandra/transaction-store.ts';
import { createKafka } from '../../../src/adapters/kafka/client.ts';
import { newId } from '../../../src/domain/ids.ts';
import { captureIo, eventually, isolatedConfig, migrateWorkerKeyspace, type Isolated } from '../helpers/isolated-config.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const nowUs = (): number => Date.now() * 1000;
/** Waits until `atUs` (microseconds) has passed. */
const until = (atUs: number): Promise<void> => sleep(Math.ceil((atUs - nowUs()) / 1000));

function txRecord(org: string, id: string, createdAt: number): StoredTransaction {
  return {
    organizationId: org, id, traceGuid: newId(), direction: 'inbound', usageIndicator: 'P', partnerKey: 'P', transactionSetIdentifier: '850', release: '004010', reference: 'PO-1',
    senderQualifier: 'ZZ', senderExtid: 'P', receiverQualifier: 'ZZ', receiverExtid: 'US', interchangeControlNumber: '000000001', groupControlNumber: '1', transactionSetControlNumber: '0001',
    duplicateOf: null, flowId: null, flowVersion: null, flowName: null, createdAt, failed: false, failedNodeName: null, completed: false, deliveredAt: null, warningCount: 0,
    acknowledgmentStatus: null, acknowledgedBy: null, acknowledges: null, resendCount: 0, lastResentAt: null, roles: {}, deliveryNodeId: null, deliveryResultId: null, deliveryInputResultId: null, updatedAt: createdAt,
  };
}

// The two parts run at once, and most of their time is waiting for a retention to pass. The first
// gives its store the retention and the store writes every TTL itself, so it works in the test
// worker's shared keyspace under an organization of its own; the pipeline's keyspace is its own,
// migrated with the retention under test (the tables' default TTLs).
describe.concurrent('Cassandra cell TTLs of an updated transaction', () => {
  // the writes and reads after the 1.5 s wait must land before the row expires: 3 s left them
  // 1.5 s, which a loaded 2-core machine overran (the row was gone when the test read it back);
  // the other part below waits 16 s beside this one, so a longer R costs no time
  const R = 8;
  let iso: Isolated;
  let client: Client;

  beforeAll(async () => {
    // not TDX_RETENTION_SECONDS: a configuration that migrates the shared keyspace gives its tables
    // their default TTL, which must stay the default for the worker's other files
    iso = isolatedConfig({}, { sharedKeyspace: true });
    const logger = createLogger({ ...iso.config, logLevel: 'silent' });
    const migrate = () => runMigrate(iso.config, logger, captureIo().io, ['cassandra']);
    if (!(await migrateWorkerKeyspace(iso.config, migrate))) await migrate();
    client = createCassandraClient(iso.config, logger);
  }, 60_000);

  afterAll(async () => {
    await client?.shutdown();
    await iso?.cleanup();
  });

  it('expires the whole row at createdAt + R whatever was updated later; a plain update would leave a partial row', async ({ expect }) => {
    const store = new CassandraTransactionStore(client, { retentionSeconds: R });
    const org = newId();
    const created = nowUs();
    const [aligned, plain] = [newId(), newId()];
    await store.record([txRecord(org, aligned, created), txRecord(org, plain, created)]);
    await sleep(1_500);
    // state written 1.5 s after creation: through the store (the rest of the life), and as a
    // plain update whose cells outlive the row's first ones (the table's default TTL counts R
    // from the write; an explicit long TTL shows the same thing without depending on timing)
    await store.update([{ organizationId: org, id: aligned, traceGuid: 't', completed: true, deliveredAt: nowUs() }]);
    await store.addResend(org, aligned, 'cmd-1', nowUs());
    await client.execute('UPDATE proc_transactions USING TTL 60 SET completed = true, delivered_at = ? WHERE org_id = ? AND id = ?', [nowUs(), org, plain], { prepare: true });
    const ttl = await client.execute('SELECT TTL(completed) AS c, TTL(created_at) AS r FROM proc_transactions WHERE org_id = ? AND id = ?', [org, aligned], { prepare: true });
    expect(Math.abs(Number(ttl.first().get('c')) - Number(ttl.first().get('r')))).toBeLessThanOrEqual(1);
    expect((await store.get(org, aligned))?.resendCount).toBe(1);

    // TTLs count whole seconds: the store rounds the time left up and Cassandra counts from the
    // second of the write, so a cell can outlive createdAt + R by up to a second, more when the
    // write reaches the node late on a loaded machine
    await until(created + R * 1_000_000 + 2_500_000);
    const row = async (id: string) => (await client.execute('SELECT id, created_at, trace_guid, completed, delivered_at FROM proc_transactions WHERE org_id = ? AND id = ?', [org, id], { prepare: true })).first();
    expect(await row(aligned)).toBeNull();
    // Cassandra TTLs are per cell: the late cells of the plain update outlive the recorded ones
    const partial = await row(plain);
    expect(partial).not.toBeNull();
    expect(partial.get('created_at')).toBeNull();
    expect(partial.get('trace_guid')).toBeNull();
    expect(partial.get('completed')).toBe(true);
    // and the store never shows such a row as a transaction
    expect(await store.get(org, plain)).toBeNull();
    const traceRows = await client.execute('SELECT transaction_id FROM proc_trace_transactions WHERE org_id = ? ALLOW FILTERING', [org], { prepare: true });
    expect(traceRows.rowLength).toBe(0);
  }, 30_000);
});

describe.concurrent('the pipeline with a retention of seconds', () => {
  const R = 16;
  const SECRET = 'whsec_cmV0ZW50aW9uLXRlc3Qtc2lnbmluZy1zZWNyZXQ=';
  let p: Pipeline | undefined;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver(SECRET);
  });
  afterEach(async () => {
    await p?.stop();
    p = undefined;
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const doc = (): ConfigDocument => ({
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    connections: [{ name: 'sandbox', kind: 'sandbox' }],
    webhooks: [{ name: 'erp', url: `${receiver.url}/inbound`, signingSecret: SECRET }],
    implementations: [
      { name: 'po', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } },
      { name: 'inv', version: '1', status: 'published', transactionSet: { identifier: '810', release: '004010' }, definition: { base: true } },
    ],
    partners: [
      {
        key: 'HOOK', name: 'HOOK', deliveryMethod: 'webhook', webhooks: { inbound: 'erp' }, envelopes: { internal: 'us', external: 'them' }, frequency: 0,
        transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po' }],
      },
      {
        key: 'OUT', name: 'OUT', deliveryMethod: 'polling', connection: 'sandbox', envelopes: { internal: 'us', external: 'them' }, frequency: 0,
        transactionSets: [{ transactionSetIdentifier: '810', release: '004010', direction: 'outbound', usageIndicator: 'P', implementation: 'inv' }],
      },
    ],
  });

  const invoice = {
    heading: { beginning_segment_for_invoice_BIG: { date_01: '2026-03-05', invoice_number_02: 'INV-R1', purchase_order_number_04: 'PO-R1' } },
    detail: { baseline_item_data_invoice_IT1_loop: [{ baseline_item_data_invoice_IT1: { assigned_identification_01: '1', quantity_invoiced_02: 10, unit_or_basis_for_measurement_code_03: 'EA', unit_price_04: 2.5, product_service_id_qualifier_06: 'VN', product_service_id_07: 'W-1' } }] },
    summary: { total_monetary_value_summary_TDS: { amount_01: 25 }, transaction_totals_CTT: { number_of_line_items_01: 1 } },
  };

  it('shows documents while kept and answers as absent once aged out, in every store', async ({ expect }) => {
    p = await startPipeline(doc(), { env: { TDX_RETENTION_SECONDS: String(R) } });
    const pl = p;
    const stores = await pl.reader.stores();
    const client = await pl.reader.cassandra();

    // the public feed topic keeps its messages as long as the records
    const admin = createKafka(pl.iso.config, createLogger({ ...pl.iso.config, logLevel: 'silent' }), '-it-retention').admin();
    await admin.connect();
    try {
      const cfg = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: kafkajs.ConfigResourceTypes.TOPIC, name: `${pl.iso.config.kafka.topicPrefix}feed`, configNames: ['retention.ms', 'segment.ms'] }] });
      const entries = cfg.resources[0]!.configEntries;
      expect(entries.find((e) => e.configName === 'retention.ms')?.configValue).toBe(String(R * 1000));
      expect(entries.find((e) => e.configName === 'segment.ms')?.configValue).toBe(String(R * 1000));
    } finally {
      await admin.disconnect();
    }

    // three documents: two inbound by webhook (one redelivered, one whose bytes expire), one outbound
    const sent = await Promise.all(['PO-KEEP', 'PO-GONE'].map((po, i) => pl.submitEdi('HOOK', interchange({ control: 7100 + i, groups: [{ sets: [po850(po)] }] }))));
    const out = await pl.submitDocument('OUT', { transactionSetIdentifier: '810', document: invoice });
    expect(out.status).toBe(202);
    const [keep] = await pl.settled(sent[0]!.body['traceGuid'] as string, 1, 30_000);
    const [gone] = await pl.settled(sent[1]!.body['traceGuid'] as string, 1, 30_000);
    const [outbound] = await pl.settled(out.body['traceGuid'] as string, 1, 30_000);
    for (const t of [keep!, gone!, outbound!]) expect(statusOf(t)).toBe('delivered');
    const all = [keep!, gone!, outbound!];
    const firstCreated = Math.min(...all.map((t) => t.createdAt));
    const lastCreated = Math.max(...all.map((t) => t.createdAt));

    // readable while kept: detail (with deliveredAt), lists, results, payload, artifact, feed, logs
    const withDelivery = await eventually(async () => {
      const r = await pl.api(`/platform/edi_transactions/${keep!.id}`);
      return r.status === 200 && r.body['deliveredAt'] !== null ? r : undefined;
    }, 10_000, 'deliveredAt of the kept document');
    expect(withDelivery.body['id']).toBe(keep!.id);
    const listed = await eventually(async () => {
      const r = await pl.api(`/platform/edi_transactions?trace=${keep!.traceGuid}`);
      return (r.body['ediTransactions'] as unknown[]).length === 1 ? r : undefined;
    }, 10_000, 'the list row');
    expect((listed.body['ediTransactions'] as { id: string }[])[0]!.id).toBe(keep!.id);
    const results = await pl.results(keep!.traceGuid);
    const withPayload = results.find((r) => r.payload !== null && r.status === 'success')!;
    expect((await pl.api(`/platform/results/${withPayload.id}`)).status).toBe(200);
    expect((await pl.api(`/platform/results/${withPayload.id}/payload`)).status).toBe(200);
    expect((await pl.api(`/platform/artifacts/${withPayload.payload!.artifactId}`)).status).toBe(200);
    await eventually(async () => {
      const r = await pl.api(`/platform/results?trace=${keep!.traceGuid}`);
      return (r.body['results'] as unknown[]).length >= 1 ? r : undefined;
    }, 10_000, 'the results list');
    await eventually(async () => {
      const r = await pl.api(`/platform/feed_entries?trace=${keep!.traceGuid}`);
      return (r.body['feedEntries'] as unknown[]).length >= 1 ? r : undefined;
    }, 10_000, 'the feed entry');
    await eventually(async () => {
      const r = await pl.api(`/platform/logs?trace=${keep!.traceGuid}`);
      return (r.body['logs'] as unknown[]).length >= 1 ? r : undefined;
    }, 10_000, 'the log entries');

    // a late write on a kept transaction: its redelivery (resendCount, state of the delivery step)
    expect((await pl.api(`/platform/edi_transactions/${keep!.id}/redeliver`, { method: 'POST' })).status).toBe(202);
    await receiver.waitFor('/inbound', 3, 20_000);

    // bytes expired by TTL while their transactions are still kept: 422 content_unavailable
    const expireSoon = async (artifactId: string): Promise<string> => {
      const a = (await stores.artifacts.get(pl.org, artifactId))!;
      const chunks = await client.execute('SELECT chunk_index, data FROM proc_artifact_chunks WHERE blob_id = ?', [a.blobId], { prepare: true });
      for (const c of chunks.rows) await client.execute('INSERT INTO proc_artifact_chunks (blob_id, chunk_index, data) VALUES (?, ?, ?) USING TTL 1', [a.blobId, c.get('chunk_index'), c.get('data')], { prepare: true });
      return a.blobId;
    };
    const input = (await pl.results(gone!.traceGuid)).find((r) => r.id === gone!.deliveryInputResultId)!;
    const expiring = [await expireSoon(input.payload!.artifactId), await expireSoon(outbound!.roles.output!.artifact!.id)];
    // a TTL of 1 s ends within a second of the write (Cassandra counts whole seconds)
    await eventually(async () => {
      for (const blob of expiring) if ((await client.execute('SELECT blob_id FROM proc_artifact_chunks WHERE blob_id = ?', [blob], { prepare: true })).rowLength > 0) return undefined;
      return true;
    }, 10_000, 'the chunks written with a TTL of 1 s to expire');
    const redeliver = await pl.api(`/platform/edi_transactions/${gone!.id}/redeliver`, { method: 'POST' });
    expect([redeliver.status, (redeliver.body['error'] as { code?: string } | undefined)?.code]).toEqual([422, 'content_unavailable']);
    const resend = await pl.api(`/platform/edi_transactions/${outbound!.id}/resend`, { method: 'POST' });
    expect([resend.status, (resend.body['error'] as { code?: string } | undefined)?.code]).toEqual([422, 'content_unavailable']);
    expect(nowUs()).toBeLessThan(firstCreated + R * 1_000_000); // all of this happened while they were kept
    // the newest record of the traces, read while every one of them is kept (a Cassandra TTL is
    // whole seconds, so a record may leave Cassandra a little before its createdAt + R)
    const traces = all.map((t) => t.traceGuid);
    const latest = Math.max(...(await Promise.all(traces.map(async (tr) => (await stores.results.byTrace(pl.org, tr)).map((r) => r.createdAt)))).flat(), lastCreated);
    const feedLatest = Math.max(...(await client.execute('SELECT created_at FROM proc_trace_feed_entries WHERE org_id = ? ALLOW FILTERING', [pl.org], { prepare: true })).rows.map((r) => Number(r.get('created_at'))), 0);

    // past R of the transactions: gone from Cassandra whole (the redelivered one included), 404
    await until(lastCreated + R * 1_000_000 + 1_200_000);
    const txRows = await client.execute('SELECT id, created_at FROM proc_transactions WHERE org_id = ? ALLOW FILTERING', [pl.org], { prepare: true });
    expect(txRows.rows.map((r) => String(r.get('id')))).toEqual([]);
    for (const t of all) {
      const r = await pl.api(`/platform/edi_transactions/${t.id}`);
      expect(r.status).toBe(404);
      expect((r.body['error'] as { message: string }).message).toMatch(new RegExp(`${t.id}.*aged out after ${R} seconds`));
      const list = await pl.api(`/platform/edi_transactions?trace=${t.traceGuid}`);
      expect(list.body['ediTransactions']).toEqual([]);
    }
    expect((await pl.api(`/platform/edi_transactions/${keep!.id}/redeliver`, { method: 'POST' })).status).toBe(404);
    expect((await pl.api(`/platform/edi_transactions/${outbound!.id}/resend`, { method: 'POST' })).status).toBe(404);

    // past R of the last record of the traces (the redelivery's results and logs came later;
    // their times were read while everything was kept, and a feed entry is sequenced within the
    // feed's 2 s lag of its result)
    await until(Math.max(latest + 2_000_000, feedLatest) + R * 1_000_000 + 1_200_000);
    for (const tr of traces) {
      expect((await pl.api(`/platform/results?trace=${tr}`)).body['results']).toEqual([]);
      expect((await pl.api(`/platform/feed_entries?trace=${tr}`)).body['feedEntries']).toEqual([]);
      expect((await pl.api(`/platform/logs?trace=${tr}`)).body['logs']).toEqual([]);
      expect((await pl.api(`/platform/traces/${tr}`)).status).toBe(404);
    }
    const feedAll = await pl.api('/platform/feed_entries');
    expect(feedAll.body['feedEntries']).toEqual([]);
    for (const [path, id] of [
      [`/platform/results/${withPayload.id}`, withPayload.id],
      [`/platform/results/${withPayload.id}/payload`, withPayload.id],
      [`/platform/artifacts/${withPayload.payload!.artifactId}`, withPayload.payload!.artifactId],
    ] as const) {
      const r = await pl.api(path);
      expect(r.status, path).toBe(404);
      expect((r.body['error'] as { message: string }).message).toMatch(new RegExp(`${id}.*aged out`));
    }
    for (const table of ['proc_results', 'proc_result_ids', 'proc_trace_results', 'proc_artifacts', 'proc_trace_feed_entries', 'proc_trace_transactions']) {
      const rs = await client.execute(`SELECT * FROM ${table} WHERE org_id = ? ALLOW FILTERING`, [pl.org], { prepare: true });
      expect(rs.rowLength, table).toBe(0);
    }
    const chunks = await client.execute('SELECT blob_id FROM proc_artifact_chunks');
    expect(chunks.rowLength).toBe(0);
  }, 120_000);
});
