/**
 * sftp_upload, the pure part: the outcome of uploading a document (an outbound business
 * document, the sets of one interchange, or an acknowledgment) into the partner connection's
 * outbound directory. Success: each transaction is delivered (`deliveredOutbound` in
 * ../outbound.ts: `deliveredAt` from the outbound success feed entry, `acknowledgmentStatus`
 * `unacknowledged` when tracked, the partner's outbound webhook notified). A passing failure is
 * tried again later through the delay topics, spaced by the connection's retry policy
 * (../retry.ts); after the last attempt, or at once for a failure that cannot pass, each
 * transaction gets an error result.
 */
import type { ArtifactPointer } from '../../domain/records.ts';
import { isoMicros } from '../../domain/records.ts';
import { DELIVERY_MAX_ATTEMPTS, type RetryPolicy, type TransferAttempt } from '../../domain/retry-policy.ts';
import { log } from '../outcomes.ts';
import { deliveredOutbound, deliveryFailure } from '../outbound.ts';
import { attemptWords, formatWait, planRetry } from '../retry.ts';
import { effects, type Effects, type StepContext } from '../step.ts';
import { uploadFilename } from '../outbound-files.ts';

export { uploadFilename };

/** Attempts of one upload in all (every transfer's, retry-policy.ts). */
export const UPLOAD_MAX_ATTEMPTS = DELIVERY_MAX_ATTEMPTS;

export interface UploadFacts {
  readonly document: ArtifactPointer;
  readonly filename: string;
  readonly directory: string;
  readonly host: string;
  readonly attempt: number;
  readonly outcome: TransferAttempt;
  /** The document is a business document whose 997 is tracked (never a 997/999 we sent). */
  readonly tracksAcknowledgment: boolean;
  /** The connection's retry policy. @default DEFAULT_RETRY_POLICY */
  readonly policy?: RetryPolicy;
  /** When the attempt ended (micros): the next attempt is due its delay after this. @default ctx.now */
  readonly endedAt?: number;
}

export function uploaded(ctx: StepContext, f: UploadFacts): Effects {
  const m = ctx.message;
  const sftp: Record<string, string> = { filename: f.filename, directory: f.directory, host: f.host };
  const o = f.outcome;
  if (o.kind !== 'delivered') {
    const plan = o.kind === 'retryable' ? planRetry(m, { ...(f.policy ? { policy: f.policy } : {}), attempt: f.attempt, from: f.endedAt ?? ctx.now, reason: 'sftp_upload_retry' }) : undefined;
    if (plan) {
      const e = effects();
      e.logs.push(log(ctx, `${m.id}:upload`, f.attempt, 'warn', `Upload of ${f.filename} to ${f.host}:${f.directory} failed (${attemptWords(f.attempt)}): ${o.reason}; trying again in ${formatWait(plan.delayMs)}.`));
      e.later.push(plan.later);
      return e;
    }
    const tried = o.kind === 'retryable' ? ` after ${f.attempt} attempts` : '';
    return deliveryFailure(ctx, `Upload of ${f.filename} to ${f.host}:${f.directory} failed${tried}: ${o.reason}`, { sftp }, [f.document]);
  }
  return deliveredOutbound(ctx, { document: f.document, detail: { sftp: { ...sftp, uploadedAt: isoMicros(ctx.now) } }, keepsPayload: false, tracked: f.tracksAcknowledgment });
}
