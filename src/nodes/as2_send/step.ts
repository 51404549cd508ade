/**
 * as2_send, the pure part: the outcome of sending a document (an outbound business document, the
 * sets of one interchange, or a 997) to the partner's AS2 endpoint.
 *
 * - A positive receipt (sync): each transaction is delivered (`deliveredOutbound`), with
 *   `detail.as2` (message id, MDN status, MIC...).
 * - Sent in async MDN mode: nothing is decided yet; a log entry says the receipt is awaited, and
 *   the receipt (`POST /as2/mdn`) or its absence by the deadline (the receipt-wait job) settles
 *   the delivery through `receiptSettled`.
 * - A failure that may pass (refused, reset, timeout, 5xx, 429) is tried again through the delay
 *   topics with the same Message-ID (the partner recognizes a duplicate), spaced by the
 *   connection's retry policy (../retry.ts; a partner's Retry-After honoured up to the longest
 *   delay); after the last attempt, or at once for a negative or invalid receipt, each
 *   transaction gets an error result. A resend is a new transmission: a new Message-ID.
 */
import { as2MessageIdForWork, type As2ReceiptOutcome, type As2SendReport } from '../../domain/as2-delivery.ts';
import { DELIVERY_MAX_ATTEMPTS, type RetryPolicy, type TransferAttempt } from '../../domain/retry-policy.ts';
import type { ConnectionRecord } from '../../domain/configuration.ts';
import type { ArtifactPointer, ResultDetail } from '../../domain/records.ts';
import { isoMicros } from '../../domain/records.ts';
import { log } from '../outcomes.ts';
import { deliveredOutbound, deliveryFailure } from '../outbound.ts';
import { attemptWords, formatWait, planRetry } from '../retry.ts';
import { effects, type Effects, type StepContext } from '../step.ts';

/** Attempts of one transmission in all (every transfer's, retry-policy.ts). */
export const AS2_SEND_MAX_ATTEMPTS = DELIVERY_MAX_ATTEMPTS;

/** A report in the one transfer outcome type (what the retry decision reads). */
export function as2Attempt(report: As2SendReport): TransferAttempt {
  if (report.status !== 'failed') return { kind: 'delivered', ...(report.detail.httpStatus === null ? {} : { statusCode: report.detail.httpStatus }) };
  const common = { ...(report.detail.httpStatus === null ? {} : { statusCode: report.detail.httpStatus }), reason: report.error ?? 'unknown error' };
  return report.retryable ? { kind: 'retryable', ...common, ...(report.retryAfterSeconds === null ? {} : { retryAfterMs: report.retryAfterSeconds * 1000 }) } : { kind: 'final', ...common };
}

/** The report of an attempt that took longer than the connection's policy allows (retryable, the same Message-ID next time). */
export function timedOutReport(connection: ConnectionRecord, messageId: string, ms: number): As2SendReport {
  const as2 = connection.as2;
  const error = `no answer within ${ms} ms (the attempt's timeout)`;
  return {
    status: 'failed',
    retryable: true,
    retryAfterSeconds: null,
    error,
    deadline: null,
    detail: {
      messageId: messageId.replace(/^<|>$/g, ''),
      from: as2?.localId ?? '',
      to: as2?.partnerId ?? '',
      url: as2?.url ?? '',
      mdnMode: as2?.mdn.mode === 'async' ? 'async' : 'sync',
      mdnStatus: 'failed',
      mic: null,
      returnedMic: null,
      micMatched: null,
      disposition: null,
      mdnMessageId: null,
      httpStatus: null,
      error,
    },
  };
}

/** The Message-ID of this transmission: the one its first attempt used, else fresh from this work item. */
export function messageIdOf(ctx: StepContext, localId: string): string {
  return ctx.message.params['as2.messageId'] ?? as2MessageIdForWork(localId, ctx.message.id);
}

