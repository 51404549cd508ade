/**
 * Names of the files outbound transfers write (sftp_upload and as2_send share them). Pure.
 */
import type { ArtifactPointer } from '../domain/records.ts';
import type { StepContext } from './step.ts';

/** The file name an upload uses: set, interchange control number and the work item (a resend gets a fresh one). */
export function uploadFilename(ctx: StepContext, pointer: ArtifactPointer): string {
  const m = ctx.message;
  const set = m.params['transactionSetIdentifier'] ?? 'edi';
  const icn = m.params['interchangeControlNumber'] ?? '';
  // A resent 997 goes out under a fresh name (contract); a resent document is the same file again.
  const suffix = m.resend && m.params['purpose'] === 'acknowledgment' ? `_r${m.attempt}` : '';
  return `${set}_${icn || (pointer.filename ?? pointer.id).replace(/\.[^.]*$/, '')}${suffix}.edi`.replace(/[^A-Za-z0-9._-]/g, '_');
}
