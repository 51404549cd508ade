/**
 * The one bounded-concurrency helper: every loop that runs asynchronous work a few at a time
 * (store writes of a pass, inline steps, schema registrations) goes through it.
 */

/** Runs `fn` over `items` with at most `limit` at once; the answers in the items' order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
