/**
 * Key lookups: concurrent requests with one key share a lookup, and a valid key is reused for
 * `cacheMs`, after which a revocation is seen; unknown keys are never remembered.
 */
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../../src/domain/api-keys.ts';
import { isTdxError } from '../../../../src/errors.ts';
import { authenticate } from '../../../../src/http/middleware/auth.ts';
import { createLogger } from '../../../../src/logger.ts';
import { FakeOrgs } from '../platform/fakes.ts';

class CountingOrgs extends FakeOrgs {
  lookups = 0;
  override async findKeyByHash(hash: string) {
    this.lookups += 1;
    await new Promise((r) => setTimeout(r, 5));
    return super.findKeyByHash(hash);
  }
}

const ctx = (key: string): Context => {
  const state: Record<string, unknown> = {};
  return { get: (h: string) => (h === 'authorization' ? `Key ${key}` : ''), state } as unknown as Context;
};

async function status(mw: ReturnType<typeof authenticate>, key: string): Promise<number> {
  try {
    await mw(ctx(key), () => Promise.resolve());
    return 200;
  } catch (err) {
    if (isTdxError(err)) return err.status;
    throw err;
  }
}

describe('authenticate', () => {
  const logger = createLogger({ logLevel: 'silent', serviceName: 'unit' });

  it('shares one lookup between concurrent requests with the same key, without a cache', async () => {
    const orgs = new CountingOrgs();
    const key = orgs.add('o', 'standard');
    const mw = authenticate({ keys: orgs, logger });
    expect(await Promise.all(Array.from({ length: 10 }, () => status(mw, key)))).toEqual(Array(10).fill(200));
    expect(orgs.lookups).toBe(1);
    await status(mw, key);
    expect(orgs.lookups).toBe(2);
  });

  it('reuses a valid key for cacheMs, then sees its revocation', async () => {
    let now = 1_000;
    const orgs = new CountingOrgs();
    const key = orgs.add('o', 'standard');
    const mw = authenticate({ keys: orgs, logger, cacheMs: 1000, now: () => now });
    expect(await status(mw, key)).toBe(200);
    await new Promise((r) => setTimeout(r, 1)); // the cache is filled once the lookup settled
    const id = [...orgs.keys.values()].find((k) => k.hash === hashApiKey(key))!.rec.id;
    await orgs.revokeKey('o', id, new Date().toISOString());
    now += 500;
    expect(await status(mw, key)).toBe(200);
    expect(orgs.lookups).toBe(1);
    now += 600;
    expect(await status(mw, key)).toBe(401);
    expect(await status(mw, key)).toBe(401);
    expect(orgs.lookups).toBe(3);
  });

  it('never remembers an unknown key', async () => {
    const orgs = new CountingOrgs();
    const mw = authenticate({ keys: orgs, logger, cacheMs: 60_000 });
    const stranger = `tdx_${'Q'.repeat(43)}`;
    expect(await status(mw, stranger)).toBe(401);
    expect(await status(mw, stranger)).toBe(401);
    expect(orgs.lookups).toBe(2);
  });
});
