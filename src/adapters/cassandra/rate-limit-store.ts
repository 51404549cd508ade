/**
 * Rate-limit windows in Cassandra counters (migrations/0100), so every API replica counts
 * against one budget. Increment, then read: a request is over the limit when the count it
 * reads exceeds the budget.
 */
import type { Client } from 'cassandra-driver';
import type { RateLimitStore } from '../../domain/config-ports.ts';
import { TdxError } from '../../errors.ts';

export class CassandraRateLimitStore implements RateLimitStore {
  constructor(private readonly client: Client) {}

  async hit(scope: string, keyId: string, windowStart: number): Promise<number> {
    try {
      const params = [keyId, scope, windowStart];
      await this.client.execute('UPDATE rate_limit_windows SET hits = hits + 1 WHERE key_id = ? AND scope = ? AND window_start = ?', params, { prepare: true });
      const row = (await this.client.execute('SELECT hits FROM rate_limit_windows WHERE key_id = ? AND scope = ? AND window_start = ?', params, { prepare: true })).first();
      const v = row?.get('hits') as { toNumber(): number } | undefined;
      return v ? v.toNumber() : 1;
    } catch (err) {
      throw new TdxError('store_unavailable', `Cassandra rate-limit update failed: ${(err as Error).message}`, { cause: err });
    }
  }
}
