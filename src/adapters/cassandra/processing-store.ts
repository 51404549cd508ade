/**
 * Cassandra implementations of the processing ports (src/domain/processing-ports.ts and
 * src/nodes/ports.ts StepLedger), over the tables of migrations/0008_processing.cql. Statements
 * are prepared; many rows are written concurrently with a bound (`executeConcurrent`).
 */
import { createHash } from 'node:crypto';
import cassandra, { type Client } from 'cassandra-driver';
import { TdxError } from '../../errors.ts';
import type {
  ArtifactStore,
  StoredBytes,
  ControlNumberStore,
  InterchangeKey,
  InterchangeSighting,
  OutboundSetEntry,
  OutboundSetKey,
  ReplayLedger,
  ResultStore,
  SandboxReceipt,
  SandboxReceiptStore,
  SecretReader,
  TraceError,
  TransactionResultsReader,
  TransactionDeliveryState,
  TransactionStore,
} from '../../domain/processing-ports.ts';
import type {
  AcknowledgmentStatus,
  ArtifactRecord,
  ArtifactRole,
  ArtifactRoleRecord,
  Micros,
  ResultRecord,
  StoredTransaction,
  TransactionUpdate,
} from '../../domain/records.ts';
import type { SecretOwner } from '../../domain/configuration.ts';
import type { SecretKeyring } from '../../domain/secret-envelope.ts';
import { storedOf } from './secret-store.ts';
import type { StepLedger, WorkRef } from '../../nodes/ports.ts';
import { guardStore } from './guard.ts';
import { coalescedReads, readIn, writeGrouped, type GroupedStatement } from './grouped.ts';
import { long, longOrNull, num, numOrNull, str, strOrNull, Ttl, type Params, type StoreRetention } from './cells.ts';

/** Largest chunk of document bytes in one row. */
export const CHUNK_BYTES = 512 * 1024;

/** Chunks of `size` bytes as put and putStream write them: one (empty) for no bytes. */
function chunkCountOf(size: number): number {
  return Math.max(1, Math.ceil(size / CHUNK_BYTES));
}
const CONCURRENCY = 64;

type Row = cassandra.types.Row;

async function runConcurrent(client: Client, query: string, params: Params[]): Promise<void> {
  if (params.length === 0) return;
  if (params.length === 1) {
    await client.execute(query, params[0], { prepare: true });
    return;
  }
  await cassandra.concurrent.executeConcurrent(client, query, params, { concurrencyLevel: CONCURRENCY, raiseOnFirstError: true });
}

// --- artifacts ---------------------------------------------------------------------------------

const ARTIFACT_COLUMNS = 'org_id, artifact_id, trace_guid, result_id, node_name, usage, content_type, filename, size, sha256, blob_id, chunk_count, created_at';

function artifactOf(r: Row): ArtifactRecord {
  return {
    organizationId: str(r.get('org_id')),
    id: str(r.get('artifact_id')),
    traceGuid: str(r.get('trace_guid')),
    resultId: str(r.get('result_id')),
    nodeName: str(r.get('node_name')),
    usage: str(r.get('usage')),
    contentType: strOrNull(r.get('content_type')),
    filename: strOrNull(r.get('filename')),
    size: num(r.get('size')),
    sha256: str(r.get('sha256')),
    blobId: str(r.get('blob_id')),
    createdAt: num(r.get('created_at')),
  };
}

export class CassandraArtifactStore implements ArtifactStore {
  private readonly ttl: Ttl;
  /** Records by id, the reads of one turn of the event loop together (grouped.ts). */
  private readonly records: (organizationId: string, id: string) => Promise<ArtifactRecord | undefined>;
  /** The one chunk of small artifacts by blob, likewise. */
  private readonly firstChunks: (group: string, blobId: string) => Promise<Buffer | undefined>;

  constructor(
    private readonly client: Client,
    retention?: StoreRetention,
  ) {
    this.ttl = new Ttl(retention);
    this.records = coalescedReads(async (org, ids) => {
      const out = new Map<string, ArtifactRecord>();
      for (const row of await readIn(this.client, `SELECT ${ARTIFACT_COLUMNS} FROM proc_artifacts WHERE org_id = ? AND artifact_id IN ?`, [org], ids)) {
        const a = artifactOf(row);
        out.set(a.id, a);
      }
      return out;
    });
    this.firstChunks = coalescedReads(async (_group, blobIds) => {
      const out = new Map<string, Buffer>();
      for (const row of await readIn(this.client, 'SELECT blob_id, data FROM proc_artifact_chunks WHERE blob_id IN ? AND chunk_index = 0', [], blobIds)) {
        out.set(str(row.get('blob_id')), row.get('data') as Buffer);
      }
      return out;
    });
  }

  private rowStatement(record: ArtifactRecord, size: number, sha256: string, chunkCount: number): GroupedStatement {
    return {
      query: `INSERT INTO proc_artifacts (${ARTIFACT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${this.ttl.clause}`,
      params: [record.organizationId, record.id, record.traceGuid, record.resultId, record.nodeName, record.usage, record.contentType, record.filename, long(size), sha256, record.blobId, chunkCount, long(record.createdAt), ...this.ttl.params(record.createdAt)],
      partition: `${record.organizationId}|${record.id}`,
    };
  }

  private async writeRow(record: ArtifactRecord, size: number, sha256: string, chunkCount: number): Promise<void> {
    const st = this.rowStatement(record, size, sha256, chunkCount);
    await this.client.execute(st.query, st.params as unknown[], { prepare: true });
  }

  /** The chunk statements of `bytes` under `record.blobId`. */
  private chunkStatements(record: ArtifactRecord, buf: Buffer): GroupedStatement[] {
    const out: GroupedStatement[] = [];
    const query = `INSERT INTO proc_artifact_chunks (blob_id, chunk_index, data) VALUES (?, ?, ?)${this.ttl.clause}`;
    for (let i = 0, n = 0; i < buf.length || n === 0; i += CHUNK_BYTES, n++) {
      out.push({ query, params: [record.blobId, n, buf.subarray(i, Math.min(buf.length, i + CHUNK_BYTES)), ...this.ttl.params(record.createdAt)], partition: record.blobId });
      if (buf.length === 0) break;
    }
    return out;
  }

