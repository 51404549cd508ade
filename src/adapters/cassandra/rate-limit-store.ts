/**
 * Rate-limit windows in Cassandra (migrations/0102), so every API replica counts against one
 * budget. A hit inserts one row into the window's partition (expiring after 120 s), then
 * reads the partition back, at most `cap + 1` rows. Both at LOCAL_QUORUM (the client's
 * default), so of any set of hits the one written last reads every other: the budget is
 * never exceeded across replicas, whatever the interleaving.
 */
import type { Client } from 'cassandra-driver';
import type { RateLimitStore } from '../../domain/config-ports.ts';
import { guardStore } from './guard.ts';

const INSERT = 'INSERT INTO rate_limit_hits (key_id, scope, window_start, hit_id) VALUES (?, ?, ?, now())';
const COUNT = 'SELECT hit_id FROM rate_limit_hits WHERE key_id = ? AND scope = ? AND window_start = ? LIMIT ?';

export class CassandraRateLimitStore implements RateLimitStore {
  constructor(private readonly client: Client) {}

  hit(scope: string, keyId: string, windowStart: number, cap: number): Promise<number> {
    return guardStore('rate-limit update', async () => {
      await this.client.execute(INSERT, [keyId, scope, windowStart], { prepare: true });
      const read = await this.client.execute(COUNT, [keyId, scope, windowStart, cap + 1], { prepare: true, fetchSize: cap + 1 });
      return read.rowLength;
    });
  }
}
