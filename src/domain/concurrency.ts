/**
 * The one bounded-concurrency helper: every loop that runs asynchronous work a few at a time
 * (store writes and reads of a pass, inline steps, schema registrations, recovery runs) goes
 * through it.
 */

/**
 * Runs `fn` over `items` with at most `limit` at once, in the items' order, and starts no
 * further item once `stop()` says so (the ones under way finish). Fails with the first failure
 * of `fn`, once the calls under way have ended.
 */
export async function eachLimit<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>, stop: () => boolean = () => false): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!stop()) {
      const i = next++;
      if (i >= items.length) return;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Runs `fn` over `items` with at most `limit` at once; the answers in the items' order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  await eachLimit(items, limit, async (item, i) => {
    out[i] = await fn(item, i);
  });
  return out;
}
