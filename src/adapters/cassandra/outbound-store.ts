/**
 * Cassandra implementation of the acknowledgment deadlines (src/domain/processing-ports.ts),
 * over `proc_ack_deadlines` of migrations/0010_outbound.cql (the scheduler's leases and
 * positions, in the same migration, are lease-store.ts's).
 */
import cassandra, { type Client } from 'cassandra-driver';
import type { AcknowledgmentDeadline, AcknowledgmentDeadlineStore } from '../../domain/processing-ports.ts';
import type { Micros } from '../../domain/records.ts';
import { guardStore } from './guard.ts';
import { long, num, str } from './cells.ts';


const HOUR_US = 3_600_000_000;
/** Partition (hour of due time) of a deadline. */
export const dueHour = (dueAt: Micros): number => Math.floor(dueAt / HOUR_US);

export class CassandraAcknowledgmentDeadlines implements AcknowledgmentDeadlineStore {
  constructor(private readonly client: Client) {}

  watch(deadlines: readonly AcknowledgmentDeadline[]): Promise<void> {
    return guardStore('acknowledgment deadline write', async () => {
      if (deadlines.length === 0) return;
      await cassandra.concurrent.executeConcurrent(
        this.client,
        'INSERT INTO proc_ack_deadlines (due_hour, due_at, org_id, transaction_id, trace_guid, partner_key) VALUES (?, ?, ?, ?, ?, ?)',
        deadlines.map((d) => [long(dueHour(d.dueAt)), long(d.dueAt), d.organizationId, d.transactionId, d.traceGuid, d.partnerKey]),
        { concurrencyLevel: 32, raiseOnFirstError: true },
      );
    });
  }

  due(from: Micros, to: Micros): Promise<AcknowledgmentDeadline[]> {
    return guardStore('acknowledgment deadlines read', async () => {
      const out: AcknowledgmentDeadline[] = [];
      for (let h = dueHour(from); h <= dueHour(to - 1); h++) {
        let pageState: string | undefined;
        do {
          const rs = await this.client.execute(
            'SELECT due_at, org_id, transaction_id, trace_guid, partner_key FROM proc_ack_deadlines WHERE due_hour = ? AND due_at >= ? AND due_at < ?',
            [long(h), long(from), long(to)],
            { prepare: true, fetchSize: 1000, ...(pageState ? { pageState } : {}) },
          );
          for (const r of rs.rows) {
            out.push({ dueAt: num(r.get('due_at')), organizationId: str(r.get('org_id')), transactionId: str(r.get('transaction_id')), traceGuid: str(r.get('trace_guid')), partnerKey: str(r.get('partner_key')) });
          }
          pageState = rs.pageState ?? undefined;
        } while (pageState);
      }
      return out;
    });
  }

  done(d: AcknowledgmentDeadline): Promise<void> {
    return guardStore('acknowledgment deadline delete', async () => {
      await this.client.execute('DELETE FROM proc_ack_deadlines WHERE due_hour = ? AND due_at = ? AND org_id = ? AND transaction_id = ?', [long(dueHour(d.dueAt)), long(d.dueAt), d.organizationId, d.transactionId], {
        prepare: true,
      });
    });
  }
}
