/**
 * Loads an organization with `n` transactions for the API benchmark, each with two results (the
 * interchange split and the feed delivery) and one feed entry, spread evenly over the last 40
 * days. Rows go straight to the stores: Cassandra through the store classes the nodes use, and
 * ClickHouse through the row mappers and batch inserts the materializer uses (transactionRow,
 * resultRow of the result event, feedRow), then the feed watermark.
 *
 * Shapes follow the pipeline's: ten partners, four transaction sets, a third outbound, one in
 * 50 failed at delivery, one in 20 with a warning.
 */
import { deterministicId, feedEntryId, resultId } from '../../src/domain/ids.ts';
import type { FeedEntryRecord, ResultRecord, StoredTransaction } from '../../src/domain/records.ts';
import { resultView } from '../../src/domain/views.ts';
import { feedRow, insertFeedWatermark, insertRows, resultRow, transactionRow, type Row } from '../../src/adapters/clickhouse/materialize.ts';
import { newestByOrganization } from '../../src/nodes/feed-sequencer.ts';
import { qualify, type ClickHouseHandle } from '../../src/adapters/clickhouse/client.ts';
import type { CassandraStores } from '../../src/compose.ts';
import { resultEvent } from '../../src/nodes/runtime.ts';

export const PARTNERS = 10;
const SETS = ['850', '810', '856', '997'] as const;
const DAY_US = 86_400_000_000;

export interface Loaded {
  /** A sample of transaction ids (for detail requests). */
  readonly transactionIds: string[];
  /** A sample of traces (for results-by-trace requests). */
  readonly traces: string[];
  /** createdAt of the middle feed entry. */
  readonly middle: number;
  /** createdAt of the newest feed entry. */
  readonly newest: number;
}

/**
 * A trace GUID as the service makes them (UUIDv7 of the time the document entered), with its
 * random part drawn from the document's number so a rerun finds the same ids.
 */
