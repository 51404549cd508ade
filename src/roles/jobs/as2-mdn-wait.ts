/**
 * The scheduler job that ends the wait for asynchronous AS2 receipts: every
 * `as2.mdnCheckIntervalMs`, the replica holding the job's lease (as for the overdue
 * acknowledgment job: a Cassandra lightweight transaction with a TTL of three intervals) reads
 * the receipt deadlines due since its position, and each message still without a receipt is
 * settled as `timeout` (a lightweight transaction, so a receipt arriving at the same moment
 * either wins or loses as a whole) and its delivery becomes an error result. Handled deadlines
 * are deleted; each tick looks ten minutes back for deadlines noted late. Completing a delivery
 * is idempotent (its ids and time come from the message and the deadline), so a handover
 * between replicas in the middle of a tick repeats the same rows.
 */
import type { As2ReceiptOutcome } from '../../domain/as2-delivery.ts';
import type { SchedulerLeaseStore } from '../../domain/processing-ports.ts';
import type { Micros } from '../../domain/records.ts';
import type { Logger } from '../../logger.ts';
import type { As2AwaitedMdnStore } from '../../adapters/as2/pipeline.ts';
import type { StageMessage } from '../../wire/stage.v1.ts';
import type { SchedulerJob } from '../scheduler.ts';
import { leasedIntervalJob } from './leased-job.ts';

export const AS2_MDN_WAIT_JOB = 'as2_mdn_wait';
const LOOKBACK_US = 10 * 60 * 1_000_000;
const FIRST_LOOK_US = 7 * 24 * 3600 * 1_000_000;

export interface As2MdnWaitOptions {
  readonly intervalMs: number;
  readonly leases: SchedulerLeaseStore;
  readonly awaited: As2AwaitedMdnStore;
  /** Completes an awaited delivery (src/nodes/as2_send/receipts.ts). */
  readonly complete: (work: StageMessage, outcome: As2ReceiptOutcome) => Promise<void>;
  readonly logger: Logger;
  readonly now: () => Micros;
}

/** One pass: fails every delivery whose receipt is due by `now` and missing (returns how many). */
export async function endOverdueWaits(opts: Omit<As2MdnWaitOptions, 'intervalMs' | 'logger'>, now: Micros): Promise<number> {
  const from = (await opts.leases.position(AS2_MDN_WAIT_JOB)) ?? now - FIRST_LOOK_US;
  const due = await opts.awaited.due(from, now + 1);
  let failed = 0;
  for (const d of due) {
    const a = await opts.awaited.record(d.messageId);
    if (a && (a.outcome === null || a.outcome.status === 'timeout')) {
      const waited = Math.round((Date.parse(a.deadline) - Date.parse(a.sentAt)) / 1000);
      const outcome =
        a.outcome ??
        (await opts.awaited.settle(d.messageId, {
          status: 'timeout',
          at: d.dueAt,
          detail: { ...a.detail, mdnStatus: 'timeout', error: `no MDN within ${waited} s` },
        }));
      if (outcome?.status === 'timeout') {
        await opts.complete(a.work, outcome);
        failed++;
      }
    }
    await opts.awaited.done(d);
  }
  await opts.leases.setPosition(AS2_MDN_WAIT_JOB, Math.max(from, now - LOOKBACK_US));
  return failed;
}

export function as2MdnWaitJob(opts: As2MdnWaitOptions): SchedulerJob {
  return leasedIntervalJob(
    AS2_MDN_WAIT_JOB,
    opts,
    async (log) => {
      const n = await endOverdueWaits(opts, opts.now());
      if (n > 0) log.info({ event: 'scheduler:as2_mdn_wait:failed', count: n }, 'AS2 deliveries without a receipt in time failed');
    },
    { event: 'scheduler:as2_mdn_wait:error', message: 'AS2 receipt wait check failed; trying again next tick' },
  );
}
