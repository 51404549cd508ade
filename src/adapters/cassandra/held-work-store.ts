/**
 * Held work in Cassandra (migrations/0150, table `held_work`): records whose send the broker did
 * not confirm, kept until the scheduler has produced them again. The shard of a record comes from
 * its id, so a record held twice is one row.
 */
import cassandra, { type Client } from 'cassandra-driver';
import type { HeldRecord, HeldWorkStore } from '../../domain/processing-ports.ts';
import { guardStore } from './guard.ts';

const SHARDS = 8;
const INSERT = 'INSERT INTO held_work (shard, id, topic, record_key, value, headers, held_at) VALUES (?, ?, ?, ?, ?, ?, ?)';
const SELECT = 'SELECT id, topic, record_key, value, headers, held_at FROM held_work WHERE shard = ? LIMIT ?';
const DELETE = 'DELETE FROM held_work WHERE shard = ? AND id = ?';

/** The shard of a record id (hex digest): its first two hex digits, modulo the shard count. */
export const shardOf = (id: string): number => Number.parseInt(id.slice(0, 2), 16) % SHARDS;

export class CassandraHeldWorkStore implements HeldWorkStore {
  readonly shards = SHARDS;
  constructor(private readonly client: Client) {}

  hold(records: readonly HeldRecord[]): Promise<void> {
    return guardStore('hold work', async () => {
      await Promise.all(
        records.map((r) =>
          this.client.execute(INSERT, [shardOf(r.id), r.id, r.topic, r.key, r.value, r.headers ? JSON.stringify(r.headers) : null, cassandra.types.Long.fromNumber(r.heldAt)], { prepare: true }),
        ),
      );
    });
  }

  list(shard: number, limit: number): Promise<HeldRecord[]> {
    return guardStore('read held work', async () => {
      const rs = await this.client.execute(SELECT, [shard, limit], { prepare: true });
      return rs.rows.map((row) => {
        const headers = row.get('headers') as string | null;
        const key = row.get('record_key') as string | null;
        return {
          id: String(row.get('id')),
          topic: String(row.get('topic')),
          key,
          value: row.get('value') as Buffer,
          ...(headers ? { headers: JSON.parse(headers) as Record<string, string> } : {}),
          heldAt: Number(row.get('held_at')),
        };
      });
    });
  }

  release(records: readonly HeldRecord[]): Promise<void> {
    return guardStore('release held work', async () => {
      await Promise.all(records.map((r) => this.client.execute(DELETE, [shardOf(r.id), r.id], { prepare: true })));
    });
  }
}
