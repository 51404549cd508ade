import { describe, expect, it } from 'vitest';
import { delayStep, delayTierFor, tierSecondsOf } from '../../../src/wire/delayed.v1.ts';
import { DEFAULT_RETRY_DELAYS_MS } from '../../../src/domain/retry-policy.ts';

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

describe('tierSecondsOf', () => {
  it('reads the width of a tier topic, with or without a prefix', () => {
    expect(tierSecondsOf('delay.16s')).toBe(16);
    expect(tierSecondsOf('t42.delay.60s')).toBe(60);
    expect(tierSecondsOf('stage.webhook')).toBeUndefined();
  });
});

describe('delayStep', () => {
  const written = 1_700_000_000_000;
  const due = (ms: number): number => (written + ms) * 1000;

  it('holds a message on its tier until its due time, then forwards it', () => {
    expect(delayStep(due(4000), written, 4, written + 3999)).toEqual({ action: 'wait', untilMs: written + 4000 });
    expect(delayStep(due(4000), written, 4, written + 4000)).toEqual({ action: 'forward' });
    // due time in microseconds is rounded up to the millisecond
    expect(delayStep(due(1000) + 1, written, 2, written + 1000)).toEqual({ action: 'wait', untilMs: written + 1001 });
  });

  it('a message already due is forwarded at once', () => {
    expect(delayStep(due(-5000), written, 60, written)).toEqual({ action: 'forward' });
  });

  it('never holds a message longer than its tier is wide: a later one hops to the tier of the time left', () => {
    // an AS2 Retry-After of 300 s written to the 60 s tier: held 60 s, then written again
    expect(delayStep(due(300_000), written, 60, written + 1000)).toEqual({ action: 'wait', untilMs: written + 60_000 });
    expect(delayStep(due(300_000), written, 60, written + 60_000)).toEqual({ action: 'hop', tier: 'delay.60s' });
    // the last stretch lands on a narrow tier, so it is forwarded on time
    expect(delayStep(due(70_000), written, 60, written + 60_000)).toEqual({ action: 'hop', tier: 'delay.16s' });
    expect(delayStep(due(70_000), written + 60_000, 16, written + 60_000)).toEqual({ action: 'wait', untilMs: written + 70_000 });
  });

  it('the default schedule\'s 45-minute wait is carried out by hops and forwarded at its due time, each hop holding its partition at most 60 s', () => {
    const longest = DEFAULT_RETRY_DELAYS_MS[DEFAULT_RETRY_DELAYS_MS.length - 1]!;
    expect(longest).toBe(2_700_000);
    const dueAt = due(longest);
    let tier = delayTierFor(longest);
    let at = written;
    let hops = 0;
    for (;;) {
      const width = tierSecondsOf(tier)!;
      const step = delayStep(dueAt, at, width, at);
      expect(step.action).toBe('wait');
      if (step.action !== 'wait') break;
      expect(step.untilMs - at).toBeLessThanOrEqual(width * 1000);
      const next = delayStep(dueAt, at, width, step.untilMs);
      if (next.action === 'forward') {
        expect(step.untilMs).toBe(written + longest);
        break;
      }
      expect(next.action).toBe('hop');
      if (next.action !== 'hop') break;
      tier = next.tier;
      at = step.untilMs;
      hops++;
    }
    expect(hops).toBe(44);
  });

  it('a short retry behind a long one on the same partition waits at most the tier width', () => {
    // head: due in 45 min, written first; behind it: due 20 s after its own write a second later
    const head = delayStep(due(2_700_000), written, 60, written + 1000);
    expect(head).toEqual({ action: 'wait', untilMs: written + 60_000 });
    const behindDue = written + 1000 + 20_000;
    expect(head.action === 'wait' && head.untilMs - behindDue).toBeLessThanOrEqual(60_000 - 16_000);
  });
});
