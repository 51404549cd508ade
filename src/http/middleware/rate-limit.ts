/**
 * Per-key rate limits over fixed one-minute windows, counted in a store every API replica
 * shares (Cassandra counters), so N replicas together allow the budget once. Over the budget:
 * 429 `rate_limited` with `Retry-After` in whole seconds until the window ends.
 *
 * Budgets (DESIGN §3): `platform` 240/minute over every /platform endpoint; `replay` 10/minute
 * for resend and redeliver together (mount `rateLimit({ scope: 'replay', ... })` on those
 * routes, after the platform one).
 */
import type { Middleware } from 'koa';
import type { RateLimitStore } from '../../domain/config-ports.ts';
import { TdxError } from '../../errors.ts';
import { authOf } from './state.ts';

export interface RateLimitOptions {
  readonly store: RateLimitStore;
  readonly scope: string;
  readonly perMinute: number;
  /** Clock, injectable for tests. */
  readonly now?: () => number;
}

const WINDOW_MS = 60_000;

/** Window start and whole seconds until the window ends (at least 1). */
export function windowOf(nowMs: number): { start: number; retryAfterSeconds: number } {
  const start = nowMs - (nowMs % WINDOW_MS);
  return { start, retryAfterSeconds: Math.max(1, Math.ceil((start + WINDOW_MS - nowMs) / 1000)) };
}

export function rateLimit(opts: RateLimitOptions): Middleware {
  const now = opts.now ?? Date.now;
  return async (ctx, next) => {
    const { keyId } = authOf(ctx);
    const w = windowOf(now());
    const count = await opts.store.hit(opts.scope, keyId, w.start);
    const remaining = Math.max(0, opts.perMinute - count);
    if (opts.scope === 'platform') {
      ctx.set('X-RateLimit-Limit', String(opts.perMinute));
      ctx.set('X-RateLimit-Remaining', String(remaining));
    }
    if (count > opts.perMinute) {
      throw new TdxError('rate_limited', `Rate limit of ${opts.perMinute} requests a minute exceeded for this key${opts.scope === 'platform' ? '' : ` (${opts.scope})`}; retry in ${w.retryAfterSeconds} s.`, {
        details: { retryAfterSeconds: w.retryAfterSeconds, scope: opts.scope },
      });
    }
    await next();
  };
}
