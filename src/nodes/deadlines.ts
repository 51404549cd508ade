/**
 * Acknowledgment deadlines of delivered documents (our extension: the partner's
 * `acknowledgmentDeadlineMinutes`). A delivery step adds each tracked document it delivered, with
 * its due time, to its effects (written before its results, src/nodes/runtime.ts); the
 * scheduler's overdue job reads them in due order (src/roles/jobs/ack-overdue.ts).
 */
import type { AcknowledgmentDeadline } from '../domain/processing-ports.ts';
import { transactionsOf } from './outbound.ts';
import type { Effects, StepContext } from './step.ts';

/** The deadlines of the documents a delivery step delivered (none when the partner sets none, or for a resend). */
export function acknowledgmentDeadlines(ctx: StepContext, tracked: boolean): AcknowledgmentDeadline[] {
  const partner = ctx.partner;
  const minutes = partner?.acknowledgmentDeadlineMinutes ?? null;
  if (!tracked || ctx.message.resend || !partner || minutes === null || !(minutes > 0)) return [];
  const m = ctx.message;
  const dueAt = ctx.now + Math.round(minutes * 60_000_000);
  return transactionsOf(ctx).map((transactionId) => ({ organizationId: m.organizationId, transactionId, traceGuid: m.traceGuid, partnerKey: partner.key, dueAt }));
}

/** `e` with the deadlines of what the step delivered added (returns `e`). */
export function watchAcknowledgments(e: Effects, ctx: StepContext, tracked: boolean): Effects {
  e.deadlines.push(...acknowledgmentDeadlines(ctx, tracked));
  return e;
}