export interface SentFacts {
  readonly document: ArtifactPointer;
  readonly filename: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  readonly messageId: string;
  readonly report: As2SendReport;
  /** The document is a business document whose 997 is tracked. */
  readonly tracked: boolean;
  /** The connection's retry policy. @default DEFAULT_RETRY_POLICY */
  readonly policy?: RetryPolicy;
  /** When the attempt ended (micros). @default ctx.now */
  readonly endedAt?: number;
}

function failureSentence(filename: string, to: string, url: string, error: string | null, tried = ''): string {
  const sentence = `AS2 delivery of ${filename} to ${to} (${url}) failed${tried}: ${error ?? 'unknown error'}`;
  return /[.!?)]$/.test(sentence) ? sentence : `${sentence}.`;
}

export function as2Sent(ctx: StepContext, f: SentFacts): Effects {
  const m = ctx.message;
  const d = f.report.detail;
  const as2: ResultDetail = { as2: { ...d } };
  if (f.report.status === 'processed') {
    return deliveredOutbound(ctx, { document: f.document, detail: as2, keepsPayload: false, tracked: f.tracked });
  }
  if (f.report.status === 'pending') {
    const e = effects();
    const until = f.report.deadline === null ? '' : ` until ${isoMicros(f.report.deadline)}`;
    e.logs.push(log(ctx, `${m.id}:as2`, f.attempt, 'info', `Sent ${f.filename} to ${d.to} over AS2 as message ${d.messageId}; awaiting the asynchronous MDN${until}.`));
    return e;
  }
  const attempt = as2Attempt(f.report);
  const plan =
    attempt.kind === 'retryable'
      ? planRetry(m, { ...(f.policy ? { policy: f.policy } : {}), attempt: f.attempt, retryAfterMs: attempt.retryAfterMs ?? null, from: f.endedAt ?? ctx.now, reason: 'as2_send_retry', params: { 'as2.messageId': f.messageId } })
      : undefined;
  if (plan) {
    const e = effects();
    const asked = plan.askedByReceiver ? ' (as the partner asked with Retry-After)' : '';
    e.logs.push(
      log(ctx, `${m.id}:as2`, f.attempt, 'warn', `AS2 delivery of ${f.filename} to ${d.to} (${d.url}) failed (${attemptWords(f.attempt)}): ${f.report.error ?? 'unknown error'}; trying again in ${formatWait(plan.delayMs)}${asked} with the same message id ${d.messageId}.`),
    );
    e.later.push(plan.later);
    return e;
  }
  const tried = f.report.retryable ? ` after ${f.attempt} attempts` : '';
  return deliveryFailure(ctx, failureSentence(f.filename, d.to, d.url, f.report.error, tried), as2, [f.document]);
}

export interface SettledFacts {
  readonly document: ArtifactPointer;
  readonly outcome: As2ReceiptOutcome;
  readonly tracked: boolean;
  /** The connection's receipt wait, for the timeout's sentence. */
  readonly waitSeconds: number | null;
}

/** The delivery once its asynchronous receipt came (or did not come in time); `ctx.now` is the outcome's time. */
export function receiptSettled(ctx: StepContext, f: SettledFacts): Effects {
  const o = f.outcome;
  const as2: ResultDetail = { as2: { ...o.detail } };
  const name = f.document.filename ?? f.document.id;
  if (o.status === 'processed') return deliveredOutbound(ctx, { document: f.document, detail: as2, keepsPayload: false, tracked: f.tracked });
  if (o.status === 'timeout') {
    const within = f.waitSeconds === null ? 'in time' : `within ${f.waitSeconds} s`;
    return deliveryFailure(ctx, `AS2 delivery of ${name} to ${o.detail.to} (${o.detail.url}) failed: no MDN for message ${o.detail.messageId} ${within}.`, as2, [f.document]);
  }
  return deliveryFailure(ctx, failureSentence(name, o.detail.to, o.detail.url, o.detail.error), as2, [f.document]);
}
