/**
 * Cassandra implementation of the ReplayLedger port (src/domain/processing-ports.ts): the replay
 * commands done (`proc_replays`, migrations/0008_processing.cql). Statements are prepared.
 */
import type { Client } from 'cassandra-driver';
import type { ReplayLedger } from '../../domain/processing-ports.ts';
import type { Micros } from '../../domain/records.ts';
import { guardStore } from './guard.ts';
import { long } from './cells.ts';

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
