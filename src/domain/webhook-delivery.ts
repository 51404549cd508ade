/**
 * The webhook delivery contract, as pure functions: the stable `webhook-id` of a delivery, and
 * the retry schedule (at most 6 attempts in all, delays of 1, 2, 4, 8 and 16 seconds between
 * them, a receiver's `Retry-After` of at most 60 seconds honoured). The waiting itself is the
 * pipeline's (delay topics); nothing here sleeps.
 */
import { createHash } from 'node:crypto';

/**
 * The `webhook-id` of delivering one result to one webhook: `msg_` and 32 hexadecimal digits of
 * SHA-256(resultId NUL webhookId). The same on every attempt and on a redelivery of the same
 * result, so a receiver deduplicates on it; different per webhook, so two targets of one result
 * never share an id. Stored ids derive from it: a change of derivation re-keys deliveries.
 */
export function webhookMessageId(resultId: string, webhookId: string): string {
  return `msg_${createHash('sha256').update(`${resultId}\u0000${webhookId}`).digest('hex').slice(0, 32)}`;
}

/** Attempts of one delivery, the first included. */
export const WEBHOOK_MAX_ATTEMPTS = 6;

/** Delay before attempt n+1 after attempt n failed, for n = 1..5. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000, 16_000];

/** A `Retry-After` longer than this is not honoured (the normal schedule applies). */
export const WEBHOOK_MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before the next attempt, after attempt number `attempt` (1-based) failed in a retryable
 * way; undefined when it was the last attempt allowed. A `retryAfterMs` (already limited to
 * 60 s by `parseRetryAfter`) is honoured: the wait is never shorter than the receiver asked,
 * nor shorter than the schedule.
 */
export function nextWebhookDelayMs(attempt: number, retryAfterMs?: number): number | undefined {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be an integer from 1, got ${attempt}`);
  if (attempt >= WEBHOOK_MAX_ATTEMPTS) return undefined;
  const scheduled = WEBHOOK_RETRY_DELAYS_MS[attempt - 1]!;
  if (retryAfterMs === undefined || !(retryAfterMs >= 0) || retryAfterMs > WEBHOOK_MAX_RETRY_AFTER_MS) return scheduled;
  return Math.max(scheduled, retryAfterMs);
}

/**
 * Reads a `Retry-After` header (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) into
 * milliseconds from `now`. Undefined when absent, unreadable, or longer than 60 s (such a
 * value is not honoured). A date in the past reads as 0.
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
  return ms <= WEBHOOK_MAX_RETRY_AFTER_MS ? ms : undefined;
}

/**
 * What one webhook call came to. `retryable`: 500, 502, 503, 504, 429, a timeout, a refused or
 * reset connection (with the receiver's `Retry-After` when it asked for at most 60 s); `final`:
 * any other answer, or a call that cannot be made. `statusCode` is absent when nothing
 * answered; the answer's body is never part of it.
 */
export type WebhookAttempt =
  | { readonly kind: 'delivered'; readonly statusCode: number; readonly contentType?: string }
  | { readonly kind: 'retryable'; readonly statusCode?: number; readonly contentType?: string; readonly retryAfterMs?: number; readonly reason: string }
  | { readonly kind: 'final'; readonly statusCode?: number; readonly contentType?: string; readonly reason: string };
