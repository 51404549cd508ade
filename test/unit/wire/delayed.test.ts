import { describe, expect, it } from 'vitest';
import { delayTierFor } from '../../../src/wire/delayed.v1.ts';

describe('delayTierFor', () => {
  it.each([
    [1, 'delay.1s'],
    [1000, 'delay.1s'],
    [1001, 'delay.2s'],
    [4000, 'delay.4s'],
    [16_000, 'delay.16s'],
    [16_001, 'delay.60s'],
    [60_000, 'delay.60s'],
    [600_000, 'delay.60s'],
  ])('%i ms goes to %s', (ms, tier) => {
    expect(delayTierFor(ms)).toBe(tier);
  });
});
