import { describe, expect, it } from 'vitest';
import { WEBHOOK_MAX_ATTEMPTS, nextWebhookDelayMs, parseRetryAfter, webhookMessageId } from '../../../src/domain/webhook-delivery.ts';

describe('nextWebhookDelayMs', () => {
  it('1, 2, 4, 8, 16 s after attempts 1 to 5; nothing after the 6th', () => {
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(6);
    expect([1, 2, 3, 4, 5, 6].map((a) => nextWebhookDelayMs(a))).toEqual([1000, 2000, 4000, 8000, 16000, undefined]);
    expect(nextWebhookDelayMs(7)).toBeUndefined();
  });

  it('adds up to 31 s of waiting over the 6 attempts', () => {
    let total = 0;
    for (let a = 1; nextWebhookDelayMs(a) !== undefined; a++) total += nextWebhookDelayMs(a)!;
    expect(total).toBe(31_000);
  });

  it('honours a Retry-After of at most 60 s, never waiting less than the schedule', () => {
    expect(nextWebhookDelayMs(1, 3000)).toBe(3000);
    expect(nextWebhookDelayMs(1, 60_000)).toBe(60_000);
    expect(nextWebhookDelayMs(5, 3000)).toBe(16_000);
    expect(nextWebhookDelayMs(2, 0)).toBe(2000);
    // longer than 60 s: not honoured, the schedule applies
    expect(nextWebhookDelayMs(1, 60_001)).toBe(1000);
    // the last attempt stays the last whatever the receiver asks
    expect(nextWebhookDelayMs(6, 3000)).toBeUndefined();
  });

  it('rejects attempt numbers that are not 1-based integers', () => {
    expect(() => nextWebhookDelayMs(0)).toThrow(RangeError);
    expect(() => nextWebhookDelayMs(1.5)).toThrow(RangeError);
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

  it('ignores absent, unreadable and over-60-second values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('2.5', now)).toBeUndefined();
    expect(parseRetryAfter('61', now)).toBeUndefined();
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:05:00 GMT', now)).toBeUndefined();
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
