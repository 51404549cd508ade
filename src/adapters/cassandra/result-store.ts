/**
 * Cassandra implementation of the ResultStore and TransactionResultsReader ports
 * (src/domain/processing-ports.ts): results in their trace's partition (`proc_trace_results`,
 * with the trace's failures in its static `trace_errors` column) and where to find each by id
 * (`proc_result_ids`, by the bucket its id begins with; `proc_results` before that table), tables
 * of migrations/0008_processing.cql, 0120_records_api.cql and 0170_result_ids_by_trace.cql.
 * Statements are prepared.
 */
import type { Client } from 'cassandra-driver';
import type { ResultStore, TraceError, TransactionResultsReader } from '../../domain/processing-ports.ts';
import type { ResultRecord } from '../../domain/records.ts';
import { bucketOfId } from '../../domain/ids.ts';
import { guardStore } from './guard.ts';
import { writeGrouped } from './grouped.ts';
import { long, num, str, strOrNull, Ttl, type Params, type StoreRetention, type Row } from './cells.ts';

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
   * the transaction detail and the records API read it); `proc_result_ids` holds only where to
   * find it by id (trace and transaction), so its bytes are not written twice, partitioned by the
   * bucket the id begins with: an id made by `resultId` begins with its trace's, so the results
   * of one trace a pass writes are one partition there too (any other id lands in a bucket of
   * its own, and reads the same way). Rows written before these shapes still read as they are.
   */
  put(results: readonly ResultRecord[]): Promise<void> {
    return guardStore('result write', async () => {
      const ids: Params[] = [];
      const byTrace: Params[] = [];
      for (const r of results) {
        const p = resultParams(r);
        const ttl = this.ttl.params(r.createdAt);
        ids.push([r.organizationId, bucketOfId(r.id), r.id, r.traceGuid, r.transactionId ?? '', ...ttl]);
        byTrace.push([r.organizationId, r.traceGuid, r.transactionId ?? '', r.id, ...p.slice(2), ...ttl]);
      }
      const idQuery = `INSERT INTO proc_result_ids (org_id, bucket, id, trace_guid, transaction_id) VALUES (?, ?, ?, ?, ?)${this.ttl.clause}`;
      const traceQuery = `INSERT INTO proc_trace_results (org_id, trace_guid, transaction_id, result_id, flow_id, node_id, node_name, service, status, direction, partner_key, resend, detail, payload_artifact_id, payload_format, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${this.ttl.clause}`;
      await Promise.all([
        // a partition per bucket: one per trace for the ids resultId makes (grouped.ts)
        writeGrouped(
          this.client,
          ids.map((params) => ({ query: idQuery, params, partition: `${params[0] as string}|${params[1] as string}` })),
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
      // where every result is written now; an id not there may have been written before that table
      const found = await this.client.execute('SELECT trace_guid, transaction_id FROM proc_result_ids WHERE org_id = ? AND bucket = ? AND id = ?', [organizationId, bucketOfId(id), id], {
        prepare: true,
      });
      const pointer = found.first() as Row | null;
      const row = pointer ?? (await this.client.execute(`SELECT ${RESULT_FIELDS} FROM proc_results WHERE org_id = ? AND id = ?`, [organizationId, id], { prepare: true })).first();
      if (!row) return null;
      const traceGuid = str(row.get('trace_guid'));
      const at = await this.client.execute(
        `SELECT ${RESULT_FIELDS.replace('trace_guid, ', '')} FROM proc_trace_results WHERE org_id = ? AND trace_guid = ? AND transaction_id = ? AND result_id = ?`,
        [organizationId, traceGuid, str(row.get('transaction_id')), id],
        { prepare: true },
      );
      const stored = at.first();
      if (stored) return resultOf(organizationId, id, { get: (n: string): unknown => (n === 'trace_guid' ? traceGuid : stored.get(n)) });
      // only a row of the earliest shape (every field in proc_results) stands without its trace row
      return pointer !== null || row.get('status') === null ? null : resultOf(organizationId, id, row);
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
        const r = resultOf(organizationId, str(row.get('result_id')), { get: (n: string): unknown => (n === 'trace_guid' ? traceGuid : row.get(n)) });
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
      const results = rs.rows.map((row) => resultOf(organizationId, str(row.get('result_id')), { get: (n: string): unknown => (n === 'trace_guid' ? traceGuid : row.get(n)) }));
      return { results: results.sort(byCreated), traceErrors: traceErrorsOf(first.get('trace_errors')) };
    });
  }
}