  putAll(items: readonly { readonly record: ArtifactRecord; readonly bytes: Uint8Array }[]): Promise<StoredBytes[]> {
    if (items.length === 0) return Promise.resolve([]);
    return guardStore('artifact write', async () => {
      const chunks: GroupedStatement[] = [];
      const rows: GroupedStatement[] = [];
      const stored: StoredBytes[] = [];
      for (const { record, bytes } of items) {
        const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const mine = this.chunkStatements(record, buf);
        chunks.push(...mine);
        const sha256 = record.sha256 !== '' ? record.sha256 : createHash('sha256').update(buf).digest('hex');
        rows.push(this.rowStatement(record, buf.length, sha256, mine.length));
        stored.push({ blobId: record.blobId, size: buf.length, sha256 });
      }
      // every chunk before any row: a visible row is complete
      await writeGrouped(this.client, chunks);
      await writeGrouped(this.client, rows);
      return stored;
    });
  }

  aliasAll(items: readonly { readonly record: ArtifactRecord; readonly source?: StoredBytes | undefined }[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return guardStore('artifact alias', async () => {
      const unknown = new Map<string, string[]>();
      for (const { record, source } of items) {
        if (source) continue;
        let ids = unknown.get(record.organizationId);
        if (!ids) unknown.set(record.organizationId, (ids = []));
        ids.push(record.blobId);
      }
      const read = new Map<string, StoredBytes & { chunkCount: number }>();
      for (const [org, ids] of unknown) {
        for (const row of await readIn(this.client, 'SELECT artifact_id, size, sha256, chunk_count, blob_id FROM proc_artifacts WHERE org_id = ? AND artifact_id IN ?', [org], ids)) {
          read.set(`${org}|${str(row.get('artifact_id'))}`, { blobId: str(row.get('blob_id')), size: num(row.get('size')), sha256: str(row.get('sha256')), chunkCount: num(row.get('chunk_count')) });
        }
      }
      const rows = items.map(({ record, source }) => {
        if (source) return this.rowStatement({ ...record, blobId: source.blobId }, source.size, source.sha256, chunkCountOf(source.size));
        const src = read.get(`${record.organizationId}|${record.blobId}`);
        if (!src) throw new TdxError('not_found', `Artifact ${record.blobId} to share bytes with is not stored.`, { reason: 'artifact' });
        return this.rowStatement({ ...record, blobId: src.blobId || record.blobId }, src.size, src.sha256, src.chunkCount);
      });
      await writeGrouped(this.client, rows);
    });
  }

  async put(record: ArtifactRecord, bytes: Uint8Array): Promise<StoredBytes> {
    return (await this.putAll([{ record, bytes }]))[0]!;
  }

  putStream(record: ArtifactRecord, chunks: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }> {
    return guardStore('artifact stream write', async () => {
      const hash = createHash('sha256');
      let size = 0;
      let index = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const inFlight = new Set<Promise<unknown>>();
      const write = async (data: Buffer): Promise<void> => {
        const p = this.client.execute(`INSERT INTO proc_artifact_chunks (blob_id, chunk_index, data) VALUES (?, ?, ?)${this.ttl.clause}`, [record.blobId, index++, data, ...this.ttl.params(record.createdAt)], {
          prepare: true,
        });
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p)).catch(() => undefined);
        if (inFlight.size >= 4) await Promise.race(inFlight);
      };
      for await (const c of chunks) {
        const b = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
        hash.update(b);
        size += b.length;
        pending.push(b);
        pendingBytes += b.length;
        while (pendingBytes >= CHUNK_BYTES) {
          const all = Buffer.concat(pending, pendingBytes);
          await write(Buffer.from(all.subarray(0, CHUNK_BYTES)));
          pending = [all.subarray(CHUNK_BYTES)];
          pendingBytes = all.length - CHUNK_BYTES;
        }
      }
      if (pendingBytes > 0 || index === 0) await write(Buffer.concat(pending, pendingBytes));
      await Promise.all(inFlight);
      const sha256 = hash.digest('hex');
      await this.writeRow(record, size, sha256, index);
      return { size, sha256 };
    });
  }

  alias(record: ArtifactRecord, source?: StoredBytes): Promise<void> {
    return this.aliasAll([{ record, source }]);
  }

  get(organizationId: string, id: string): Promise<ArtifactRecord | null> {
    return guardStore('artifact read', async () => (await this.records(organizationId, id)) ?? null);
  }

  async *chunks(record: ArtifactRecord): AsyncIterable<Buffer> {
    // a record read from the store knows its size, so its chunk count; one built without it
    // (size 0) asks the row
    const count =
      record.size > 0
        ? chunkCountOf(record.size)
        : num(
            (
              await guardStore('artifact chunk count', () =>
                this.client.execute('SELECT chunk_count FROM proc_artifacts WHERE org_id = ? AND artifact_id = ?', [record.organizationId, record.id], { prepare: true }),
              )
            ).first()?.get('chunk_count'),
          );
    if (count === 1) {
      // one chunk (most documents): read with the other small artifacts read at the same time
      const data = await guardStore('artifact chunks read', () => this.firstChunks('', record.blobId));
      if (data === undefined) throw new TdxError('not_found', `The bytes of artifact ${record.id} are no longer available.`, { reason: 'artifact' });
      yield data;
      return;
    }
    let seen = 0;
    // Pages of a few chunks, so a large document never sits whole in memory.
    let pageState: string | undefined;
    do {
      const page = await guardStore('artifact chunks read', () =>
        this.client.execute('SELECT chunk_index, data FROM proc_artifact_chunks WHERE blob_id = ?', [record.blobId], { prepare: true, fetchSize: 4, ...(pageState ? { pageState } : {}) }),
      );
      for (const row of page.rows) {
        if (num(row.get('chunk_index')) !== seen) break;
        seen++;
        yield row.get('data') as Buffer;
      }
      pageState = page.pageState ?? undefined;
    } while (pageState);
    if (seen < count || (count === 0 && seen === 0)) {
      if (count === 0 && seen === 0) return;
      throw new TdxError('not_found', `The bytes of artifact ${record.id} are no longer available.`, { reason: 'artifact' });
    }
  }

  async read(record: ArtifactRecord): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const c of this.chunks(record)) parts.push(c);
    return Buffer.concat(parts);
  }
}

// --- results -----------------------------------------------------------------------------------

const RESULT_FIELDS = 'trace_guid, transaction_id, flow_id, node_id, node_name, service, status, direction, partner_key, resend, detail, payload_artifact_id, payload_format, created_at, updated_at';

