/**
 * sftp_upload, the pure part: the outcome of uploading a document (an outbound business
 * document or an acknowledgment) into the partner connection's outbound directory. Success:
 * the transaction is delivered (`deliveredAt` from the outbound success feed entry),
 * `acknowledgmentStatus` becomes `unacknowledged` when the partner tracks acknowledgments, and
 * the partner's outbound webhook is notified. A passing failure is tried again later through
 * the delay topics; after the last attempt, or at once for a failure that cannot pass, the
 * result is an error.
 */
import type { ArtifactPointer, ResultDetail, TransactionUpdate } from '../../domain/records.ts';
import { isoMicros } from '../../domain/records.ts';
import { failure, feedRequest, log, notification, result, retryWorkId, stepResultId } from '../outcomes.ts';
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
  const suffix = m.resend ? `_r${m.attempt}` : '';
  return `${set}_${icn || (pointer.filename ?? pointer.id).replace(/\.[^.]*$/, '')}${suffix}.edi`.replace(/[^A-Za-z0-9._-]/g, '_');
}

export interface UploadFacts {
  readonly document: ArtifactPointer;
  readonly filename: string;
  readonly directory: string;
  readonly host: string;
  readonly attempt: number;
  readonly outcome: { readonly ok: true } | { readonly ok: false; readonly retryable: boolean; readonly message: string };
  /** The partner tracks acknowledgments and the document is a business document (not a 997/999). */
  readonly tracksAcknowledgment: boolean;
}

export function uploaded(ctx: StepContext, f: UploadFacts): Effects {
  const m = ctx.message;
  const txId = m.transactionId;
  const rid = stepResultId(ctx, txId);
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
    return failure(ctx, {
      transactionId: txId,
      message: `Upload of ${f.filename} to ${f.host}:${f.directory} failed${tried}: ${f.outcome.message}`,
      direction: 'outbound',
      at: ctx.now,
      detail: { sftp },
      artifacts: [f.document],
    });
  }
  const e = effects();
  const detail: ResultDetail = { sftp: { ...sftp, uploadedAt: isoMicros(ctx.now) }, transformations: [m.params['purpose'] === 'acknowledgment' ? 'ack_generate' : 'x12_write', 'sftp_upload'] };
  const r = result(ctx, { id: rid, transactionId: txId, status: 'success', direction: 'outbound', createdAt: ctx.now, detail, artifacts: [f.document], payload: null });
  e.results.push(r);
  if (txId) {
    const u: TransactionUpdate = {
      organizationId: m.organizationId,
      id: txId,
      traceGuid: m.traceGuid,
      completed: true,
      deliveryNodeId: m.nodeId,
      deliveryResultId: rid,
      deliveryInputResultId: m.inputResultId,
      ...(f.tracksAcknowledgment && !m.resend ? { acknowledgmentStatus: 'unacknowledged' as const } : {}),
    };
    e.updates.push(u);
  }
  const fr = feedRequest(r, 'outbound', { setsDeliveredAt: true });
  if (fr) e.feed.push(fr);
  const n = notification(ctx, ctx.partner, 'outbound', 'outbound_delivered', r);
  if (n) e.emit.push(n);
  return e;
}
