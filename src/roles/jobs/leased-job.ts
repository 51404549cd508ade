/**
 * A scheduler job that runs one pass every `intervalMs` on the replica holding its Cassandra
 * lease (a lightweight transaction with a TTL of three intervals, at least 10 s, renewed each
 * tick): a replica that stops loses the lease when the TTL runs out. A failed pass is logged and
 * tried again on the next tick; `stop` waits for a pass under way and releases the lease.
 */
import { newId } from '../../domain/ids.ts';
import type { SchedulerLeaseStore } from '../../domain/processing-ports.ts';
import type { Logger } from '../../logger.ts';
import type { SchedulerJob } from '../scheduler.ts';

export interface LeasedJobOptions {
  readonly intervalMs: number;
  readonly leases: SchedulerLeaseStore;
  readonly logger: Logger;
}

/** `pass` runs while this replica holds the lease; `failed` names the log event and message of a failed pass. */
export function leasedIntervalJob(name: string, opts: LeasedJobOptions, pass: (log: Logger) => Promise<void>, failed: { event: string; message: string }): SchedulerJob {
  const holder = newId();
  const ttlSeconds = Math.max(10, Math.ceil((opts.intervalMs * 3) / 1000));
  const log = opts.logger.child({ job: name });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = async (): Promise<void> => {
    try {
      if (!(await opts.leases.hold(name, holder, ttlSeconds))) return;
      await pass(log);
    } catch (err) {
      log.warn({ event: failed.event, err }, failed.message);
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(schedule);
    }, opts.intervalMs);
    timer.unref();
  };
  return {
    name,
    start: () => {
      stopped = false;
      running = tick().finally(schedule);
      return Promise.resolve();
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await opts.leases.release(name, holder).catch(() => undefined);
    },
  };
}