function resultParams(r: ResultRecord): Params {
  return [
    r.traceGuid,
    r.transactionId ?? '',
    r.flowId,
    r.nodeId,
    r.nodeName,
    r.service,
    r.status,
    r.direction,
    r.partnerKey,
    r.resend,
    JSON.stringify(r.detail),
    r.payload?.artifactId ?? null,
    r.payload?.format ?? null,
    long(r.createdAt),
    long(r.updatedAt),
  ];
}

function resultOf(organizationId: string, id: string, r: Row): ResultRecord {
  const payloadId = strOrNull(r.get('payload_artifact_id'));
  const tx = str(r.get('transaction_id'));
  return {
    id,
    organizationId,
    traceGuid: str(r.get('trace_guid')),
    transactionId: tx === '' ? null : tx,
    flowId: strOrNull(r.get('flow_id')),
    nodeId: str(r.get('node_id')),
    nodeName: str(r.get('node_name')),
    service: str(r.get('service')),
    status: str(r.get('status')) as ResultRecord['status'],
    direction: strOrNull(r.get('direction')) as ResultRecord['direction'],
    partnerKey: strOrNull(r.get('partner_key')),
    resend: r.get('resend') === true,
    detail: JSON.parse(str(r.get('detail')) || '{}') as ResultRecord['detail'],
    payload: payloadId ? { artifactId: payloadId, format: str(r.get('payload_format')) === 'edi' ? 'edi' : 'json' } : null,
    createdAt: num(r.get('created_at')),
    updatedAt: num(r.get('updated_at')),
  };
}

const byCreated = (a: ResultRecord, b: ResultRecord): number => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Trace failures of the static `trace_errors` column of proc_trace_results. */
function traceErrorsOf(m: unknown): TraceError[] {
  const out: TraceError[] = [];
  for (const [resultId, v] of Object.entries((m ?? {}) as Record<string, string>)) {
    const e = JSON.parse(v) as { transactionId: string | null; nodeName: string };
    out.push({ resultId, transactionId: e.transactionId, nodeName: e.nodeName });
  }
  return out;
}

export class CassandraResultStore implements ResultStore, TransactionResultsReader {
  private readonly ttl: Ttl;

  constructor(
    private readonly client: Client,
    retention?: StoreRetention,
  ) {
    this.ttl = new Ttl(retention);
  }

  /**
   * A result is stored once, in its trace's partition (`proc_trace_results`, where the trace,
   * the transaction detail and the records API read it); `proc_results` holds only where to find
   * it by id (trace and transaction), so its bytes are not written twice. Rows written before
   * this shape hold every field and still read as they are.
   */
  put(results: readonly ResultRecord[]): Promise<void> {
    return guardStore('result write', async () => {
      const main: Params[] = [];
      const byTrace: Params[] = [];
      for (const r of results) {
        const p = resultParams(r);
        const ttl = this.ttl.params(r.createdAt);
        main.push([r.organizationId, r.id, r.traceGuid, r.transactionId ?? '', ...ttl]);
        byTrace.push([r.organizationId, r.traceGuid, r.transactionId ?? '', r.id, ...p.slice(2), ...ttl]);
      }
      const mainQuery = `INSERT INTO proc_results (org_id, id, trace_guid, transaction_id) VALUES (?, ?, ?, ?)${this.ttl.clause}`;
      const traceQuery = `INSERT INTO proc_trace_results (org_id, trace_guid, transaction_id, result_id, flow_id, node_id, node_name, service, status, direction, partner_key, resend, detail, payload_artifact_id, payload_format, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${this.ttl.clause}`;
      await Promise.all([
        // a partition per result: in batches of a few partitions (grouped.ts)
        writeGrouped(
          this.client,
          main.map((params) => ({ query: mainQuery, params, partition: `${params[0] as string}|${params[1] as string}` })),
        ),
        // the results of one trace share a partition: a few batches instead of a write each
        writeGrouped(
          this.client,
          byTrace.map((params) => ({ query: traceQuery, params, partition: `${params[0] as string}|${params[1] as string}` })),
        ),
      ]);
    });
  }

  get(organizationId: string, id: string): Promise<ResultRecord | null> {
    return guardStore('result read', async () => {
      const rs = await this.client.execute(`SELECT ${RESULT_FIELDS} FROM proc_results WHERE org_id = ? AND id = ?`, [organizationId, id], { prepare: true });
      const row = rs.first();
      if (!row) return null;
      const traceGuid = str(row.get('trace_guid'));
      const at = await this.client.execute(
        `SELECT ${RESULT_FIELDS.replace('trace_guid, ', '')} FROM proc_trace_results WHERE org_id = ? AND trace_guid = ? AND transaction_id = ? AND result_id = ?`,
        [organizationId, traceGuid, str(row.get('transaction_id')), id],
        { prepare: true },
      );
      const stored = at.first();
      if (stored) return resultOf(organizationId, id, { get: (n: string): unknown => (n === 'trace_guid' ? traceGuid : stored.get(n)) } as Row);
      // a row of the earlier shape whose trace row is gone still holds every field
      return row.get('status') === null ? null : resultOf(organizationId, id, row);
    });
  }

  private async traceRows(organizationId: string, traceGuid: string, transactionId?: string): Promise<ResultRecord[]> {
    const q = `SELECT result_id, ${RESULT_FIELDS.replace('trace_guid, ', '')} FROM proc_trace_results WHERE org_id = ? AND trace_guid = ?${transactionId === undefined ? '' : ' AND transaction_id = ?'}`;
    const out: ResultRecord[] = [];
    const params = transactionId === undefined ? [organizationId, traceGuid] : [organizationId, traceGuid, transactionId];
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(q, params, { prepare: true, fetchSize: 1000, ...(pageState ? { pageState } : {}) });
      for (const row of rs.rows) {
        // a partition holding only its static columns (failures noted before any result) reads as one empty row
        if (row.get('result_id') === null) continue;
        const r = resultOf(organizationId, str(row.get('result_id')), { get: (n: string): unknown => (n === 'trace_guid' ? traceGuid : row.get(n)) } as Row);
        out.push(r);
      }
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out.sort(byCreated);
  }

  byTrace(organizationId: string, traceGuid: string): Promise<ResultRecord[]> {
    return guardStore('trace results read', () => this.traceRows(organizationId, traceGuid));
  }

  byTransaction(organizationId: string, traceGuid: string, transactionId: string): Promise<ResultRecord[]> {
    return guardStore('transaction results read', () => this.traceRows(organizationId, traceGuid, transactionId));
  }

