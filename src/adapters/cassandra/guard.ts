import { TdxError } from '../../errors.ts';

/**
 * Runs a store operation and maps driver failures to `store_unavailable` (retriable), so callers
 * see one code whatever the driver threw. Errors that already carry a code pass through.
 */
export async function guardStore<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof TdxError) throw err;
    throw new TdxError('store_unavailable', `Cassandra ${what} failed: ${(err as Error).message}`, { cause: err });
  }
}
