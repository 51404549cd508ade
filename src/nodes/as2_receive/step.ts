/**
 * as2_receive, the pure part of posting an asynchronous MDN: the AS2 endpoint answers the
 * partner's request at once and hands the receipt to this node (work item `purpose: as2_mdn`:
 * `mdn.url`, `mdn.headers` (JSON), `mdn.body` (base64)), which posts it. A post that may pass
 * later is tried again through the delay topics (6 attempts, spaced by the deployment's retry
 * policy, ../retry.ts); each attempt is a log entry on the message's trace.
 */
import { DELIVERY_MAX_ATTEMPTS, type RetryPolicy, type TransferAttempt } from '../../domain/retry-policy.ts';
import { log } from '../outcomes.ts';
import { attemptWords, formatWait, planRetry } from '../retry.ts';
import { effects, type Effects, type StepContext } from '../step.ts';

/** Work items of as2_receive that carry a receipt to post rather than a received document. */
export const AS2_MDN_PURPOSE = 'as2_mdn';
export const MDN_POST_MAX_ATTEMPTS = DELIVERY_MAX_ATTEMPTS;

export interface ReceiptPostFacts {
  readonly url: string;
  /** The message the receipt answers. */
  readonly messageId: string;
  readonly attempt: number;
  readonly outcome: TransferAttempt & { readonly httpStatus: number | null };
  /** @default DEFAULT_RETRY_POLICY */
  readonly policy?: RetryPolicy;
}

export function receiptPosted(ctx: StepContext, f: ReceiptPostFacts): Effects {
  const m = ctx.message;
  const e = effects();
  const owner = `${m.id}:as2-mdn`;
  const o = f.outcome;
  if (o.kind === 'delivered') {
    e.logs.push(log(ctx, owner, f.attempt, 'info', `Asynchronous MDN for AS2 message ${f.messageId} posted to ${f.url} (HTTP ${f.outcome.httpStatus ?? '?'}).`));
    return e;
  }
  const plan = o.kind === 'retryable' ? planRetry(m, { ...(f.policy ? { policy: f.policy } : {}), attempt: f.attempt, from: ctx.now, reason: 'as2_mdn_retry' }) : undefined;
  if (plan) {
    e.logs.push(log(ctx, owner, f.attempt, 'warn', `Posting the asynchronous MDN for AS2 message ${f.messageId} to ${f.url} failed (${attemptWords(f.attempt)}): ${o.reason}; trying again in ${formatWait(plan.delayMs)}.`));
    e.later.push(plan.later);
    return e;
  }
  const tried = o.kind === 'retryable' ? ` after ${f.attempt} attempts` : '';
  e.logs.push(log(ctx, owner, f.attempt, 'error', `The asynchronous MDN for AS2 message ${f.messageId} could not be posted to ${f.url}${tried}: ${o.reason}. The partner has no receipt for it.`));
  return e;
}