  transactionResults(organizationId: string, traceGuid: string, transactionId: string): Promise<{ results: ResultRecord[]; traceErrors: TraceError[] } | null> {
    return guardStore('transaction results read', async () => {
      const rs = await this.client.execute(
        `SELECT result_id, trace_errors, ${RESULT_FIELDS.replace('trace_guid, ', '')} FROM proc_trace_results WHERE org_id = ? AND trace_guid = ? AND transaction_id = ?`,
        [organizationId, traceGuid, transactionId],
        { prepare: true, fetchSize: 5000 },
      );
      const first = rs.first();
      if (!first) return null;
      const results = rs.rows.map((row) => resultOf(organizationId, str(row.get('result_id')), { get: (n: string): unknown => (n === 'trace_guid' ? traceGuid : row.get(n)) } as Row));
      return { results: results.sort(byCreated), traceErrors: traceErrorsOf(first.get('trace_errors')) };
    });
  }
}

// --- transactions ------------------------------------------------------------------------------

const TX_COLUMNS =
  'org_id, id, trace_guid, direction, usage_indicator, partner_key, transaction_set_identifier, release, reference, sender_qualifier, sender_extid, receiver_qualifier, receiver_extid, interchange_control_number, group_control_number, transaction_set_control_number, duplicate_of, flow_id, flow_version, flow_name, created_at, failed, failed_node_name, completed, delivered_at, warning_count, acknowledgment_status, acknowledged_by, acknowledges, resends, last_resent_at, roles, delivery_node_id, delivery_result_id, delivery_input_result_id, updated_at';

function rolesToMap(roles: Readonly<Partial<Record<ArtifactRole, ArtifactRoleRecord>>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(roles)) if (v) out[k] = JSON.stringify(v);
  return out;
}

export function transactionOf(r: Row): StoredTransaction {
  const roles: Partial<Record<ArtifactRole, ArtifactRoleRecord>> = {};
  const m = (r.get('roles') ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries(m)) roles[k as ArtifactRole] = JSON.parse(v) as ArtifactRoleRecord;
  const resends = (r.get('resends') ?? []) as string[];
  return {
    organizationId: str(r.get('org_id')),
    id: str(r.get('id')),
    traceGuid: str(r.get('trace_guid')),
    direction: str(r.get('direction')) === 'outbound' ? 'outbound' : 'inbound',
    usageIndicator: str(r.get('usage_indicator')) || 'P',
    partnerKey: strOrNull(r.get('partner_key')),
    transactionSetIdentifier: str(r.get('transaction_set_identifier')),
    release: str(r.get('release')),
    reference: strOrNull(r.get('reference')),
    senderQualifier: str(r.get('sender_qualifier')),
    senderExtid: str(r.get('sender_extid')),
    receiverQualifier: str(r.get('receiver_qualifier')),
    receiverExtid: str(r.get('receiver_extid')),
    interchangeControlNumber: str(r.get('interchange_control_number')),
    groupControlNumber: str(r.get('group_control_number')),
    transactionSetControlNumber: str(r.get('transaction_set_control_number')),
    duplicateOf: strOrNull(r.get('duplicate_of')),
    flowId: strOrNull(r.get('flow_id')),
    flowVersion: numOrNull(r.get('flow_version')),
    flowName: strOrNull(r.get('flow_name')),
    createdAt: num(r.get('created_at')),
    failed: r.get('failed') === true,
    failedNodeName: strOrNull(r.get('failed_node_name')),
    completed: r.get('completed') === true,
    deliveredAt: numOrNull(r.get('delivered_at')),
    warningCount: num(r.get('warning_count')),
    acknowledgmentStatus: strOrNull(r.get('acknowledgment_status')) as AcknowledgmentStatus | null,
    acknowledgedBy: strOrNull(r.get('acknowledged_by')),
    acknowledges: strOrNull(r.get('acknowledges')),
    resendCount: resends.length,
    lastResentAt: numOrNull(r.get('last_resent_at')),
    roles,
    deliveryNodeId: strOrNull(r.get('delivery_node_id')),
    deliveryResultId: strOrNull(r.get('delivery_result_id')),
    deliveryInputResultId: strOrNull(r.get('delivery_input_result_id')),
    updatedAt: num(r.get('updated_at')),
  };
}

/** Columns an update may set, with how to write each value. */
const UPDATE_COLUMNS: Record<string, { column: string; value: (v: unknown) => unknown }> = {
  failed: { column: 'failed', value: (v) => v },
  failedNodeName: { column: 'failed_node_name', value: (v) => v },
  completed: { column: 'completed', value: (v) => v },
  deliveredAt: { column: 'delivered_at', value: (v) => longOrNull(v as number | null) },
  warningCount: { column: 'warning_count', value: (v) => v },
  acknowledgmentStatus: { column: 'acknowledgment_status', value: (v) => v },
  acknowledgedBy: { column: 'acknowledged_by', value: (v) => v },
  acknowledges: { column: 'acknowledges', value: (v) => v },
  lastResentAt: { column: 'last_resent_at', value: (v) => longOrNull(v as number | null) },
  deliveryNodeId: { column: 'delivery_node_id', value: (v) => v },
  deliveryResultId: { column: 'delivery_result_id', value: (v) => v },
  deliveryInputResultId: { column: 'delivery_input_result_id', value: (v) => v },
};

export class CassandraTransactionStore implements TransactionStore {
  private readonly ttl: Ttl;

  constructor(
    private readonly client: Client,
    private readonly retention?: StoreRetention,
  ) {
    this.ttl = new Ttl(retention);
  }

  /**
   * `createdAt` of the transactions among `ids` that are stored (an update's TTL is the rest of
   * its transaction's life). Absent ones are left out: their update is written with the table's
   * default TTL, and readers never show a row without its recorded fields.
   */
  private async createdAtOf(organizationId: string, ids: readonly string[]): Promise<Map<string, Micros>> {
    const out = new Map<string, Micros>();
    const unique = [...new Set(ids)];
    if (unique.length === 0) return out;
    for (const row of await readIn(this.client, 'SELECT id, created_at FROM proc_transactions WHERE org_id = ? AND id IN ?', [organizationId], unique)) {
      if (row.get('created_at') !== null) out.set(str(row.get('id')), num(row.get('created_at')));
    }
    return out;
  }

