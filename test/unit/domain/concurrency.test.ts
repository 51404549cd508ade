import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../../src/domain/concurrency.ts';

describe('mapLimit', () => {
  it('answers in the items\' order with at most `limit` running at once', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0, 6], 3, async (n, i) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, n * 3));
      running--;
      return `${i}:${n}`;
    });
    expect(out).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3', '5:0', '6:6']);
    expect(most).toBe(3);
  });

  it('runs nothing for no items, and fails with the first failure', async () => {
    expect(await mapLimit([], 4, () => Promise.reject(new Error('never')))).toEqual([]);
    await expect(mapLimit([1, 2, 3], 2, async (n) => (n === 2 ? Promise.reject(new Error('two')) : n))).rejects.toThrow('two');
  });
});
