import { describe, expect, it } from 'vitest';
import { nextFetch } from '../../../../src/adapters/kafka/idle-fetch.ts';

const own = { minBytes: 256 * 1024, maxWaitTime: 50 };

describe('the next fetch of a consumer marked to wait longer when idle', () => {
  it('asks for one byte and waits the idle wait once its fetches brought nothing for as long as that wait', () => {
    expect(nextFetch(own, 5000, false, 5000)).toEqual({ minBytes: 1, maxWaitTime: 5000 });
  });
  it('uses its own settings after a fetch that brought messages, and through a short gap', () => {
    expect(nextFetch(own, undefined, false, 5000)).toEqual(own);
    expect(nextFetch(own, 4999, false, 5000)).toEqual(own);
  });
  it('keeps its own short wait while a partition is paused (a resumed partition waits for the fetch in progress)', () => {
    expect(nextFetch(own, 60_000, true, 5000)).toEqual(own);
  });
  it('never waits less than its own wait, and a group not marked fetches as configured', () => {
    expect(nextFetch({ minBytes: 1, maxWaitTime: 8000 }, 60_000, false, 5000)).toEqual({ minBytes: 1, maxWaitTime: 8000 });
    expect(nextFetch(own, 60_000, false, undefined)).toEqual(own);
  });
});