  record(transactions: readonly StoredTransaction[]): Promise<void> {
    return guardStore('transaction write', async () => {
      const rows: Params[] = [];
      const byTrace: Params[] = [];
      for (const t of transactions) {
        rows.push([
          t.organizationId, t.id, t.traceGuid, t.direction, t.usageIndicator, t.partnerKey, t.transactionSetIdentifier, t.release, t.reference,
          t.senderQualifier, t.senderExtid, t.receiverQualifier, t.receiverExtid, t.interchangeControlNumber, t.groupControlNumber, t.transactionSetControlNumber,
          t.duplicateOf, t.flowId, t.flowVersion, t.flowName, long(t.createdAt), t.failed, t.failedNodeName, t.completed, longOrNull(t.deliveredAt),
          t.warningCount, t.acknowledgmentStatus, t.acknowledgedBy, t.acknowledges, null, longOrNull(t.lastResentAt), rolesToMap(t.roles),
          t.deliveryNodeId, t.deliveryResultId, t.deliveryInputResultId, long(t.updatedAt), ...this.ttl.params(t.createdAt), long(t.createdAt),
        ]);
        byTrace.push([t.organizationId, t.traceGuid, t.id, ...this.ttl.params(t.createdAt)]);
      }
      const marks = TX_COLUMNS.split(',').map(() => '?').join(', ');
      await Promise.all([
        // Written as of the transaction's createdAt (a step clock), so a step re-run after a
        // crash rewrites the recorded fields without resetting state that later steps wrote.
        writeGrouped(
          this.client,
          rows.map((params) => ({ query: `INSERT INTO proc_transactions (${TX_COLUMNS}) VALUES (${marks}) USING ${this.ttl.andClause}TIMESTAMP ?`, params, partition: `${params[0] as string}|${params[1] as string}` })),
        ),
        writeGrouped(
          this.client,
          byTrace.map((params) => ({ query: `INSERT INTO proc_trace_transactions (org_id, trace_guid, transaction_id) VALUES (?, ?, ?)${this.ttl.clause}`, params, partition: `${params[0] as string}|${params[1] as string}` })),
          { maxStatements: 256 },
        ),
      ]);
    });
  }

  update(updates: readonly TransactionUpdate[]): Promise<void> {
    return guardStore('transaction update', async () => {
      // Every cell written lives as long as the transaction's recorded fields (createdAt + R):
      // the rest of its life, from the createdAt the caller gave or the stored one.
      const born = new Map<string, Micros>();
      if (this.retention) {
        const unknown = new Map<string, string[]>();
        for (const u of updates) {
          if (u.createdAt !== undefined) born.set(`${u.organizationId}|${u.id}`, u.createdAt);
          else {
            let ids = unknown.get(u.organizationId);
            if (!ids) unknown.set(u.organizationId, (ids = []));
            ids.push(u.id);
          }
        }
        for (const [org, ids] of unknown) for (const [id, at] of await this.createdAtOf(org, ids)) born.set(`${org}|${id}`, at);
      }
      // Each shape of update (the columns it sets) is one prepared statement.
      const statements: GroupedStatement[] = [];
      for (const u of updates) {
        const createdAt = born.get(`${u.organizationId}|${u.id}`);
        const ttlParams = createdAt === undefined ? [] : this.ttl.params(createdAt);
        const using = createdAt === undefined ? '' : ' USING TTL ?';
        const usingAnd = createdAt === undefined ? '' : 'TTL ? AND ';
        const sets: string[] = [];
        const params: unknown[] = [];
        for (const [field, spec] of Object.entries(UPDATE_COLUMNS)) {
          const v = (u as unknown as Record<string, unknown>)[field];
          if (v === undefined) continue;
          sets.push(`${spec.column} = ?`);
          params.push(spec.value(v));
        }
        for (const [role, rec] of Object.entries(u.roles ?? {})) {
          if (!rec) continue;
          sets.push(`roles['${role}'] = ?`);
          params.push(JSON.stringify(rec));
        }
        const add = (q: string, p: Params): void => {
          statements.push({ query: q, params: p, partition: `${u.organizationId}|${u.id}` });
        };
        if (u.at !== undefined) {
          // fields written as of their step clock; updated_at as of now (the projection's version)
          add(`UPDATE proc_transactions USING ${usingAnd}TIMESTAMP ? SET ${sets.join(', ')} WHERE org_id = ? AND id = ?`, [...ttlParams, long(u.at), ...params, u.organizationId, u.id]);
          add(`UPDATE proc_transactions${using} SET updated_at = ? WHERE org_id = ? AND id = ?`, [...ttlParams, long(Date.now() * 1000), u.organizationId, u.id]);
          continue;
        }
        sets.push('updated_at = ?');
        params.push(long(Date.now() * 1000));
        add(`UPDATE proc_transactions${using} SET ${sets.join(', ')} WHERE org_id = ? AND id = ?`, [...ttlParams, ...params, u.organizationId, u.id]);
      }
      // the statements of one transaction (its fields and updated_at) go as one batch
      await writeGrouped(this.client, statements);
    });
  }

  /** Adds a replay command to a transaction's resends (resendCount counts each command once). */
  addResend(organizationId: string, id: string, commandId: string, at: Micros): Promise<void> {
    return guardStore('transaction resend', async () => {
      const createdAt = this.retention ? (await this.createdAtOf(organizationId, [id])).get(id) : undefined;
      await this.client.execute(
        `UPDATE proc_transactions${createdAt === undefined ? '' : ' USING TTL ?'} SET resends = resends + ?, last_resent_at = ?, updated_at = ? WHERE org_id = ? AND id = ?`,
        [...(createdAt === undefined ? [] : this.ttl.params(createdAt)), [commandId], long(at), long(Date.now() * 1000), organizationId, id],
        { prepare: true },
      );
    });
  }

  get(organizationId: string, id: string): Promise<StoredTransaction | null> {
    return guardStore('transaction read', async () => {
      const rs = await this.client.execute(`SELECT ${TX_COLUMNS} FROM proc_transactions WHERE org_id = ? AND id = ?`, [organizationId, id], { prepare: true });
      const row = rs.first();
      // a row whose recorded fields expired (created_at gone) is not a transaction any more
      return row && row.get('created_at') !== null && row.get('trace_guid') !== null ? transactionOf(row) : null;
    });
  }

