/**
 * Rate-limit windows in Cassandra (migrations/0120, table `rate_limit_tallies`), so every API
 * replica counts against one budget. Each replica keeps its own row per (key, scope, window)
 * holding how many requests it has counted; `tally` writes the replica's new tally, then reads
 * the partition back (one row per replica) and returns the sum. Both at LOCAL_QUORUM (the
 * client's default), so of any two tallies written the one written last reads the other: the
 * middleware's admission rule (src/http/middleware/rate-limit.ts) then never admits more than
 * the budget across replicas, whatever the interleaving.
 */
import type { Client } from 'cassandra-driver';
import cassandra from 'cassandra-driver';
import type { RateLimitStore } from '../../domain/config-ports.ts';
import { guardStore } from './guard.ts';

const WRITE = 'INSERT INTO rate_limit_tallies (key_id, scope, window_start, replica_id, tally) VALUES (?, ?, ?, ?, ?)';
const READ = 'SELECT tally FROM rate_limit_tallies WHERE key_id = ? AND scope = ? AND window_start = ?';

export class CassandraRateLimitStore implements RateLimitStore {
  constructor(private readonly client: Client) {}

  tally(scope: string, keyId: string, windowStart: number, replicaId: string, tally: number): Promise<number> {
    return guardStore('rate-limit update', async () => {
      await this.client.execute(WRITE, [keyId, scope, windowStart, replicaId, cassandra.types.Long.fromNumber(tally)], { prepare: true });
      const read = await this.client.execute(READ, [keyId, scope, windowStart], { prepare: true });
      let total = 0;
      for (const r of read.rows) total += Number(r.get('tally') ?? 0);
      return total;
    });
  }
}
