/**
 * Acknowledgment deadlines of delivered documents (our extension: the partner's
 * `acknowledgmentDeadlineMinutes`). A delivery step adds each tracked document it delivered, with
 * its due time, to its effects (written before its results, src/nodes/runtime.ts); the
 * scheduler's overdue job reads them in due order (src/roles/jobs/ack-overdue.ts).
 */
import { transactionsOf } from './outbound.ts';
import type { Effects, StepContext } from './step.ts';

/**
 * `e` with the deadlines of the documents a delivery step delivered added (none when the partner
 * sets none, or for a resend). Returns `e`.
 */
export function watchAcknowledgments(e: Effects, ctx: StepContext, tracked: boolean): Effects {
  const partner = ctx.partner;
  const minutes = partner?.acknowledgmentDeadlineMinutes ?? null;
  if (!tracked || ctx.message.resend || !partner || minutes === null || !(minutes > 0)) return e;
  const m = ctx.message;
  const dueAt = ctx.now + Math.round(minutes * 60_000_000);
  for (const transactionId of transactionsOf(ctx)) e.deadlines.push({ organizationId: m.organizationId, transactionId, traceGuid: m.traceGuid, partnerKey: partner.key, dueAt });
  return e;
}
