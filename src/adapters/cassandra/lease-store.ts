/**
 * The one lease store (src/domain/processing-ports.ts `LeaseStore`), over `scheduler_leases`
 * (migrations/0010_outbound.cql), with the positions of scheduler jobs (`scheduler_positions`).
 * Scheduler jobs and the SFTP poller take their leases here. Leases are written only with
 * lightweight transactions, so their conditions hold across replicas (no plain write of ours is
 * ever ordered before a Paxos write of the same row).
 */
import type { Client } from 'cassandra-driver';
import type { SchedulerLeaseStore } from '../../domain/processing-ports.ts';
import type { Micros } from '../../domain/records.ts';
import { guardStore } from './guard.ts';
import { long, num, str } from './cells.ts';

const TAKE = 'INSERT INTO scheduler_leases (name, holder) VALUES (?, ?) IF NOT EXISTS USING TTL ?';
const RENEW = 'UPDATE scheduler_leases USING TTL ? SET holder = ? WHERE name = ? IF holder = ?';

export class CassandraLeaseStore implements SchedulerLeaseStore {
  /**
   * Leases this store last took or renewed (`name`, then `holder`): their next `hold` tries the
   * renewal first, any other the taking first, so the usual case is one lightweight transaction
   * either way (a job renews the lease it keeps; a poll takes a lease it gave back). A wrong guess
   * costs a second transaction, never a wrong answer.
   */
  private readonly held = new Set<string>();

  constructor(private readonly client: Client) {}

  hold(name: string, holder: string, ttlSeconds: number): Promise<boolean> {
    return guardStore('lease', async () => {
      // whole seconds, counted by Cassandra from the whole second of the write: the lease lives
      // more than ttl - 1 seconds and at most ttl (holders renew well before)
      const ttl = Math.max(1, Math.ceil(ttlSeconds));
      const key = `${name}\n${holder}`;
      const renew = async (): Promise<boolean> => (await this.client.execute(RENEW, [ttl, holder, name, holder], { prepare: true })).wasApplied();
      let ok: boolean;
      if (this.held.has(key)) {
        ok = (await renew()) || (await this.client.execute(TAKE, [name, holder, ttl], { prepare: true })).wasApplied();
      } else {
        const taken = await this.client.execute(TAKE, [name, holder, ttl], { prepare: true });
        // not applied: the row as it stands comes back, holder included
        ok = taken.wasApplied() || (str(taken.first()?.get('holder')) === holder && (await renew()));
      }
      if (ok) this.held.add(key);
      else this.held.delete(key);
      return ok;
    });
  }

  release(name: string, holder: string): Promise<void> {
    return guardStore('lease release', async () => {
      this.held.delete(`${name}\n${holder}`);
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
