import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_RETRY_DELAYS_MS,
  DEFAULT_RETRY_POLICY,
  DELIVERY_MAX_ATTEMPTS,
  followedRetryAfter,
  longestDelayMs,
  nextRetryDelayMs,
  retryPolicyOf,
  retrySettingsProblem,
  scheduledDelayMs,
  type RetryPolicy,
} from '../../../src/domain/retry-policy.ts';
import { loadConfig } from '../../../src/config.ts';

const exact: RetryPolicy = { ...DEFAULT_RETRY_POLICY, jitterPercent: 0 };

describe('the default retry schedule', () => {
  it('is 6 attempts, 10 s, 1 min, 5 min, 15 min and 45 min apart, 15 s per attempt, up to +10 % jitter', () => {
    expect(DELIVERY_MAX_ATTEMPTS).toBe(6);
    expect(DEFAULT_RETRY_DELAYS_MS).toEqual([10_000, 60_000, 300_000, 900_000, 2_700_000]);
    expect(DEFAULT_ATTEMPT_TIMEOUT_MS).toBe(15_000);
    expect(DEFAULT_RETRY_POLICY.jitterPercent).toBe(10);
    expect([1, 2, 3, 4, 5, 6].map((attempt) => nextRetryDelayMs(exact, { attempt, seed: 's' }))).toEqual([10_000, 60_000, 300_000, 900_000, 2_700_000, undefined]);
  });

  it('spreads the attempts over more than an hour, whatever the jitter draws (it only adds)', () => {
    const total = DEFAULT_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total).toBe(3_970_000);
    for (let i = 0; i < 50; i++) {
      let waited = 0;
      for (let attempt = 1; attempt < DELIVERY_MAX_ATTEMPTS; attempt++) waited += nextRetryDelayMs(DEFAULT_RETRY_POLICY, { attempt, seed: `d-${i}-${attempt}` })!;
      expect(waited).toBeGreaterThanOrEqual(3_970_000);
      expect(waited).toBeLessThanOrEqual(3_970_000 * 1.1);
    }
  });

  it('is what the configuration gives when the environment says nothing', () => {
    const c = loadConfig({});
    expect(c.retry).toEqual({ delaysMs: [10_000, 60_000, 300_000, 900_000, 2_700_000], jitterPercent: 10, attemptTimeoutMs: 15_000 });
  });
});

describe('configuration', () => {
  it('scales the schedule through TDX_RETRY_DELAYS_SECONDS (fractions allowed)', () => {
    expect(loadConfig({ TDX_RETRY_DELAYS_SECONDS: '0.25, 0.5,1,2,4' }).retry.delaysMs).toEqual([250, 500, 1000, 2000, 4000]);
    expect(loadConfig({ TDX_RETRY_JITTER_PERCENT: '0', TDX_RETRY_ATTEMPT_TIMEOUT_MS: '2000' }).retry).toMatchObject({ jitterPercent: 0, attemptTimeoutMs: 2000 });
  });

  it.each(['1,2,3,4', '1,2,3,4,5,6', '1,2,x,4,5', '1,2,0,4,5', '1,,3,4,5', '1,2,3,4,90000'])('refuses TDX_RETRY_DELAYS_SECONDS=%s', (v) => {
    expect(() => loadConfig({ TDX_RETRY_DELAYS_SECONDS: v })).toThrow(/TDX_RETRY_DELAYS_SECONDS/);
  });

  it('refuses a jitter above 50 %', () => {
    expect(() => loadConfig({ TDX_RETRY_JITTER_PERCENT: '51' })).toThrow(/TDX_RETRY_JITTER_PERCENT/);
  });
});

describe('nextRetryDelayMs', () => {
  it('jitters each delay by up to +jitter (never earlier than the schedule), the same way for the same seed, differently across seeds', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const d = nextRetryDelayMs(DEFAULT_RETRY_POLICY, { attempt: 1, seed: `retry-${i}` })!;
      expect(d).toBeGreaterThanOrEqual(10_000);
      expect(d).toBeLessThanOrEqual(11_000);
      expect(nextRetryDelayMs(DEFAULT_RETRY_POLICY, { attempt: 1, seed: `retry-${i}` })).toBe(d);
      seen.add(d);
    }
    expect(seen.size).toBeGreaterThan(150);
  });

  it('honours Retry-After up to the longest delay of the policy, never waiting less than the schedule', () => {
    expect(nextRetryDelayMs(exact, { attempt: 1, retryAfterMs: 120_000, seed: 's' })).toBe(120_000);
    expect(nextRetryDelayMs(exact, { attempt: 1, retryAfterMs: 3_000, seed: 's' })).toBe(10_000);
    expect(nextRetryDelayMs(exact, { attempt: 1, retryAfterMs: 10 * 3_600_000, seed: 's' })).toBe(2_700_000);
    expect(nextRetryDelayMs(exact, { attempt: 4, retryAfterMs: 0, seed: 's' })).toBe(900_000);
    expect(nextRetryDelayMs(exact, { attempt: 6, retryAfterMs: 1000, seed: 's' })).toBeUndefined();
    expect(followedRetryAfter(exact, { attempt: 1, retryAfterMs: 120_000, seed: 's' }, 120_000)).toBe(true);
    expect(followedRetryAfter(exact, { attempt: 1, retryAfterMs: 3_000, seed: 's' }, 10_000)).toBe(false);
  });

  it('counts attempts from 1', () => {
    expect(() => nextRetryDelayMs(exact, { attempt: 0, seed: 's' })).toThrow(RangeError);
    expect(() => nextRetryDelayMs(exact, { attempt: 1.5, seed: 's' })).toThrow(RangeError);
  });
});

describe('per webhook or connection settings', () => {
  it('replace what they give and keep the deployment defaults for the rest', () => {
    const p = retryPolicyOf(DEFAULT_RETRY_POLICY, { delaysSeconds: [1, 2, 3, 4, 3600] });
    expect(p.delaysMs).toEqual([1000, 2000, 3000, 4000, 3_600_000]);
    expect(p.attemptTimeoutMs).toBe(15_000);
    expect(longestDelayMs(p)).toBe(3_600_000);
    expect(retryPolicyOf(DEFAULT_RETRY_POLICY, { attemptTimeoutSeconds: 30 }).attemptTimeoutMs).toBe(30_000);
    expect(retryPolicyOf(DEFAULT_RETRY_POLICY, null)).toBe(DEFAULT_RETRY_POLICY);
    expect(scheduledDelayMs({ ...p, jitterPercent: 0 }, 5, 'x')).toBe(3_600_000);
  });

  it('are checked: five delays, each above 0 and at most a day; a timeout up to 10 minutes', () => {
    expect(retrySettingsProblem({ delaysSeconds: [1, 2, 3] })).toMatch(/exactly 5/);
    expect(retrySettingsProblem({ delaysSeconds: [1, 2, 3, 4, 86_401] })).toMatch(/at most 86400/);
    expect(retrySettingsProblem({ delaysSeconds: [1, 2, 0, 4, 5] })).toMatch(/more than 0/);
    expect(retrySettingsProblem({ attemptTimeoutSeconds: 601 })).toMatch(/attemptTimeoutSeconds/);
    expect(retrySettingsProblem({ delaysSeconds: [10, 60, 300, 900, 2700], attemptTimeoutSeconds: 15 })).toBeUndefined();
    // an unusable block falls back to the defaults instead of breaking deliveries
    expect(retryPolicyOf(DEFAULT_RETRY_POLICY, { delaysSeconds: [1] })).toBe(DEFAULT_RETRY_POLICY);
  });
});
