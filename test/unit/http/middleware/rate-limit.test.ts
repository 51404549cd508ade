/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
import type { Server } from 'node:http';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMiddleware } from '../../../../src/http/app.ts';
import { rateLimit, windowOf } from '../../../../src/http/middleware/rate-limit.ts';
import { createLogger } from '../../../../src/logger.ts';
import { FakeRateLimits } from '../platform/fakes.ts';
import { startHarness } from '../platform/harness.ts';

describe('windowOf', () => {
  it('aligns to the minute and rounds Retry-After up to whole seconds', () => {
    expect(windowOf(120_000)).toEqual({ start: 120_000, retryAfterSeconds: 60 });
    expect(windowOf(179_001)).toEqual({ start: 120_000, retryAfterSeconds: 1 });
    expect(windowOf(150_500)).toEqual({ start: 120_000, retryAfterSeconds: 30 });
  });
});

describe('rateLimit over a controlled clock', () => {
  const store = new FakeRateLimits();
  let clock = 600_000;
  let server: Server;
  let base = '';
  beforeAll(async () => {
    const app = new Koa();
    app.use(errorMiddleware(createLogger({ logLevel: 'silent', serviceName: 'unit' })));
    app.use(async (ctx, next) => {
      ctx.state['auth'] = { organizationId: 'o', keyId: ctx.get('x-key'), kind: 'standard' };
      await next();
    });
    app.use(rateLimit({ store, scope: 'platform', perMinute: 3, now: () => clock }));
    app.use((ctx) => {
      ctx.body = { ok: true };
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const addr = server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const call = (key: string) => fetch(base, { headers: { 'x-key': key } });

  it('admits the budget, then answers 429 with Retry-After to the end of the window', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('k1')).status);
    expect(statuses).toEqual([200, 200, 200]);
    clock = 600_000 + 17_400; // 42.6 s left in the window: Retry-After rounds up to 43
    const over = await call('k1');
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('43');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(((await over.json()) as any).error.code).toBe('rate_limited');
    // another key keeps its own budget
    expect((await call('k2')).status).toBe(200);
  });

  it('refuses a spent key for the rest of the window without asking the store, and admits it in the next', async () => {
    const before = store.calls;
    clock = 600_000 + 59_999;
    const again = await call('k1');
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toBe('1');
    expect(store.calls).toBe(before);
    clock = 660_000;
    expect((await call('k1')).status).toBe(200);
    expect(store.calls).toBe(before + 1);
  });
});

describe('rate limit on the /platform router', () => {
  let h: Awaited<ReturnType<typeof startHarness>>;
  beforeAll(async () => {
    h = await startHarness({ perMinute: 3 });
  });
  afterAll(async () => h.close());

  it('counts every /platform endpoint, documentation included, against one budget per key', async () => {
    const statuses: number[] = [];
    for (const p of ['/platform/sources', '/platform/openapi.json', '/platform/flows', '/platform/partners']) statuses.push((await h.get(p)).status);
    // the budget of 3 is spent by three different endpoints, documentation included
    expect(statuses).toEqual([200, 200, 200, 429]);
    const platform = [...h.rates.counts].filter(([k]) => k.startsWith('platform/'));
    expect(platform.reduce((n, [, c]) => n + c, 0)).toBe(3);
    expect(new Set(platform.map(([k]) => k.split('/')[1])).size).toBe(1);
  });
});
