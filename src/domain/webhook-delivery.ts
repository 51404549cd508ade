/**
 * The webhook delivery contract, as pure functions: the stable `webhook-id` of a delivery, the
 * reading of a receiver's `Retry-After`, and what one call came to. The retry schedule (6
 * attempts, the delays between them) is every transfer's: retry-policy.ts. The waiting itself is
 * the pipeline's (delay topics); nothing here sleeps.
 */
import { createHash } from 'node:crypto';
import { DELIVERY_MAX_ATTEMPTS, MAX_RETRY_DELAY_MS, type TransferAttempt } from './retry-policy.ts';

/**
 * The `webhook-id` of delivering one result to one webhook: `msg_` and 32 hexadecimal digits of
 * SHA-256(resultId NUL webhookId). The same on every attempt and on a redelivery of the same
 * result, so a receiver deduplicates on it; different per webhook, so two targets of one result
 * never share an id. Stored ids derive from it: a change of derivation re-keys deliveries.
 */
export function webhookMessageId(resultId: string, webhookId: string): string {
  return `msg_${createHash('sha256').update(`${resultId}\u0000${webhookId}`).digest('hex').slice(0, 32)}`;
}

/** Attempts of one delivery, the first included (the contract's 6; the schedule is in retry-policy.ts). */
export const WEBHOOK_MAX_ATTEMPTS = DELIVERY_MAX_ATTEMPTS;

/**
 * Reads a `Retry-After` header (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) into
 * milliseconds from `now`. Undefined when absent or unreadable; a date in the past reads as 0,
 * and more than a day reads as a day. The retry policy honours it up to its longest delay.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // IMF-fixdate, or the obsolete RFC 850 / asctime forms, all of which Date.parse reads
    if (!/^[A-Za-z]{3}/.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now.getTime());
  }
  return Math.min(ms, MAX_RETRY_DELAY_MS);
}

/**
 * What one webhook call came to (every transfer's outcome type, retry-policy.ts). `retryable`:
 * 500, 502, 503, 504, 429, a timeout, a refused or reset connection (with the receiver's
 * `Retry-After` when it sent one); `final`: any other answer, or a call that cannot be made.
 * `statusCode` is absent when nothing answered; the answer's body is never part of it.
 */
export type WebhookAttempt = TransferAttempt;