  /** Several transactions by id (missing ones are left out). */
  getMany(organizationId: string, ids: readonly string[]): Promise<StoredTransaction[]> {
    return guardStore('transactions read', async () => {
      const out: StoredTransaction[] = [];
      if (ids.length === 0) return out;
      // a hundred partitions a request: far fewer round trips than one read each
      for (const row of await readIn(this.client, `SELECT ${TX_COLUMNS} FROM proc_transactions WHERE org_id = ? AND id IN ?`, [organizationId], ids)) {
        if (row.get('created_at') !== null && row.get('trace_guid') !== null) out.push(transactionOf(row));
      }
      return out;
    });
  }

  deliveryStates(organizationId: string, ids: readonly string[]): Promise<Map<string, TransactionDeliveryState>> {
    return guardStore('transactions read', async () => {
      const out = new Map<string, TransactionDeliveryState>();
      if (ids.length === 0) return out;
      for (const row of await readIn(this.client, 'SELECT id, trace_guid, created_at, transaction_set_identifier, delivered_at FROM proc_transactions WHERE org_id = ? AND id IN ?', [organizationId], ids)) {
        if (row.get('created_at') === null || row.get('trace_guid') === null) continue;
        const delivered = row.get('delivered_at') as unknown;
        out.set(str(row.get('id')), {
          traceGuid: str(row.get('trace_guid')),
          createdAt: num(row.get('created_at')),
          transactionSetIdentifier: str(row.get('transaction_set_identifier')),
          deliveredAt: delivered === null || delivered === undefined ? null : num(delivered),
        });
      }
      return out;
    });
  }

  byTrace(organizationId: string, traceGuid: string): Promise<StoredTransaction[]> {
    return guardStore('trace transactions read', async () => {
      const ids: string[] = [];
      let pageState: string | undefined;
      do {
        const rs = await this.client.execute('SELECT transaction_id FROM proc_trace_transactions WHERE org_id = ? AND trace_guid = ?', [organizationId, traceGuid], {
          prepare: true,
          fetchSize: 5000,
          ...(pageState ? { pageState } : {}),
        });
        for (const r of rs.rows) ids.push(str(r.get('transaction_id')));
        pageState = rs.pageState ?? undefined;
      } while (pageState);
      const txs = await this.getMany(organizationId, ids);
      return txs.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
    });
  }

  recordTraceError(organizationId: string, traceGuid: string, error: TraceError): Promise<void> {
    return guardStore('trace error write', async () => {
      await Promise.all([
        this.client.execute(
          'INSERT INTO proc_trace_errors (org_id, trace_guid, result_id, transaction_id, node_name) VALUES (?, ?, ?, ?, ?)',
          [organizationId, traceGuid, error.resultId, error.transactionId, error.nodeName],
          { prepare: true },
        ),
        // the same failure beside the trace's results, read with them by the transaction detail
        this.client.execute(
          'UPDATE proc_trace_results SET trace_errors[?] = ? WHERE org_id = ? AND trace_guid = ?',
          [error.resultId, JSON.stringify({ transactionId: error.transactionId, nodeName: error.nodeName }), organizationId, traceGuid],
          { prepare: true },
        ),
      ]);
    });
  }

  traceErrors(organizationId: string, traceGuid: string): Promise<TraceError[]> {
    return guardStore('trace errors read', async () => {
      const rs = await this.client.execute('SELECT result_id, transaction_id, node_name FROM proc_trace_errors WHERE org_id = ? AND trace_guid = ?', [organizationId, traceGuid], {
        prepare: true,
        fetchSize: 5000,
      });
      return rs.rows.map((r) => ({ resultId: str(r.get('result_id')), transactionId: strOrNull(r.get('transaction_id')), nodeName: str(r.get('node_name')) }));
    });
  }

  recordSightings(sightings: readonly { readonly key: InterchangeKey; readonly sighting: InterchangeSighting }[]): Promise<void> {
    return guardStore('duplicate index write', async () => {
      const query = `INSERT INTO proc_interchange_sightings (org_id, sender_qualifier, sender_extid, interchange_control_number, usage_class, trace_guid, interchange_index, transaction_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)${this.ttl.clause}`;
      await writeGrouped(
        this.client,
        sightings.map(({ key, sighting: s }) => ({
          query,
          params: [key.organizationId, key.senderQualifier, key.senderExtid, key.interchangeControlNumber, key.usageClass, s.traceGuid, s.interchangeIndex, s.transactionId, long(s.createdAt), ...this.ttl.params(s.createdAt)],
          partition: JSON.stringify([key.organizationId, key.senderQualifier, key.senderExtid, key.interchangeControlNumber, key.usageClass]),
        })),
      );
    });
  }

  sightings(key: InterchangeKey): Promise<InterchangeSighting[]> {
    return guardStore('duplicate index read', async () => {
      const found = await this.sightingsOf(JSON.stringify([key.organizationId, key.senderQualifier, key.senderExtid, key.usageClass]), key.interchangeControlNumber);
      return [...(found ?? [])].sort((a, b) => a.createdAt - b.createdAt || (a.transactionId < b.transactionId ? -1 : 1));
    });
  }

  /** The sightings of interchange control numbers of one sender, the reads of one turn of the event loop together (grouped.ts). */
  private readonly sightingsOf = coalescedReads<InterchangeSighting[]>(async (group, numbers) => {
    const [org, qualifier, extid, usageClass] = JSON.parse(group) as [string, string, string, string];
    const out = new Map<string, InterchangeSighting[]>();
    const rows = await readIn(
      this.client,
      'SELECT interchange_control_number, trace_guid, interchange_index, transaction_id, created_at FROM proc_interchange_sightings WHERE org_id = ? AND sender_qualifier = ? AND sender_extid = ? AND usage_class = ? AND interchange_control_number IN ?',
      [org, qualifier, extid, usageClass],
      numbers,
    );
    for (const r of rows) {
      const n = str(r.get('interchange_control_number'));
      let list = out.get(n);
      if (!list) out.set(n, (list = []));
      list.push({ traceGuid: str(r.get('trace_guid')), interchangeIndex: num(r.get('interchange_index')), transactionId: str(r.get('transaction_id')), createdAt: num(r.get('created_at')) });
    }
    return out;
  });

  outboundSet(key: OutboundSetKey, setControlNumber: string, transactionId: string, createdAt: Micros, tracked = false): Promise<void> {
    return guardStore('outbound set write', async () => {
      await this.client.execute(
        `INSERT INTO proc_outbound_sets (org_id, sender, receiver, group_control_number, transaction_set_control_number, transaction_id, created_at, tracked) VALUES (?, ?, ?, ?, ?, ?, ?, ?)${this.ttl.clause}`,
        [key.organizationId, key.sender, key.receiver, key.groupControlNumber, setControlNumber, transactionId, long(createdAt), tracked, ...this.ttl.params(createdAt)],
        { prepare: true },
      );
    });
  }

