import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { windowOf } from '../../../../src/http/middleware/rate-limit.ts';
import { startHarness } from '../platform/harness.ts';

describe('windowOf', () => {
  it('aligns to the minute and rounds Retry-After up to whole seconds', () => {
    expect(windowOf(120_000)).toEqual({ start: 120_000, retryAfterSeconds: 60 });
    expect(windowOf(179_001)).toEqual({ start: 120_000, retryAfterSeconds: 1 });
    expect(windowOf(150_500)).toEqual({ start: 120_000, retryAfterSeconds: 30 });
  });
});

describe('rate limit middleware', () => {
  let h: Awaited<ReturnType<typeof startHarness>>;
  beforeAll(async () => {
    h = await startHarness({ perMinute: 3 });
  });
  afterAll(async () => h.close());

  it('answers 429 rate_limited with Retry-After once the key spends its budget, per key', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await h.get('/platform/sources')).status);
    const over = await h.get('/platform/openapi.json');
    // a fresh minute may start between the requests; then the 4th is still inside the budget
    if (statuses.every((s) => s === 200) && over.status === 429) {
      expect(over.body.error.code).toBe('rate_limited');
      const retry = Number(over.headers.get('retry-after'));
      expect(Number.isInteger(retry) && retry >= 1 && retry <= 60).toBe(true);
    } else {
      expect(over.status).toBe(200);
    }
    expect((await h.get('/platform/sources', h.keys.readOnly)).status).toBe(200);
  });
});
