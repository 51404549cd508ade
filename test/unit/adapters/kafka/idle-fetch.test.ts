import { describe, expect, it } from 'vitest';
import { nextFetch } from '../../../../src/adapters/kafka/idle-fetch.ts';

const own = { minBytes: 256 * 1024, maxWaitTime: 50 };

describe('the next fetch of a consumer marked to wait longer when idle', () => {
  it('asks for one byte and waits the idle wait after a fetch that brought nothing', () => {
    expect(nextFetch(own, true, false, 5000)).toEqual({ minBytes: 1, maxWaitTime: 5000 });
  });
  it('uses its own settings after a fetch that brought messages', () => {
    expect(nextFetch(own, false, false, 5000)).toEqual(own);
  });
  it('keeps its own short wait while a partition is paused (a resumed partition waits for the fetch in progress)', () => {
    expect(nextFetch(own, true, true, 5000)).toEqual(own);
  });
  it('never waits less than its own wait, and a group not marked fetches as configured', () => {
    expect(nextFetch({ minBytes: 1, maxWaitTime: 8000 }, true, false, 5000)).toEqual({ minBytes: 1, maxWaitTime: 8000 });
    expect(nextFetch(own, true, false, undefined)).toEqual(own);
  });
});
