import { describe, expect, it } from 'vitest';
import { eachLimit, mapLimit } from '../../../src/domain/concurrency.ts';

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

describe('eachLimit', () => {
  it('starts no further item once stop says so, and lets the ones under way finish', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    let stopped = false;
    await eachLimit(
      [0, 1, 2, 3, 4, 5, 6, 7],
      2,
      async (n) => {
        started.push(n);
        if (n === 2) stopped = true;
        await new Promise((r) => setTimeout(r, 2));
        finished.push(n);
      },
      () => stopped,
    );
    // 0 and 1 first, then 2 in the place of the first to finish; 2 says stop, so when the other
    // of 0 and 1 ends its worker takes nothing more, and 2 still finishes
    expect(started).toEqual([0, 1, 2]);
    expect([...finished].sort()).toEqual([0, 1, 2]);
  });
});
