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
 *   topics with the same Message-ID (the partner recognizes a duplicate); after the last attempt,
 *   or at once for a negative or invalid receipt, each transaction gets an error result.
 */
import { as2MessageIdForWork, type As2ReceiptOutcome, type As2SendReport } from '../../domain/as2-delivery.ts';
import type { ArtifactPointer, ResultDetail } from '../../domain/records.ts';
import { isoMicros } from '../../domain/records.ts';
import { log } from '../outcomes.ts';
import { deliveredOutbound, deliveryFailure } from '../outbound.ts';
import { effects, type Effects, type StepContext } from '../step.ts';
import { UPLOAD_MAX_ATTEMPTS, uploadDelayMs } from '../sftp_upload/step.ts';

/** Attempts of one transmission in all (as for uploads). */
export const AS2_SEND_MAX_ATTEMPTS = UPLOAD_MAX_ATTEMPTS;
/** The longest wait a partner's Retry-After may ask for. */
export const AS2_MAX_RETRY_AFTER_MS = 300_000;

/** Delay before attempt n+1: the upload backoff (1, 2, 4, 8, 16 s), or the partner's Retry-After when longer (at most 5 minutes). */
export function as2RetryDelayMs(attempt: number, retryAfterSeconds: number | null): number {
  const backoff = uploadDelayMs(attempt);
  return retryAfterSeconds === null ? backoff : Math.max(backoff, Math.min(retryAfterSeconds * 1000, AS2_MAX_RETRY_AFTER_MS));
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
  if (f.report.retryable && f.attempt < AS2_SEND_MAX_ATTEMPTS) {
    const e = effects();
    const delay = as2RetryDelayMs(f.attempt, f.report.retryAfterSeconds);
    e.logs.push(
      log(ctx, `${m.id}:as2`, f.attempt, 'warn', `AS2 delivery of ${f.filename} to ${d.to} (${d.url}) failed (attempt ${f.attempt} of ${AS2_SEND_MAX_ATTEMPTS}): ${f.report.error ?? 'unknown error'}; trying again in ${delay / 1000} s with the same message id ${d.messageId}.`),
    );
    const dueAt = ctx.now + delay * 1000;
    e.later.push({
      message: { ...m, id: `${m.id.slice(0, 24)}${String(f.attempt + 1).padStart(12, '0')}`, createdAt: dueAt, params: { ...m.params, deliveryAttempt: String(f.attempt + 1), 'as2.messageId': f.messageId } },
      dueAt,
      reason: 'as2_send_retry',
    });
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
