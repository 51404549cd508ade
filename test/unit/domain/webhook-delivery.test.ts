import { describe, expect, it } from 'vitest';
import { WEBHOOK_MAX_ATTEMPTS, parseRetryAfter, webhookMessageId } from '../../../src/domain/webhook-delivery.ts';

describe('WEBHOOK_MAX_ATTEMPTS', () => {
  it('is the contract\'s 6 (the schedule is the retry policy\'s: test/unit/domain/retry-policy.test.ts)', () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(6);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  it('reads delay-seconds and HTTP-dates (RFC 9110 §10.2.3)', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 60 ', now)).toBe(60_000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sunday, 01-Mar-26 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent and unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('2.5', now)).toBeUndefined();
  });

  it('reads long waits too (the policy honours them up to its longest delay), at most a day', () => {
    expect(parseRetryAfter('300', now)).toBe(300_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('999999', now)).toBe(86_400_000);
  });
});

describe('webhookMessageId', () => {
  it('is stable for one result and webhook, different across either (pinned: stored ids derive from it)', () => {
    const id = webhookMessageId('0190f0c2-0000-8000-8000-000000000001', '0190f0c2-0000-7000-8000-0000000000aa');
    expect(id).toBe('msg_adabf0b193faae598099e55c89f33efe');
    expect(webhookMessageId('0190f0c2-0000-8000-8000-000000000001', '0190f0c2-0000-7000-8000-0000000000aa')).toBe(id);
    expect(webhookMessageId('0190f0c2-0000-8000-8000-000000000002', '0190f0c2-0000-7000-8000-0000000000aa')).not.toBe(id);
    expect(webhookMessageId('0190f0c2-0000-8000-8000-000000000001', '0190f0c2-0000-7000-8000-0000000000ab')).not.toBe(id);
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
  });
});
