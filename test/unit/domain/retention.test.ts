import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { agedOut, remainingTtlSeconds, retentionCutoff, retentionText, visibleDeliveredAt } from '../../../src/domain/retention.ts';

const S = 1_000_000;
const DAY = 86_400;

describe('remainingTtlSeconds', () => {
  it('is the whole retention for a record created now', () => {
    expect(remainingTtlSeconds(1_000 * S, 1_000 * S, 45 * DAY)).toBe(45 * DAY);
  });

  it('is the rest of the record life for a later write, rounded up to a second', () => {
    // created 10.4 s ago with R = 60 s: 49.6 s left, written as 50
    expect(remainingTtlSeconds(1_000 * S, 1_010 * S + 400_000, 60)).toBe(50);
    expect(remainingTtlSeconds(1_000 * S, 1_059 * S, 60)).toBe(1);
  });

  it('never gives 0 (no expiry in Cassandra) for a record already past its retention', () => {
    expect(remainingTtlSeconds(1_000 * S, 1_060 * S, 60)).toBe(1);
    expect(remainingTtlSeconds(1_000 * S, 9_999 * S, 60)).toBe(1);
  });

  it('makes every write of a record expire together, at createdAt + R (within the rounding second)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 * 365 * DAY }), fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 10 * 365 * DAY * S }), (r, createdAt, age) => {
        const now = createdAt + age;
        const ttl = remainingTtlSeconds(createdAt, now, r);
        expect(ttl).toBeGreaterThanOrEqual(1);
        const expires = now + ttl * S;
        if (age < r * S) {
          expect(expires).toBeGreaterThanOrEqual(createdAt + r * S);
          expect(expires).toBeLessThan(createdAt + r * S + S);
        } else expect(ttl).toBe(1);
      }),
    );
  });
});

describe('reader cut-offs', () => {
  it('keeps a record while createdAt + R is after now', () => {
    expect(retentionCutoff(100 * S, 30)).toBe(70 * S);
    expect(agedOut(70 * S + 1, 100 * S, 30)).toBe(false);
    expect(agedOut(70 * S, 100 * S, 30)).toBe(true);
    expect(agedOut(10 * S, 100 * S, 30)).toBe(true);
  });

  it('shows deliveredAt until its feed entry ages out, then null', () => {
    expect(visibleDeliveredAt(null, 100 * S, 30)).toBeNull();
    expect(visibleDeliveredAt(80 * S, 100 * S, 30)).toBe(80 * S);
    expect(visibleDeliveredAt(70 * S, 100 * S, 30)).toBeNull();
  });
});

describe('retentionText', () => {
  it.each([
    [45 * DAY, '45 days'],
    [DAY, '1 day'],
    [7_200, '2 hours'],
    [120, '2 minutes'],
    [1, '1 second'],
    [15, '15 seconds'],
    [90, '90 seconds'],
  ])('%i s reads "%s"', (s, text) => {
    expect(retentionText(s)).toBe(text);
  });
});
