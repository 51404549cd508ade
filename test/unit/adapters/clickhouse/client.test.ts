import { describe, expect, it } from 'vitest';
import { chTime, fromChTime } from '../../../../src/adapters/clickhouse/client.ts';

describe('DateTime64(6) text', () => {
  it('writes microseconds since the epoch as UTC text with six decimals', () => {
    expect(chTime(1_763_726_400_123_456)).toBe('2025-11-21 12:00:00.123456');
    expect(chTime(5)).toBe('1970-01-01 00:00:00.000005');
  });

  it('reads it back to the same microsecond', () => {
    for (const us of [0, 1, 999_999, 1_763_726_400_123_456]) expect(fromChTime(chTime(us))).toBe(us);
    expect(fromChTime('2025-11-21 12:00:00.1')).toBe(1_763_726_400_100_000);
  });
});
