/**
 * Per-key rate limits over fixed one-minute windows, counted in a store every API replica
 * shares (expiring rows in Cassandra), so N replicas together allow the budget once. Over the
 * budget: 429 `rate_limited` with `Retry-After` in whole seconds until the window ends.
 *
 * Budgets (DESIGN §3): `platform` 240/minute over every /platform endpoint; `replay` 10/minute
 * for resend and redeliver together (mount `rateLimit({ scope: 'replay', ... })` on those
 * routes, after the platform one).
 *
 * Counting is gathered per key: the requests of a key that arrive while this replica's previous
 * store call for that key is under way wait for the next one, which counts them all at once
 * (group commit). A store call writes this replica's running tally and reads the window's total
 * over every replica. A group of `n` requests whose call read a total `T` (itself included)
 * admits `min(n, budget - (T - n))` of them, in arrival order, and refuses the rest. Every
 * group's read sees at least every group written before it, so the groups admitted together
 * never pass the budget, across replicas, whatever the interleaving; and one replica alone
 * admits exactly the budget. Under load a key costs two store round trips per group instead of
 * two per request.
 */
import { randomUUID } from 'node:crypto';
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

/** How many of a group of `n` requests are admitted when the window's total, the group included, is `total`. */
export function admitted(n: number, total: number, budget: number): number {
  return Math.max(0, Math.min(n, budget - (total - n)));
}

interface Waiter {
  resolve(remaining: number | null): void;
  reject(err: unknown): void;
}

/** One key's count in one window on this replica. */
interface Tally {
  readonly windowStart: number;
  counted: number;
  waiting: Waiter[];
  busy: boolean;
}

export function rateLimit(opts: RateLimitOptions): Middleware {
  const now = opts.now ?? Date.now;
  const replicaId = randomUUID();
  const tallies = new Map<string, Tally>();
  // Keys whose budget this process has seen spent, with the window it was spent in. Counts only
  // grow within a window, so such a key is refused until the window ends without asking the
  // store again: a client hammering past its budget costs the shared store nothing more.
  const spent = new Map<string, number>();
  const refuse = (w: { retryAfterSeconds: number }): TdxError =>
    new TdxError('rate_limited', `Rate limit of ${opts.perMinute} requests a minute exceeded for this key${opts.scope === 'platform' ? '' : ` (${opts.scope})`}; retry in ${w.retryAfterSeconds} s.`, {
      details: { retryAfterSeconds: w.retryAfterSeconds, scope: opts.scope },
    });

  const flush = (keyId: string, t: Tally): void => {
    if (t.busy || t.waiting.length === 0) return;
    t.busy = true;
    const group = t.waiting.splice(0);
    t.counted += group.length;
    opts.store.tally(opts.scope, keyId, t.windowStart, replicaId, t.counted).then(
      (total) => {
        const ok = admitted(group.length, total, opts.perMinute);
        const before = total - group.length;
        group.forEach((w, i) => w.resolve(i < ok ? Math.max(0, opts.perMinute - (before + i + 1)) : null));
        if (total >= opts.perMinute) markSpent(keyId, t.windowStart);
        t.busy = false;
        flush(keyId, t);
      },
      (err: unknown) => {
        for (const w of group) w.reject(err);
        t.busy = false;
        flush(keyId, t);
      },
    );
  };

  const markSpent = (keyId: string, windowStart: number): void => {
    if (spent.size >= MEMO_MAX) for (const [k, start] of spent) if (start < windowStart) spent.delete(k);
    spent.set(keyId, windowStart);
  };

  /** Remaining budget after this request, or null when it is refused. */
  const count = (keyId: string, windowStart: number): Promise<number | null> => {
    let t = tallies.get(keyId);
    if (!t || t.windowStart !== windowStart) {
      if (tallies.size >= MEMO_MAX) for (const [k, v] of tallies) if (v.windowStart < windowStart && !v.busy && v.waiting.length === 0) tallies.delete(k);
      t = { windowStart, counted: 0, waiting: [], busy: false };
      tallies.set(keyId, t);
    }
    const tally = t;
    return new Promise<number | null>((resolve, reject) => {
      tally.waiting.push({ resolve, reject });
      flush(keyId, tally);
    });
  };

  return async (ctx, next) => {
    const { keyId } = authOf(ctx);
    const w = windowOf(now());
    const platform = opts.scope === 'platform';
    if (spent.get(keyId) === w.start) {
      if (platform) setHeaders(ctx, opts.perMinute, 0);
      throw refuse(w);
    }
    const remaining = await count(keyId, w.start);
    if (platform) setHeaders(ctx, opts.perMinute, remaining ?? 0);
    if (remaining === null) throw refuse(w);
    await next();
  };
}

/** Bound of the per-key memos before windows that ended are swept out of them. */
const MEMO_MAX = 10_000;

function setHeaders(ctx: Context, limit: number, remaining: number): void {
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(remaining));
}
