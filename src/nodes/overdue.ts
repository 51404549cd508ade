/**
 * Overdue acknowledgments (our extension beyond the contract), the pure part: a delivered
 * document still `unacknowledged` when its deadline (the partner's
 * `acknowledgmentDeadlineMinutes` after delivery) passes gets an `ack_overdue` log entry on its
 * trace and a notification to the partner's error-role webhook (event `ack_overdue`, about its
 * delivery result). The document stays `unacknowledged`: a late 997 still moves it. A document
 * answered in time, or gone, needs nothing. Every id derives from the deadline, so reporting
 * it twice (two scheduler replicas at a lease handover, a retried tick) writes the same entry
 * and produces the same notification.
 */
import type { PartnerRecord } from '../domain/configuration.ts';
import { deterministicId } from '../domain/ids.ts';
import type { AcknowledgmentDeadline } from '../domain/processing-ports.ts';
import type { ResultRecord, StoredTransaction } from '../domain/records.ts';
import { log, notification } from './outcomes.ts';
import { effects, type Effects, type StepContext } from './step.ts';

export interface OverdueInput {
  readonly deadline: AcknowledgmentDeadline;
  readonly transaction: StoredTransaction | null;
  readonly partner: PartnerRecord | null;
  /** The document's delivery result (what the notification is about). */
  readonly delivery: ResultRecord | null;
}

/** The effects of a deadline that passed (none when the document was answered or is gone). */
export function overdue(input: OverdueInput): Effects {
  const d = input.deadline;
  const tx = input.transaction;
  const e = effects();
  if (!tx || tx.acknowledgmentStatus !== 'unacknowledged') return e;
  const ctx: StepContext = {
    now: d.dueAt,
    flow: null,
    node: null,
    partner: input.partner,
    message: {
      id: deterministicId('ack_overdue', d.organizationId, d.transactionId, d.dueAt),
      traceGuid: tx.traceGuid,
      organizationId: d.organizationId,
      service: 'webhook',
      flowId: tx.flowId,
      flowVersion: tx.flowVersion,
      nodeId: null,
      direction: 'outbound',
      partnerKey: tx.partnerKey,
      transactionId: tx.id,
      inputResultId: tx.deliveryResultId,
      artifacts: [],
      usageIndicator: tx.usageIndicator,
      resend: false,
      attempt: 1,
      createdAt: d.dueAt,
      params: {},
    },
  };
  const minutes = input.partner?.acknowledgmentDeadlineMinutes ?? null;
  const within = minutes === null ? 'by its deadline' : `within ${minutes} minute${minutes === 1 ? '' : 's'} of delivery`;
  e.logs.push(
    log(
      ctx,
      `ack_overdue:${d.transactionId}:${d.dueAt}`,
      0,
      'warn',
      `ack_overdue: no 997 from partner ${tx.partnerKey ?? ''} for ${tx.transactionSetIdentifier} ${tx.transactionSetControlNumber} (interchange ${tx.interchangeControlNumber}, group ${tx.groupControlNumber}) ${within}; the document stays unacknowledged.`,
      d.dueAt,
    ),
  );
  if (input.delivery) {
    const n = notification(ctx, input.partner, 'error', 'ack_overdue', input.delivery);
    if (n) e.emit.push(n);
  }
  return e;
}
