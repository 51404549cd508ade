import type { TdxError } from '../../errors.ts';
import { classifyStoreFailure } from '../transient.ts';

/**
 * Runs a store operation and classifies driver failures once, where they happen: a failure that
 * may pass (no host available, timeouts, overload: see ../transient.ts) becomes
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
  return classifyStoreFailure('Cassandra', what, err);
}
