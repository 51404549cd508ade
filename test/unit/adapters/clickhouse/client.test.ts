import { describe, expect, it } from 'vitest';
import { chTime, fromChTime } from '../../../../src/adapters/clickhouse/client.ts';

describe('DateTime64(6) text', () => {
  it('writes microseconds since the epoch as UTC text with six decimals', () => {
    expect(chTime(1_763_726_400_123_456)).toBe('2025-11-21 12:00:00.123456');
    expect(chTime(5)).toBe('1970-01-01 00:00:00.000005');
    // before the epoch, and one second after another (the text of the last second is reused)
    expect(chTime(-1)).toBe('1969-12-31 23:59:59.999999');
    expect([1_763_726_400_999_999, 1_763_726_401_000_000, 1_763_726_400_000_001].map(chTime)).toEqual(['2025-11-21 12:00:00.999999', '2025-11-21 12:00:01.000000', '2025-11-21 12:00:00.000001']);
  });

  it('reads it back to the same microsecond', () => {
    for (const us of [0, 1, 999_999, 1_763_726_400_123_456]) expect(fromChTime(chTime(us))).toBe(us);
    expect(fromChTime('2025-11-21 12:00:00.1')).toBe(1_763_726_400_100_000);
  });
});
