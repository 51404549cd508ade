/**
 * The retry policy of every transfer to a system outside the service (webhook deliveries and
 * notifications, SFTP uploads, AS2 sends), as pure functions: how many attempts (the contract's
 * 6), how long to wait between them, how a receiver's `Retry-After` counts, and how long one
 * attempt may take. The waiting itself is the pipeline's (delay topics); nothing here sleeps.
 *
 * The default schedule spreads the six attempts over a little more than an hour (10 s, 1 min,
 * 5 min, 15 min, 45 min between them), so an outage of a receiver of up to an hour costs no
 * document. A deployment changes the default (`TDX_RETRY_DELAYS_SECONDS`), and a webhook or a
 * connection may carry its own (`retry`, an extension of the configuration file). Each delay is
 * lengthened by a jitter (`TDX_RETRY_JITTER_PERCENT`, up to +10 % by default; never shorter than
 * the schedule, so the default still spans more than an hour) drawn from the retry's own id, so
 * documents that failed together do not all come back at the same instant, and a failure handled
 * twice schedules its retry the same way.
 */
import { createHash } from 'node:crypto';

/** Attempts of one transfer, the first included (contract: webhook `maxAttempts`). */
export const DELIVERY_MAX_ATTEMPTS = 6;

/** The default delays before attempts 2 to 6: 10 s, 1 min, 5 min, 15 min, 45 min (1 h 16 min 10 s in all). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 300_000, 900_000, 2_700_000];

/** How long one attempt may take by default (a webhook call until its answer's status, an upload, an AS2 send). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15_000;

/** Default jitter: each delay is lengthened by up to this percentage of itself. */
export const DEFAULT_RETRY_JITTER_PERCENT = 10;

/** The longest delay a policy may ask for between two attempts (one day). */
export const MAX_RETRY_DELAY_MS = 86_400_000;

/** The longest per-attempt timeout a policy may ask for (10 minutes). */
export const MAX_ATTEMPT_TIMEOUT_MS = 600_000;

/** A transfer's retry policy, resolved. */
export interface RetryPolicy {
  /** Delays before attempts 2 to 6 (`DELIVERY_MAX_ATTEMPTS - 1` of them), in milliseconds. */
  readonly delaysMs: readonly number[];
  /** Jitter as a percentage of each delay (0 to 50): the delay is lengthened by up to this share. */
  readonly jitterPercent: number;
  /** How long one attempt may take. */
  readonly attemptTimeoutMs: number;
}

/**
 * The `retry` block of a webhook or a connection (an extension beyond the contract, stored with
 * the configuration): its own delays (5 of them, seconds, fractions allowed) and per-attempt
 * timeout (seconds). Whatever is left out comes from the deployment's defaults.
 */
export interface RetrySettings {
  readonly delaysSeconds?: readonly number[];
  readonly attemptTimeoutSeconds?: number;
}

/** The policy a deployment runs with when a webhook or connection says nothing. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  delaysMs: DEFAULT_RETRY_DELAYS_MS,
  jitterPercent: DEFAULT_RETRY_JITTER_PERCENT,
  attemptTimeoutMs: DEFAULT_ATTEMPT_TIMEOUT_MS,
});

/** What is wrong with a `retry` block, or undefined when it is usable. */
export function retrySettingsProblem(s: RetrySettings): string | undefined {
  if (s.delaysSeconds !== undefined) {
    const d = s.delaysSeconds;
    if (!Array.isArray(d) || d.length !== DELIVERY_MAX_ATTEMPTS - 1) return `retry.delaysSeconds must list exactly ${DELIVERY_MAX_ATTEMPTS - 1} delays (the waits before attempts 2 to ${DELIVERY_MAX_ATTEMPTS})`;
    for (const v of d) {
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v * 1000 > MAX_RETRY_DELAY_MS) return `retry.delaysSeconds: every delay is more than 0 and at most ${MAX_RETRY_DELAY_MS / 1000} s, got ${String(v)}`;
    }
  }
  if (s.attemptTimeoutSeconds !== undefined) {
    const t = s.attemptTimeoutSeconds;
    if (typeof t !== 'number' || !Number.isFinite(t) || t <= 0 || t * 1000 > MAX_ATTEMPT_TIMEOUT_MS) return `retry.attemptTimeoutSeconds is more than 0 and at most ${MAX_ATTEMPT_TIMEOUT_MS / 1000}, got ${String(t)}`;
  }
  return undefined;
}

