/**
 * sftp_upload, the pure part: the outcome of uploading a document (an outbound business
 * document, the sets of one interchange, or an acknowledgment) into the partner connection's
 * outbound directory. Success: each transaction is delivered (`deliveredOutbound` in
 * ../outbound.ts: `deliveredAt` from the outbound success feed entry, `acknowledgmentStatus`
 * `unacknowledged` when tracked, the partner's outbound webhook notified). A passing failure is
 * tried again later through the delay topics; after the last attempt, or at once for a failure
 * that cannot pass, each transaction gets an error result.
 */
import type { ArtifactPointer } from '../../domain/records.ts';
import { isoMicros } from '../../domain/records.ts';
import { log, retryWorkId } from '../outcomes.ts';
import { deliveredOutbound, deliveryFailure } from '../outbound.ts';
import { effects, type Effects, type StepContext } from '../step.ts';

/** Attempts of one upload in all. */
export const UPLOAD_MAX_ATTEMPTS = 6;
/** Delay before attempt n+1 (n from 1): 1, 2, 4, 8, 16 s. */
export function uploadDelayMs(attempt: number): number {
  return 1000 * 2 ** Math.max(0, attempt - 1);
}

/** The file name an upload uses: set, interchange control number and the work item (a resend gets a fresh one). */
export function uploadFilename(ctx: StepContext, pointer: ArtifactPointer): string {
  const m = ctx.message;
  const set = m.params['transactionSetIdentifier'] ?? 'edi';
  const icn = m.params['interchangeControlNumber'] ?? '';
  // A resent 997 goes out under a fresh name (contract); a resent document is the same file again.
  const suffix = m.resend && m.params['purpose'] === 'acknowledgment' ? `_r${m.attempt}` : '';
  return `${set}_${icn || (pointer.filename ?? pointer.id).replace(/\.[^.]*$/, '')}${suffix}.edi`.replace(/[^A-Za-z0-9._-]/g, '_');
}

export interface UploadFacts {
  readonly document: ArtifactPointer;
  readonly filename: string;
  readonly directory: string;
  readonly host: string;
  readonly attempt: number;
  readonly outcome: { readonly ok: true } | { readonly ok: false; readonly retryable: boolean; readonly message: string };
  /** The document is a business document whose 997 is tracked (never a 997/999 we sent). */
  readonly tracksAcknowledgment: boolean;
}

export function uploaded(ctx: StepContext, f: UploadFacts): Effects {
  const m = ctx.message;
  const sftp: Record<string, string> = { filename: f.filename, directory: f.directory, host: f.host };
  if (!f.outcome.ok) {
    if (f.outcome.retryable && f.attempt < UPLOAD_MAX_ATTEMPTS) {
      const e = effects();
      const delay = uploadDelayMs(f.attempt);
      e.logs.push(log(ctx, `${m.id}:upload`, f.attempt, 'warn', `Upload of ${f.filename} to ${f.host}:${f.directory} failed (attempt ${f.attempt} of ${UPLOAD_MAX_ATTEMPTS}): ${f.outcome.message}; trying again in ${delay / 1000} s.`));
      const dueAt = ctx.now + delay * 1000;
      e.later.push({
        message: { ...m, id: retryWorkId(m.id, f.attempt + 1), createdAt: dueAt, params: { ...m.params, deliveryAttempt: String(f.attempt + 1) } },
        dueAt,
        reason: 'sftp_upload_retry',
      });
      return e;
    }
    const tried = f.outcome.retryable ? ` after ${f.attempt} attempts` : '';
    return deliveryFailure(ctx, `Upload of ${f.filename} to ${f.host}:${f.directory} failed${tried}: ${f.outcome.message}`, { sftp }, [f.document]);
  }
  return deliveredOutbound(ctx, { document: f.document, detail: { sftp: { ...sftp, uploadedAt: isoMicros(ctx.now) } }, keepsPayload: false, tracked: f.tracksAcknowledgment });
}
