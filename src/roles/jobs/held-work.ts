/**
 * The scheduler job that produces held work (src/adapters/kafka/holding-sender.ts): every
 * `intervalMs` the replica holding the job's lease reads each shard of the held_work table,
 * produces what it finds with the process's producer (which retries until the broker takes it),
 * and deletes each record once the broker confirmed it. A record produced twice, by a handover
 * between replicas or because the send that was not confirmed had been written after all, is
 * done once: nodes write with deterministic ids.
 */
import type { HeldRecord, HeldWorkStore, SchedulerLeaseStore } from '../../domain/processing-ports.ts';
import type { Logger } from '../../logger.ts';
import type { SchedulerJob } from '../scheduler.ts';
import { leasedIntervalJob } from './leased-job.ts';

export const HELD_WORK_JOB = 'held_work';
/** Records read and produced at a time, per shard. */
const BATCH = 500;

export interface HeldWorkOptions {
  readonly intervalMs: number;
  readonly leases: SchedulerLeaseStore;
  readonly logger: Logger;
  readonly held: HeldWorkStore;
  /** Produces records as they are (topic, key, encoded value, headers); resolves once confirmed. */
  readonly send: (records: readonly HeldRecord[]) => Promise<void>;
}

/** One pass over every shard; returns how many records were produced and forgotten. */
export async function produceHeld(held: HeldWorkStore, send: HeldWorkOptions['send']): Promise<number> {
  let produced = 0;
  for (let shard = 0; shard < held.shards; shard++) {
    for (;;) {
      const records = await held.list(shard, BATCH);
      if (records.length === 0) break;
      await send(records);
      await held.release(records);
      produced += records.length;
      if (records.length < BATCH) break;
    }
  }
  return produced;
}

export function heldWorkJob(opts: HeldWorkOptions): SchedulerJob {
  return leasedIntervalJob(
    HELD_WORK_JOB,
    opts,
    async (log) => {
      const produced = await produceHeld(opts.held, opts.send);
      if (produced > 0) log.info({ event: 'work:held-produced', records: produced }, 'held work produced');
    },
    { event: 'work:held-failed', message: 'held work could not be produced; the next pass tries again' },
  );
}
