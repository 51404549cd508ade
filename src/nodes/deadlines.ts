/**
 * Acknowledgment deadlines of delivered documents (our extension: the partner's
 * `acknowledgmentDeadlineMinutes`). A delivery node notes each tracked document it delivered
 * with its due time, before its effects are written; the scheduler's overdue job reads them in
 * due order (src/roles/jobs/ack-overdue.ts).
 */
import type { NodeDeps } from './ports.ts';
import { transactionsOf } from './outbound.ts';
import type { StepContext } from './step.ts';

/** Notes the deadlines of the documents a delivery step delivered (nothing when the partner sets none). */
export async function watchAcknowledgments(deps: NodeDeps, ctx: StepContext, tracked: boolean): Promise<void> {
  const partner = ctx.partner;
  const minutes = partner?.acknowledgmentDeadlineMinutes ?? null;
  if (!tracked || ctx.message.resend || !partner || minutes === null || !(minutes > 0) || !deps.stores.deadlines) return;
  const m = ctx.message;
  const dueAt = ctx.now + Math.round(minutes * 60_000_000);
  await deps.stores.deadlines.watch(transactionsOf(ctx).map((transactionId) => ({ organizationId: m.organizationId, transactionId, traceGuid: m.traceGuid, partnerKey: partner.key, dueAt })));
}
