/**
 * What the processing stores (control-numbers.ts, sandbox-receipts.ts) share: many prepared
 * statements at once with a bound (`executeConcurrent`).
 */
import cassandra, { type Client } from 'cassandra-driver';
import type { Params } from './cells.ts';

export const CONCURRENCY = 64;

export async function runConcurrent(client: Client, query: string, params: Params[]): Promise<void> {
  if (params.length === 0) return;
  if (params.length === 1) {
    await client.execute(query, params[0], { prepare: true });
    return;
  }
  await cassandra.concurrent.executeConcurrent(client, query, params, { concurrencyLevel: CONCURRENCY, raiseOnFirstError: true });
}
