/**
 * Cassandra implementations of the outbound ports (src/domain/processing-ports.ts):
 * acknowledgment deadlines, and the leases and positions of scheduler jobs, over the tables of
 * migrations/0010_outbound.cql.
 */
import cassandra, { type Client } from 'cassandra-driver';
import type { AcknowledgmentDeadline, AcknowledgmentDeadlineStore, SchedulerLeaseStore } from '../../domain/processing-ports.ts';
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

export class CassandraSchedulerLeases implements SchedulerLeaseStore {
  constructor(private readonly client: Client) {}

  hold(name: string, holder: string, ttlSeconds: number): Promise<boolean> {
    return guardStore('scheduler lease', async () => {
      const ttl = Math.max(1, Math.round(ttlSeconds));
      const renewed = await this.client.execute('UPDATE scheduler_leases USING TTL ? SET holder = ? WHERE name = ? IF holder = ?', [ttl, holder, name, holder], { prepare: true });
      if (renewed.wasApplied()) return true;
      const taken = await this.client.execute('INSERT INTO scheduler_leases (name, holder) VALUES (?, ?) IF NOT EXISTS USING TTL ?', [name, holder, ttl], { prepare: true });
      return taken.wasApplied();
    });
  }

  release(name: string, holder: string): Promise<void> {
    return guardStore('scheduler lease release', async () => {
      await this.client.execute('DELETE FROM scheduler_leases WHERE name = ? IF holder = ?', [name, holder], { prepare: true });
    });
  }

  position(name: string): Promise<Micros | null> {
    return guardStore('scheduler position read', async () => {
      const row = (await this.client.execute('SELECT position FROM scheduler_positions WHERE name = ?', [name], { prepare: true })).first();
      return row ? num(row.get('position')) : null;
    });
  }

  setPosition(name: string, position: Micros): Promise<void> {
    return guardStore('scheduler position write', async () => {
      await this.client.execute('INSERT INTO scheduler_positions (name, position) VALUES (?, ?)', [name, long(position)], { prepare: true });
    });
  }
}
