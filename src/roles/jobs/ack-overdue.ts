/**
 * The scheduler job that reports overdue acknowledgments (src/nodes/overdue.ts decides). Every
 * `overdueCheckIntervalMs` the replica holding the job's lease (a Cassandra lightweight
 * transaction with a TTL of three intervals, renewed each tick; a replica that dies loses it
 * when the TTL runs out) reads the deadlines due since its position, reports each document
 * still unacknowledged, forgets the deadlines it handled, and moves its position to ten minutes
 * before now: deadlines noted late (a delivery slower than a very short deadline) are still
 * found, and handled ones are deleted, so nothing is reported twice by one replica. Effects are
 * idempotent (ids from the deadline), so a handover between replicas mid-tick at worst repeats
 * the same log entry and notification.
 */
import type { AcknowledgmentDeadline, SchedulerLeaseStore } from '../../domain/processing-ports.ts';
import type { Micros } from '../../domain/records.ts';
import type { Logger } from '../../logger.ts';
import type { BusinessMeter } from '../../domain/metrics.ts';
import type { NodeDeps } from '../../nodes/ports.ts';
import { applyEffects } from '../../nodes/runtime.ts';
import { mapLimit } from '../../domain/concurrency.ts';
import { effects, mergeEffects } from '../../nodes/step.ts';
import { overdue } from '../../nodes/overdue.ts';
import type { SchedulerJob } from '../scheduler.ts';
import { leasedIntervalJob } from './leased-job.ts';

export const ACK_OVERDUE_JOB = 'ack_overdue';
/** How far back each tick looks again, for deadlines noted after they were due. */
const LOOKBACK_US = 10 * 60 * 1_000_000;
/** Where a job that never ran starts. */
const FIRST_LOOK_US = 7 * 24 * 3600 * 1_000_000;

export interface AckOverdueOptions {
  readonly intervalMs: number;
  readonly leases: SchedulerLeaseStore;
  readonly logger: Logger;
  /** Counts each document reported overdue, by partner. */
  readonly metrics?: BusinessMeter;
}

/** One pass: reports every deadline due up to `now` (returns how many documents were reported overdue). */
export async function reportOverdue(deps: NodeDeps, leases: SchedulerLeaseStore, now: Micros, metrics?: BusinessMeter): Promise<number> {
  const store = deps.stores.deadlines;
  if (!store) return 0;
  const from = (await leases.position(ACK_OVERDUE_JOB)) ?? now - FIRST_LOOK_US;
  const due = await store.due(from, now + 1);
  const all = effects();
  let reported = 0;
  const outcomes = await mapLimit(due, 16, async (d: AcknowledgmentDeadline) => {
    const transaction = await deps.stores.transactions.get(d.organizationId, d.transactionId);
    const [partner, delivery] = await Promise.all([
      deps.config.partnerByKey(d.organizationId, d.partnerKey),
      transaction?.deliveryResultId ? deps.stores.results.get(d.organizationId, transaction.deliveryResultId) : null,
    ]);
    return overdue({ deadline: d, transaction, partner, delivery });
  });
  const overdueOf: string[] = [];
  for (const [i, e] of outcomes.entries()) {
    if (e.logs.length > 0) {
      reported++;
      overdueOf.push(due[i]!.partnerKey);
    }
    mergeEffects(all, e);
  }
  await applyEffects(deps.stores, deps.emitter, all, deps.wallClock());
  if (metrics) for (const partner of overdueOf) metrics.acknowledgmentOverdue(partner);
  await mapLimit(due, 16, (d) => store.done(d));
  await leases.setPosition(ACK_OVERDUE_JOB, Math.max(from, now - LOOKBACK_US));
  return reported;
}

export function ackOverdueJob(deps: NodeDeps, opts: AckOverdueOptions): SchedulerJob {
  return leasedIntervalJob(
    ACK_OVERDUE_JOB,
    opts,
    async (log) => {
      const n = await reportOverdue(deps, opts.leases, deps.wallClock(), opts.metrics);
      if (n > 0) log.info({ event: 'scheduler:ack_overdue:reported', count: n }, 'overdue acknowledgments reported');
    },
    { event: 'scheduler:ack_overdue:failed', message: 'overdue acknowledgment check failed; trying again next tick' },
  );
}