/** The policy of one webhook or connection: its own `retry` settings over the deployment's defaults. */
export function retryPolicyOf(defaults: RetryPolicy, own: RetrySettings | null | undefined): RetryPolicy {
  if (!own || retrySettingsProblem(own) !== undefined) return defaults;
  return {
    delaysMs: own.delaysSeconds ? own.delaysSeconds.map((s) => Math.round(s * 1000)) : defaults.delaysMs,
    jitterPercent: defaults.jitterPercent,
    attemptTimeoutMs: own.attemptTimeoutSeconds !== undefined ? Math.round(own.attemptTimeoutSeconds * 1000) : defaults.attemptTimeoutMs,
  };
}

/** The longest delay the policy can ask for (what a `Retry-After` is honoured up to). */
export function longestDelayMs(policy: RetryPolicy): number {
  return Math.max(0, ...policy.delaysMs);
}

/** A number in [0, 1) drawn from `seed` (the same seed, the same number). */
export function unitFrom(seed: string): number {
  return createHash('sha256').update(seed).digest().readUInt32BE(0) / 2 ** 32;
}

/** The scheduled delay after attempt `attempt` failed, jitter applied (`seed`: the retry's id). */
export function scheduledDelayMs(policy: RetryPolicy, attempt: number, seed: string): number {
  const base = policy.delaysMs[attempt - 1] ?? longestDelayMs(policy);
  const spread = (base * Math.min(50, Math.max(0, policy.jitterPercent))) / 100;
  return Math.max(0, Math.round(base + spread * unitFrom(seed)));
}

export interface RetryDecisionInput {
  /** The attempt that just failed in a retryable way (1 for the first). */
  readonly attempt: number;
  /** The receiver's `Retry-After`, in milliseconds from now, when it sent one. */
  readonly retryAfterMs?: number | null;
  /** What the jitter is drawn from: the retry's work id. */
  readonly seed: string;
}

/**
 * The wait before the next attempt, or undefined when `attempt` was the last one allowed. A
 * receiver's `Retry-After` is honoured up to the longest delay of the policy: the wait is never
 * shorter than it asked (up to that bound), nor shorter than the schedule.
 */
export function nextRetryDelayMs(policy: RetryPolicy, input: RetryDecisionInput): number | undefined {
  const { attempt } = input;
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be an integer from 1, got ${attempt}`);
  if (attempt >= DELIVERY_MAX_ATTEMPTS) return undefined;
  const scheduled = scheduledDelayMs(policy, attempt, input.seed);
  const asked = input.retryAfterMs;
  if (asked === undefined || asked === null || !(asked >= 0)) return scheduled;
  return Math.max(scheduled, Math.min(asked, longestDelayMs(policy)));
}

/** Whether the wait chosen was the receiver's `Retry-After` rather than the schedule. */
export function followedRetryAfter(policy: RetryPolicy, input: RetryDecisionInput, delayMs: number): boolean {
  return input.retryAfterMs !== undefined && input.retryAfterMs !== null && delayMs > scheduledDelayMs(policy, input.attempt, input.seed);
}

/**
 * What one transfer attempt came to, whatever the transport: delivered, a failure that may pass
 * (tried again per the policy, with the receiver's `Retry-After` when it sent one), or a failure
 * that will not. `statusCode` is the answer's HTTP status when there was one.
 */
export type TransferAttempt =
  | { readonly kind: 'delivered'; readonly statusCode?: number; readonly contentType?: string }
  | { readonly kind: 'retryable'; readonly statusCode?: number; readonly contentType?: string; readonly retryAfterMs?: number; readonly reason: string }
  | { readonly kind: 'final'; readonly statusCode?: number; readonly contentType?: string; readonly reason: string };