export function traceAt(org: string, i: number, atMicros: number): string {
  const hex = Math.floor(atMicros / 1000).toString(16).padStart(12, '0');
  const rest = deterministicId('bench-trace', org, i).replace(/-/g, '');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${rest.slice(13, 16)}-${((parseInt(rest[16]!, 16) & 0x3) | 0x8).toString(16)}${rest.slice(17, 20)}-${rest.slice(20, 32)}`;
}

/** The records of the i-th document. */
export function documentOf(org: string, i: number, n: number, newest: number): { tx: StoredTransaction; results: ResultRecord[]; entry: FeedEntryRecord } {
  const step = Math.floor((40 * DAY_US) / n);
  const at = newest - (n - 1 - i) * step;
  const trace = traceAt(org, i, at);
  const id = deterministicId('bench-transaction', org, i);
  const partner = `P${i % PARTNERS}`;
  const direction = i % 3 === 0 ? 'outbound' : 'inbound';
  const set = SETS[i % SETS.length]!;
  const failed = i % 50 === 0;
  const warned = i % 20 === 0;
  const flowId = deterministicId('bench-flow', org, partner, direction);
  const splitId = resultId(trace, `${flowId}.n2`, id, 1);
  const deliveryId = resultId(trace, `${flowId}.n5`, id, 1);
  const input = { id: deterministicId('bench-artifact', trace, 'input'), usage: 'input', contentType: 'application/edi-x12', filename: `${trace}.edi` };
  const translation = { id: deterministicId('bench-artifact', trace, 'translation'), usage: 'translation', contentType: 'application/json', filename: `${set}-0001.json` };
  const output = { id: deterministicId('bench-artifact', trace, 'output'), usage: 'output', contentType: 'application/json', filename: `${set}-0001.json` };
  const x12 = {
    sender: { isa: { qualifier: 'ZZ', id: partner } },
    receiver: { isa: { qualifier: 'ZZ', id: 'US' } },
    transaction: { transactionSetIdentifier: set, controlNumber: 1 },
    interchange: { controlNumber: i + 1 },
    functionalGroup: { controlNumber: i + 1 },
  };
  const warning = { code: 'usage_indicator_mismatch', message: `Usage indicator T differs from P set for ${set} on this partner.`, detail: { usageIndicator: 'T', expected: ['P'] } };
  const base = { organizationId: org, traceGuid: trace, transactionId: id, flowId, partnerKey: partner, resend: false, payload: null };
  const split: ResultRecord = {
    ...base,
    id: splitId,
    nodeId: `${flowId}.n2`,
    nodeName: 'Split interchange',
    service: 'x12_split',
    status: 'success',
    direction: 'inbound',
    detail: { direction: 'inbound', partner: { key: partner }, x12, usageIndicator: 'P', artifacts: [input, translation], transformations: ['x12_split'], ...(warned ? { warnings: [warning] } : {}) },
    payload: { artifactId: translation.id, format: 'json' },
    createdAt: at,
    updatedAt: at,
  };
  const deliveredAt = at + 150_000;
  const delivery: ResultRecord = {
    ...base,
    id: deliveryId,
    nodeId: `${flowId}.n5`,
    nodeName: failed ? 'Upload over SFTP' : 'Feed delivery',
    service: failed ? 'sftp_upload' : 'feed',
    status: failed ? 'error' : 'success',
    direction: 'outbound',
    detail: failed
      ? { direction: 'outbound', partner: { key: partner }, errorMessage: 'The SFTP server refused the connection.', incomingResultId: splitId, usageIndicator: 'P' }
      : { direction: 'outbound', partner: { key: partner }, usageIndicator: 'P', artifacts: [input, translation, output], transformations: ['x12_split', 'mapping', 'validation', 'feed'] },
    payload: failed ? null : { artifactId: output.id, format: 'json' },
    createdAt: deliveredAt,
    updatedAt: deliveredAt,
  };
  const tx: StoredTransaction = {
    id,
    organizationId: org,
    traceGuid: trace,
    direction,
    usageIndicator: 'P',
    partnerKey: partner,
    transactionSetIdentifier: set,
    release: '004010',
    reference: set === '997' ? null : `PO-${i}`,
    senderQualifier: 'ZZ',
    senderExtid: direction === 'inbound' ? partner : 'US',
    receiverQualifier: 'ZZ',
    receiverExtid: direction === 'inbound' ? 'US' : partner,
    interchangeControlNumber: String(i + 1).padStart(9, '0'),
    groupControlNumber: String(i + 1),
    transactionSetControlNumber: '0001',
    duplicateOf: null,
    flowId,
    flowVersion: 1,
    flowName: `${partner} ${direction}`,
    createdAt: at,
    failed,
    failedNodeName: failed ? delivery.nodeName : null,
    completed: !failed,
    deliveredAt: failed ? null : deliveredAt,
    warningCount: warned ? 1 : 0,
    acknowledgmentStatus: direction === 'outbound' && set !== '997' ? (i % 7 === 0 ? 'unacknowledged' : 'accepted') : null,
    acknowledgedBy: null,
    acknowledges: null,
    resendCount: 0,
    lastResentAt: null,
    roles: {
      input: { resultId: splitId, nodeName: 'Fetch from SFTP', artifact: input },
      ...(failed ? { errored: { resultId: deliveryId, nodeName: delivery.nodeName, artifact: null } } : { output: { resultId: deliveryId, nodeName: delivery.nodeName, artifact: output } }),
    },
    deliveryNodeId: failed ? null : delivery.nodeId,
    deliveryResultId: failed ? null : deliveryId,
    deliveryInputResultId: failed ? null : splitId,
    updatedAt: deliveredAt + 1000,
  };
  const entry: FeedEntryRecord = {
    id: feedEntryId(deliveryId),
    organizationId: org,
    direction,
    status: failed ? 'error' : 'success',
    partnerKey: partner,
    traceGuid: trace,
    resultId: deliveryId,
    detail: JSON.stringify(resultView(delivery)),
    createdAt: deliveredAt,
  };
  return { tx, results: [split, delivery], entry };
}

/** Writes `n` documents to Cassandra and ClickHouse; `progress` is called now and then. */
export async function load(org: string, n: number, stores: CassandraStores, ch: ClickHouseHandle, newest: number, progress: (done: number) => void): Promise<Loaded> {
  const BATCH = 2_000;
  const CH_BATCH = 100_000;
  const sampleEvery = Math.max(1, Math.floor(n / 2000));
  const transactionIds: string[] = [];
  const traces: string[] = [];
  let txRows: Row[] = [];
  let resultRows: Row[] = [];
  let feedRows: Row[] = [];
  let lastEntry = 0;
  const flushClickHouse = async (): Promise<void> => {
    await insertRows(ch, 'transactions', txRows, CH_BATCH);
    await insertRows(ch, 'results', resultRows, CH_BATCH);
    await insertRows(ch, 'feed_entries', feedRows, CH_BATCH);
    txRows = [];
    resultRows = [];
    feedRows = [];
  };
  // a few batches at once: each store call already writes its rows concurrently
  const inFlight = new Set<Promise<void>>();
  for (let start = 0; start < n; start += BATCH) {
    const docs = [];
    for (let i = start; i < Math.min(n, start + BATCH); i++) {
      const d = documentOf(org, i, n, newest);
      docs.push(d);
      if (i % sampleEvery === 0) {
        transactionIds.push(d.tx.id);
        traces.push(d.tx.traceGuid);
      }
      txRows.push(transactionRow(d.tx));
      for (const r of d.results) resultRows.push(resultRow(resultEvent(r)));
      feedRows.push(feedRow(d.entry));
      lastEntry = Math.max(lastEntry, d.entry.createdAt);
    }
    const write = (async () => {
      await stores.transactions.record(docs.map((d) => d.tx));
      await stores.results.put(docs.flatMap((d) => d.results));
      await stores.feed.put(docs.map((d) => d.entry));
      for (const d of docs) {
        const failed = d.results.find((r) => r.status === 'error');
        if (failed) await stores.transactions.recordTraceError(org, d.tx.traceGuid, { resultId: failed.id, transactionId: d.tx.id, nodeName: failed.nodeName });
      }
    })();
    inFlight.add(write);
    void write.finally(() => inFlight.delete(write)).catch(() => undefined);
    if (inFlight.size >= 3) await Promise.race(inFlight);
    if (txRows.length >= CH_BATCH) await flushClickHouse();
    progress(Math.min(n, start + BATCH));
  }
  await Promise.all(inFlight);
  await flushClickHouse();
  // the watermark as the feed sequencer moves it: with the organization's newest entry
  const last = documentOf(org, n - 1, n, newest).entry;
  await insertFeedWatermark(ch, lastEntry, newestByOrganization([last]));
  return { transactionIds, traces, middle: documentOf(org, Math.floor(n / 2), n, newest).entry.createdAt, newest: last.createdAt };
}

/** Counts the loaded transactions (a rerun with kept data skips loading). */
export async function loadedCount(ch: ClickHouseHandle, org: string): Promise<number> {
  const rs = await ch.client.query({ query: `SELECT count() AS n FROM ${qualify(ch.database, 'transactions')} WHERE org_id = {org:String}`, query_params: { org }, format: 'JSONEachRow' });
  return Number((await rs.json<{ n: number }>())[0]?.n ?? 0);
}

