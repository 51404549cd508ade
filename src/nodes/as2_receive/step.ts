/**
 * as2_receive, the pure part of posting an asynchronous MDN: the AS2 endpoint answers the
 * partner's request at once and hands the receipt to this node (work item `purpose: as2_mdn`:
 * `mdn.url`, `mdn.headers` (JSON), `mdn.body` (base64)), which posts it. A post that may pass
 * later is tried again through the delay topics (6 attempts, 1 to 16 s apart); each attempt is
 * a log entry on the message's trace.
 */
import { log } from '../outcomes.ts';
import { effects, type Effects, type StepContext } from '../step.ts';
import { UPLOAD_MAX_ATTEMPTS, uploadDelayMs } from '../sftp_upload/step.ts';

/** Work items of as2_receive that carry a receipt to post rather than a received document. */
export const AS2_MDN_PURPOSE = 'as2_mdn';
export const MDN_POST_MAX_ATTEMPTS = UPLOAD_MAX_ATTEMPTS;

export interface ReceiptPostFacts {
  readonly url: string;
  /** The message the receipt answers. */
  readonly messageId: string;
  readonly attempt: number;
  readonly outcome: { readonly ok: true; readonly httpStatus: number | null } | { readonly ok: false; readonly retryable: boolean; readonly message: string; readonly httpStatus: number | null };
}

export function receiptPosted(ctx: StepContext, f: ReceiptPostFacts): Effects {
  const m = ctx.message;
  const e = effects();
  const owner = `${m.id}:as2-mdn`;
  if (f.outcome.ok) {
    e.logs.push(log(ctx, owner, f.attempt, 'info', `Asynchronous MDN for AS2 message ${f.messageId} posted to ${f.url} (HTTP ${f.outcome.httpStatus ?? '?'}).`));
    return e;
  }
  if (f.outcome.retryable && f.attempt < MDN_POST_MAX_ATTEMPTS) {
    const delay = uploadDelayMs(f.attempt);
    e.logs.push(log(ctx, owner, f.attempt, 'warn', `Posting the asynchronous MDN for AS2 message ${f.messageId} to ${f.url} failed (attempt ${f.attempt} of ${MDN_POST_MAX_ATTEMPTS}): ${f.outcome.message}; trying again in ${delay / 1000} s.`));
    const dueAt = ctx.now + delay * 1000;
    e.later.push({ message: { ...m, id: `${m.id.slice(0, 24)}${String(f.attempt + 1).padStart(12, '0')}`, createdAt: dueAt, params: { ...m.params, deliveryAttempt: String(f.attempt + 1) } }, dueAt, reason: 'as2_mdn_retry' });
    return e;
  }
  const tried = f.outcome.retryable ? ` after ${f.attempt} attempts` : '';
  e.logs.push(log(ctx, owner, f.attempt, 'error', `The asynchronous MDN for AS2 message ${f.messageId} could not be posted to ${f.url}${tried}: ${f.outcome.message}. The partner has no receipt for it.`));
  return e;
}
