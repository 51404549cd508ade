/**
 * The rate limiter's grouped counting: concurrent requests of a key share one store call, one
 * replica admits exactly the budget, and replicas sharing the store never admit more than it
 * together, whatever the order their store calls land in.
 */
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import type { RateLimitStore } from '../../../../src/domain/config-ports.ts';
import { isTdxError } from '../../../../src/errors.ts';
import { admitted, rateLimit } from '../../../../src/http/middleware/rate-limit.ts';

/** A shared store whose calls take a random while, so replicas interleave. */
class SlowStore implements RateLimitStore {
  calls = 0;
  private readonly rows = new Map<string, Map<string, number>>();
  constructor(private readonly maxDelayMs: number) {}
  async tally(scope: string, keyId: string, windowStart: number, replicaId: string, tally: number): Promise<number> {
    this.calls += 1;
    const k = `${scope}/${keyId}/${windowStart}`;
    await new Promise((r) => setTimeout(r, Math.random() * this.maxDelayMs));
    let rows = this.rows.get(k);
    if (!rows) this.rows.set(k, (rows = new Map<string, number>()));
    rows.set(replicaId, tally);
    await new Promise((r) => setTimeout(r, Math.random() * this.maxDelayMs));
    return [...(this.rows.get(k) ?? new Map<string, number>()).values()].reduce((a, b) => a + b, 0);
  }
}

const ctx = (keyId: string): Context => ({ state: { auth: { organizationId: 'o', keyId, kind: 'standard' } }, set: () => undefined }) as unknown as Context;

async function outcome(mw: ReturnType<typeof rateLimit>, keyId: string): Promise<'ok' | 'refused'> {
  try {
    await mw(ctx(keyId), () => Promise.resolve());
    return 'ok';
  } catch (err) {
    if (isTdxError(err) && err.code === 'rate_limited') return 'refused';
    throw err;
  }
}

describe('admitted', () => {
  it('admits what is left of the budget before the group, at most the group', () => {
    expect(admitted(5, 5, 20)).toBe(5);
    expect(admitted(5, 22, 20)).toBe(3);
    expect(admitted(5, 30, 20)).toBe(0);
    expect(admitted(1, 20, 20)).toBe(1);
    expect(admitted(1, 21, 20)).toBe(0);
  });
});

describe('grouped counting', () => {
  it('admits exactly the budget on one replica and shares store calls between concurrent requests', async () => {
    const store = new SlowStore(3);
    const mw = rateLimit({ store, scope: 'platform', perMinute: 20, now: () => 600_000 });
    const results = await Promise.all(Array.from({ length: 60 }, () => outcome(mw, 'k')));
    expect(results.filter((r) => r === 'ok')).toHaveLength(20);
    expect(store.calls).toBeLessThan(20);
  });

  it('never admits more than the budget across replicas, whatever the interleaving', async () => {
    for (let round = 0; round < 20; round++) {
      const store = new SlowStore(4);
      const replicas = [0, 1, 2].map(() => rateLimit({ store, scope: 'platform', perMinute: 25, now: () => 600_000 }));
      const results = await Promise.all(Array.from({ length: 90 }, (_, i) => outcome(replicas[i % 3]!, 'k')));
      const ok = results.filter((r) => r === 'ok').length;
      expect(ok).toBeLessThanOrEqual(25);
      expect(ok).toBeGreaterThan(0);
    }
  });

  it('admits exactly the budget across replicas taking turns, then refuses on each', async () => {
    const store = new SlowStore(1);
    const replicas = [0, 1].map(() => rateLimit({ store, scope: 'platform', perMinute: 10, now: () => 600_000 }));
    const seq: string[] = [];
    for (let i = 0; i < 10; i++) seq.push(await outcome(replicas[i % 2]!, 'k'));
    expect(seq).toEqual(Array(10).fill('ok'));
    expect(await outcome(replicas[0]!, 'k')).toBe('refused');
    expect(await outcome(replicas[1]!, 'k')).toBe('refused');
    // another key keeps its own budget
    expect(await outcome(replicas[0]!, 'other')).toBe('ok');
  });
});