  outboundSets(key: OutboundSetKey): Promise<OutboundSetEntry[]> {
    return guardStore('outbound sets read', async () => {
      const rs = await this.client.execute(
        'SELECT transaction_set_control_number, transaction_id, created_at, tracked FROM proc_outbound_sets WHERE org_id = ? AND sender = ? AND receiver = ? AND group_control_number = ?',
        [key.organizationId, key.sender, key.receiver, key.groupControlNumber],
        { prepare: true, fetchSize: 5000 },
      );
      return rs.rows
        .map((r) => ({ setControlNumber: str(r.get('transaction_set_control_number')), transactionId: str(r.get('transaction_id')), tracked: r.get('tracked') === true, at: num(r.get('created_at')) }))
        .sort((a, b) => a.at - b.at)
        .map(({ setControlNumber, transactionId, tracked }) => ({ setControlNumber, transactionId, tracked }));
    });
  }
}

// --- control numbers ---------------------------------------------------------------------------

/**
 * Sequences taken with lightweight transactions (compare-and-set on the counter row), so two
 * replicas never take the same number; the allocation is remembered by owner, so a step run
 * again gets the number it took before.
 */
/** Records an owner's control number unless it has one (a lightweight transaction: see `CassandraControlNumbers.claim`). */
const CLAIM_ALLOCATION = 'INSERT INTO control_number_allocations (org_id, owner, scope, value, created_at) VALUES (?, ?, ?, ?, toTimestamp(now())) IF NOT EXISTS';

/** The number an allocation claim leaves the owner with: `value` when it was recorded, else the one recorded before. */
const claimedValue = (rs: cassandra.types.ResultSet, value: number): number => (rs.wasApplied() ? value : num(rs.first()?.get('value')));

export class CassandraControlNumbers implements ControlNumberStore {
  constructor(private readonly client: Client) {}

  take(organizationId: string, scope: string, owner: string): Promise<number> {
    return guardStore('control number', async () => {
      const had = await this.client.execute('SELECT value FROM control_number_allocations WHERE org_id = ? AND owner = ? AND scope = ?', [organizationId, owner, scope], { prepare: true });
      const prior = had.first();
      if (prior) return num(prior.get('value'));
      for (let tries = 0; tries < 100; tries++) {
        const cur = await this.client.execute('SELECT value FROM control_numbers WHERE org_id = ? AND scope = ?', [organizationId, scope], {
          prepare: true,
          consistency: cassandra.types.consistencies.serial,
        });
        const row = cur.first();
        let ok: boolean;
        let value: number;
        if (!row) {
          value = 1;
          const rs = await this.client.execute('INSERT INTO control_numbers (org_id, scope, value, updated_at) VALUES (?, ?, ?, toTimestamp(now())) IF NOT EXISTS', [organizationId, scope, long(1)], { prepare: true });
          ok = rs.wasApplied();
        } else {
          const v = num(row.get('value'));
          value = v >= 999_999_999 ? 1 : v + 1;
          const rs = await this.client.execute('UPDATE control_numbers SET value = ?, updated_at = toTimestamp(now()) WHERE org_id = ? AND scope = ? IF value = ?', [long(value), organizationId, scope, long(v)], {
            prepare: true,
          });
          ok = rs.wasApplied();
        }
        if (ok) return await this.claim(organizationId, owner, scope, value);
      }
      throw new TdxError('store_unavailable', `Control number sequence ${scope} is contended; try again.`);
    });
  }

  /**
   * Records `value` as the owner's number unless the owner has one already, and returns the
   * owner's number. A lightweight transaction: a step run again (a batch retried after a store
   * timeout, a work item delivered twice) whose first look missed the first run's number (a read
   * at LOCAL_QUORUM while a node was down and coming back) takes a new one from the counter, but
   * keeps the first, so one document never goes out under two control numbers (the taken number
   * is left unused: X12 allows gaps).
   */
  private async claim(organizationId: string, owner: string, scope: string, value: number): Promise<number> {
    return claimedValue(await this.client.execute(CLAIM_ALLOCATION, [organizationId, owner, scope, long(value)], { prepare: true }), value);
  }

  takeMany(organizationId: string, scope: string, owners: readonly string[]): Promise<Map<string, number>> {
    return guardStore('control numbers', async () => {
      const out = new Map<string, number>();
      const unique = [...new Set(owners)];
      if (unique.length === 0) return out;
      const had = await cassandra.concurrent.executeConcurrent(
        this.client,
        'SELECT owner, value FROM control_number_allocations WHERE org_id = ? AND owner = ? AND scope = ?',
        unique.map((o) => [organizationId, o, scope]),
        { concurrencyLevel: CONCURRENCY, collectResults: true },
      );
      for (const rs of had.resultItems) {
        const row = (rs as cassandra.types.ResultSet).first();
        if (row) out.set(str(row.get('owner')), num(row.get('value')));
      }
      const fresh = unique.filter((o) => !out.has(o));
      if (fresh.length === 0) return out;
      const n = fresh.length;
      // the block is consecutive after the current value, wrapping from 999999999 to 1
      const after = (v: number, k: number): number => ((v - 1 + k) % CONTROL_NUMBER_MAX) + 1;
      for (let tries = 0; tries < 100; tries++) {
        const cur = await this.client.execute('SELECT value FROM control_numbers WHERE org_id = ? AND scope = ?', [organizationId, scope], {
          prepare: true,
          consistency: cassandra.types.consistencies.serial,
        });
        const row = cur.first();
        let ok: boolean;
        let base: number;
        if (!row) {
          base = 0;
          const rs = await this.client.execute('INSERT INTO control_numbers (org_id, scope, value, updated_at) VALUES (?, ?, ?, toTimestamp(now())) IF NOT EXISTS', [organizationId, scope, long(n)], { prepare: true });
          ok = rs.wasApplied();
        } else {
          base = num(row.get('value'));
          const rs = await this.client.execute('UPDATE control_numbers SET value = ?, updated_at = toTimestamp(now()) WHERE org_id = ? AND scope = ? IF value = ?', [long(after(base, n)), organizationId, scope, long(base)], {
            prepare: true,
          });
          ok = rs.wasApplied();
        }
        if (ok) {
          const taken = fresh.map((o, i) => [o, base === 0 ? i + 1 : after(base, i + 1)] as const);
          const claimed = await cassandra.concurrent.executeConcurrent(this.client, CLAIM_ALLOCATION, taken.map(([o, v]) => [organizationId, o, scope, long(v)]), { concurrencyLevel: CONCURRENCY, collectResults: true, raiseOnFirstError: true });
          taken.forEach(([o, v], i) => out.set(o, claimedValue(claimed.resultItems[i] as cassandra.types.ResultSet, v)));
          return out;
        }
      }
      throw new TdxError('store_unavailable', `Control number sequence ${scope} is contended; try again.`);
    });
  }
}

