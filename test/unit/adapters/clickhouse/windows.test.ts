import { describe, expect, it } from 'vitest';
import { traceFloor, windows } from '../../../../src/adapters/clickhouse/records-store.ts';
import { LATEST_MICROS } from '../../../../src/domain/records.ts';

const H = 3_600_000_000;
const take = <T>(g: Iterable<T>, n = 20): T[] => {
  const out: T[] = [];
  for (const x of g) {
    out.push(x);
    if (out.length >= n) break;
  }
  return out;
};

describe('page windows', () => {
  it('walks back from the start in contiguous windows, each 16 times longer, the last one open', () => {
    const ws = take(windows('backward', 100 * H, null, 200 * H, 1000 * H, H));
    expect(ws).toEqual([
      { from: 99 * H, to: 100 * H },
      { from: 83 * H, to: 99 * H },
      { from: -173 * H, to: 83 * H },
      { from: null, to: -173 * H },
    ]);
  });

  it('stops at the lower bound and starts open above the present when the page has no start', () => {
    expect(take(windows('backward', null, 90 * H, 100 * H, 1000 * H, H))).toEqual([
      { from: 99 * H, to: null },
      { from: 90 * H, to: 99 * H },
    ]);
  });

  it('walks forward to the bound, and reads at once when there is no start', () => {
    expect(take(windows('forward', 10 * H, 30 * H, 0, 1000 * H, H))).toEqual([
      { from: 10 * H, to: 11 * H },
      { from: 11 * H, to: 27 * H },
      { from: 27 * H, to: null },
    ]);
    expect(take(windows('forward', null, 30 * H, 0, 1000 * H, H))).toEqual([{ from: null, to: null }]);
  });

  it('never walks further than the horizon before going open-ended', () => {
    const ws = take(windows('backward', 0, null, 0, 20 * H, H));
    expect(ws[ws.length - 1]).toEqual({ from: null, to: -17 * H });
    expect(ws.length).toBe(3);
  });
});

describe('trace floor', () => {
  it('reads the creation time of a UUIDv7 trace, an hour early, and nothing from other ids', () => {
    // 0x019a2b3c4d5e ms since the epoch
    expect(traceFloor('019a2b3c-4d5e-7abc-8def-0123456789ab')).toBe(0x019a2b3c4d5e * 1000 - 3_600_000_000);
    expect(traceFloor('019a2b3c-4d5e-8abc-8def-0123456789ab')).toBeNull();
    expect(traceFloor('not-a-trace')).toBeNull();
    // a GUID dated past 2^53 microseconds (the year 10889) is held at the end of the stored span
    expect(traceFloor('ffffffff-ffff-7fff-bfff-ffffffffffff')).toBe(LATEST_MICROS);
    expect(traceFloor('00000000-0000-7000-8000-000000000000')).toBe(-3_600_000_000);
  });
});
