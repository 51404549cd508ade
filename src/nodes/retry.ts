/**
 * The one way a transfer step (webhook, sftp_upload, as2_send, as2_receive's receipt post)
 * schedules its next attempt: the retry policy (src/domain/retry-policy.ts) decides the wait,
 * the work item goes through the delay topics again under a retry work id derived from the
 * failing one (`retryWorkId`), carrying its attempt number in `params.deliveryAttempt`. Pure:
 * steps use it.
 */
import { DEFAULT_RETRY_POLICY, DELIVERY_MAX_ATTEMPTS, followedRetryAfter, nextRetryDelayMs, type RetryPolicy } from '../domain/retry-policy.ts';
import type { Micros } from '../domain/records.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import { retryWorkId } from './outcomes.ts';
import type { Later } from './step.ts';

/** This call's attempt number (1 for the first call of a transfer; retries carry it in `params.deliveryAttempt`). */
export function deliveryAttemptOf(m: StageMessage): number {
  const n = Number(m.params['deliveryAttempt'] ?? '1');
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

export interface RetryRequest {
  /** The policy of the webhook or connection. @default DEFAULT_RETRY_POLICY */
  readonly policy?: RetryPolicy;
  /** The attempt that failed. */
  readonly attempt: number;
  /** The receiver's `Retry-After` in milliseconds, when it sent one. */
  readonly retryAfterMs?: number | null;
  /** When the wait starts (micros): the end of the failed call. */
  readonly from: Micros;
  /** Why (`webhook_retry`, `sftp_upload_retry`...), carried by the delayed message. */
  readonly reason: string;
  /** Parameters the next attempt carries besides its attempt number. */
  readonly params?: Readonly<Record<string, string>>;
}

export interface RetryPlan {
  /** The next attempt's number. */
  readonly next: number;
  readonly delayMs: number;
  /** The wait is the receiver's `Retry-After`, longer than the schedule. */
  readonly askedByReceiver: boolean;
  readonly later: Later;
}

/** The next attempt of `m`, or undefined when `attempt` was the last one the contract allows. */
export function planRetry(m: StageMessage, r: RetryRequest): RetryPlan | undefined {
  const policy = r.policy ?? DEFAULT_RETRY_POLICY;
  const next = r.attempt + 1;
  const id = retryWorkId(m.id, next);
  const input = { attempt: r.attempt, retryAfterMs: r.retryAfterMs ?? null, seed: id };
  const delayMs = nextRetryDelayMs(policy, input);
  if (delayMs === undefined) return undefined;
  const dueAt = r.from + delayMs * 1000;
  return {
    next,
    delayMs,
    askedByReceiver: followedRetryAfter(policy, input, delayMs),
    later: { message: { ...m, id, createdAt: dueAt, params: { ...m.params, ...(r.params ?? {}), deliveryAttempt: String(next) } }, dueAt, reason: r.reason },
  };
}

/** `attempt` of the contract's 6, for log sentences. */
export function attemptWords(attempt: number): string {
  return `attempt ${attempt} of ${DELIVERY_MAX_ATTEMPTS}`;
}

/** A wait in words: `10 s`, `1.5 s`, `5 min`, `1 min 30 s`. */
export function formatWait(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  const whole = Math.round(s);
  const min = Math.floor(whole / 60);
  const rest = whole % 60;
  return rest === 0 ? `${min} min` : `${min} min ${rest} s`;
}
