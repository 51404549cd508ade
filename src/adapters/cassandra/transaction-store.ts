/**
 * Cassandra implementation of the TransactionStore port (src/domain/processing-ports.ts):
 * transactions (`proc_transactions`) and each trace's (`proc_trace_transactions`), trace failures
 * (`proc_trace_errors`, and the `trace_errors` column of `proc_trace_results`), the duplicate
 * index (`proc_interchange_sightings`) and outbound sets (`proc_outbound_sets`), tables of
 * migrations/0008_processing.cql and 0010_outbound.cql. Statements are prepared.
 */
import type { Client } from 'cassandra-driver';
import type {
  InterchangeKey,
  InterchangeSighting,
  OutboundSetEntry,
  OutboundSetKey,
  TraceError,
  TransactionDeliveryState,
  TransactionStore,
} from '../../domain/processing-ports.ts';
import type {
  AcknowledgmentStatus,
  ArtifactRole,
  ArtifactRoleRecord,
  Micros,
  StoredTransaction,
  TransactionUpdate,
} from '../../domain/records.ts';
import { guardStore } from './guard.ts';
import { coalescedReads, readIn, writeGrouped, type GroupedStatement } from './grouped.ts';
import { long, longOrNull, num, numOrNull, str, strOrNull, Ttl, type Params, type StoreRetention, type Row } from './cells.ts';

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