/** Largest control number (ISA13 has nine digits); sequences wrap to 1 after it. */
const CONTROL_NUMBER_MAX = 999_999_999;

// --- step clocks, replays, secrets -------------------------------------------------------------

export class CassandraStepLedger implements StepLedger {
  constructor(private readonly client: Client) {}

  clocks(items: readonly WorkRef[], now: Micros): Promise<Map<string, Micros>> {
    return guardStore('step clock', async () => {
      const out = new Map<string, Micros>();
      const byTrace = new Map<string, string[]>();
      for (const i of items) {
        let ids = byTrace.get(i.traceGuid);
        if (!ids) byTrace.set(i.traceGuid, (ids = []));
        ids.push(i.id);
      }
      if (byTrace.size === 0) return out;
      // one query per trace (and hundred work items), then one batch per trace for the new ones
      await Promise.all(
        [...byTrace].map(async ([trace, ids]) => {
          for (const row of await readIn(this.client, 'SELECT work_id, started_at FROM proc_trace_step_clocks WHERE trace_guid = ? AND work_id IN ?', [trace], ids)) {
            out.set(str(row.get('work_id')), num(row.get('started_at')));
          }
        }),
      );
      const fresh: GroupedStatement[] = [];
      for (const [trace, ids] of byTrace) {
        for (const id of new Set(ids)) {
          if (out.has(id)) continue;
          fresh.push({ query: 'INSERT INTO proc_trace_step_clocks (trace_guid, work_id, started_at) VALUES (?, ?, ?)', params: [trace, id, long(now)], partition: trace });
          out.set(id, now);
        }
      }
      await writeGrouped(this.client, fresh, { maxStatements: 256 });
      return out;
    });
  }

  record(entries: readonly { readonly item: WorkRef; readonly at: Micros }[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return guardStore('step clock', () =>
      writeGrouped(
        this.client,
        entries.map((e) => ({ query: 'INSERT INTO proc_trace_step_clocks (trace_guid, work_id, started_at) VALUES (?, ?, ?)', params: [e.item.traceGuid, e.item.id, long(e.at)], partition: e.item.traceGuid })),
        { maxStatements: 256 },
      ),
    );
  }
}

export class CassandraReplayLedger implements ReplayLedger {
  constructor(private readonly client: Client) {}

  done(organizationId: string, commandId: string): Promise<boolean> {
    return guardStore('replay ledger read', async () => {
      const rs = await this.client.execute('SELECT done_at FROM proc_replays WHERE org_id = ? AND command_id = ?', [organizationId, commandId], { prepare: true });
      return rs.rowLength > 0;
    });
  }

  markDone(organizationId: string, commandId: string, at: Micros): Promise<void> {
    return guardStore('replay ledger write', async () => {
      await this.client.execute('INSERT INTO proc_replays (org_id, command_id, done_at) VALUES (?, ?, ?)', [organizationId, commandId, long(at)], { prepare: true });
    });
  }
}

/**
 * Secrets for the nodes that use them (the API's read stores never select this table), opened
 * with the operator keys in this process (docs/secrets.md).
 */
export class CassandraSecretReader implements SecretReader {
  constructor(
    private readonly client: Client,
    private readonly keyring: SecretKeyring,
  ) {}

  async get(organizationId: string, ownerKind: SecretOwner, ownerId: string): Promise<Readonly<Record<string, string>>> {
    const rs = await guardStore('secrets read', () =>
      this.client.execute('SELECT name, value, key_id FROM config_secrets WHERE org_id = ? AND owner_kind = ? AND owner_id = ?', [organizationId, ownerKind, ownerId], { prepare: true }),
    );
    const out: Record<string, string> = {};
    for (const r of rs.rows) {
      const name = str(r.get('name'));
      out[name] = this.keyring.open({ organizationId, ownerKind, ownerId, name }, storedOf(r));
    }
    return out;
  }
}

// --- sandbox receipts --------------------------------------------------------------------------

/** What the sandbox sinks of an organization received (migrations/0010_outbound.cql and 0120_records_api.cql). */
export class CassandraSandboxReceipts implements SandboxReceiptStore {
  constructor(private readonly client: Client) {}

  record(receipt: SandboxReceipt): Promise<void> {
    return guardStore('sandbox receipt write', () =>
      runConcurrent(this.client, 'INSERT INTO proc_sandbox_receipts (org_id, kind, id, received_at) VALUES (?, ?, ?, ?)', [
        ...[...new Set(receipt.resultIds)].map((id) => [receipt.organizationId, 'result', id, long(receipt.receivedAt)]),
        ...[...new Set(receipt.artifactIds)].map((id) => [receipt.organizationId, 'artifact', id, long(receipt.receivedAt)]),
      ]),
    );
  }

  receivedResults(organizationId: string, resultIds: readonly string[]): Promise<Set<string>> {
    return guardStore('sandbox receipts read', async () => {
      const out = new Set<string>();
      const unique = [...new Set(resultIds)];
      if (unique.length === 0) return out;
      const r = await cassandra.concurrent.executeConcurrent(this.client, "SELECT id FROM proc_sandbox_receipts WHERE org_id = ? AND kind = 'result' AND id = ?", unique.map((id) => [organizationId, id]), {
        concurrencyLevel: CONCURRENCY,
        collectResults: true,
      });
      for (const rs of r.resultItems) {
        const row = (rs as cassandra.types.ResultSet).first();
        if (row) out.add(str(row.get('id')));
      }
      return out;
    });
  }

  receivedArtifact(organizationId: string, artifactId: string): Promise<boolean> {
    return guardStore('sandbox receipt read', async () => {
      const rs = await this.client.execute("SELECT id FROM proc_sandbox_receipts WHERE org_id = ? AND kind = 'artifact' AND id = ?", [organizationId, artifactId], { prepare: true });
      return rs.rowLength > 0;
    });
  }
}
