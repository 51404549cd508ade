import { TdxError } from '../../errors.ts';
import { isRetriable } from '../kafka/retriable.ts';

/**
 * Runs a store operation and classifies driver failures once, where they happen: a failure that
 * may pass (no host available, timeouts, overload: see ../kafka/retriable.ts) becomes
 * `store_unavailable` (retriable, 503); anything else (a CQL syntax error, an invalid query)
 * becomes `internal_error`, which is never retried and never shown as a passing outage.
 * Errors that already carry a code pass through.
 */
export async function guardStore<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw classifyStoreError(what, err);
  }
}

export function classifyStoreError(what: string, err: unknown): TdxError {
  if (err instanceof TdxError) return err;
  const message = `Cassandra ${what} failed: ${err instanceof Error ? err.message : String(err)}`;
  return new TdxError(isRetriable(err) ? 'store_unavailable' : 'internal_error', message, { cause: err });
}
