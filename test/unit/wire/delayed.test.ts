import { describe, expect, it } from 'vitest';
import { delayTierFor, forwardAtMs } from '../../../src/wire/delayed.v1.ts';
import { loadConfig } from '../../../src/config.ts';
import { nextWebhookDelayMs } from '../../../src/domain/webhook-delivery.ts';
import { uploadDelayMs } from '../../../src/nodes/sftp_upload/step.ts';

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

describe('forwardAtMs (TDX_RETRY_DELAY_PERCENT)', () => {
  const written = 1_700_000_000_000;
  it('at 100 % (the default) forwards at dueAt, rounded up to the millisecond', () => {
    expect(loadConfig({}).retryDelayPercent).toBe(100);
    // the default schedule as the scheduler waits it out: 1, 2, 4, 8, 16 s after the write
    const schedule = [1, 2, 3, 4, 5].map((a) => uploadDelayMs(a));
    expect(schedule).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect([1, 2, 3, 4, 5].map((a) => nextWebhookDelayMs(a))).toEqual(schedule);
    for (const ms of schedule) expect(forwardAtMs((written + ms) * 1000, written, 100) - written).toBe(ms);
    expect(forwardAtMs((written + 1000) * 1000 + 1, written, 100)).toBe(written + 1001);
  });

  it('below 100 % waits that share of the time between the write and dueAt', () => {
    expect([1000, 2000, 4000, 8000, 16000].map((ms) => forwardAtMs((written + ms) * 1000, written, 25) - written)).toEqual([250, 500, 1000, 2000, 4000]);
    expect(forwardAtMs((written + 3) * 1000, written, 50) - written).toBe(2);
  });

  it('a message already due is forwarded at once, whatever the percentage', () => {
    expect(forwardAtMs((written - 5000) * 1000, written, 10)).toBe(written - 5000);
  });

  it('the setting takes 1 to 100 only', () => {
    expect(loadConfig({ TDX_RETRY_DELAY_PERCENT: '20' }).retryDelayPercent).toBe(20);
    expect(() => loadConfig({ TDX_RETRY_DELAY_PERCENT: '0' })).toThrow(/TDX_RETRY_DELAY_PERCENT/);
    expect(() => loadConfig({ TDX_RETRY_DELAY_PERCENT: '101' })).toThrow(/TDX_RETRY_DELAY_PERCENT/);
  });
});
