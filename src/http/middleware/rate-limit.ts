/**
 * Per-key rate limits over fixed one-minute windows, counted in a store every API replica
 * shares (expiring rows in Cassandra), so N replicas together allow the budget once. Over the budget:
 * 429 `rate_limited` with `Retry-After` in whole seconds until the window ends.
 *
 * Budgets (DESIGN §3): `platform` 240/minute over every /platform endpoint; `replay` 10/minute
 * for resend and redeliver together (mount `rateLimit({ scope: 'replay', ... })` on those
 * routes, after the platform one).
 */
import type { Context, Middleware } from 'koa';
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
  // Keys whose budget this process has seen spent, with the window it was spent in. Counts only
  // grow within a window, so such a key is refused until the window ends without asking the
  // store again: a client hammering past its budget costs the shared store nothing more.
  const spent = new Map<string, number>();
  const refuse = (w: { retryAfterSeconds: number }): TdxError =>
    new TdxError('rate_limited', `Rate limit of ${opts.perMinute} requests a minute exceeded for this key${opts.scope === 'platform' ? '' : ` (${opts.scope})`}; retry in ${w.retryAfterSeconds} s.`, {
      details: { retryAfterSeconds: w.retryAfterSeconds, scope: opts.scope },
    });
  return async (ctx, next) => {
    const { keyId } = authOf(ctx);
    const w = windowOf(now());
    const platform = opts.scope === 'platform';
    if (spent.get(keyId) === w.start) {
      if (platform) setHeaders(ctx, opts.perMinute, 0);
      throw refuse(w);
    }
    const count = await opts.store.hit(opts.scope, keyId, w.start, opts.perMinute);
    if (platform) setHeaders(ctx, opts.perMinute, Math.max(0, opts.perMinute - count));
    if (count > opts.perMinute) {
      if (spent.size >= SPENT_MAX) for (const [k, start] of spent) if (start < w.start) spent.delete(k);
      spent.set(keyId, w.start);
      throw refuse(w);
    }
    await next();
  };
}

/** Bound of the spent-keys memo before windows that ended are swept out of it. */
const SPENT_MAX = 10_000;

function setHeaders(ctx: Context, limit: number, remaining: number): void {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(remaining));
}
