/**
 * The scheduler role. It owns time so that no consumer ever sleeps:
 *
 * - Delay forwarder: consumes the `delay.<n>s` tiers through the one consumer runner and
 *   forwards each DelayedMessage to its target topic once due. When the head of a partition is
 *   not due yet, the runner pauses the partition (the rest waits on the topic) and resumes it at
 *   the due time; other partitions and tiers keep flowing. A message is held at most its tier's
 *   width: one due later (a retry 45 minutes away on the 60 s tier) is then written again to
 *   the tier of the time still to wait (`delayStep`, a hop), so a paused head delays the
 *   messages behind it by at most n seconds, whatever delay the retry policy asked for. An
 *   undecodable message is dead-lettered like anywhere else, never dropped.
 * - Jobs (`SchedulerJob`), plugged in by src/service.ts: timers that each replica starts. A
 *   job that must run on one replica at a time holds a Cassandra lease (src/roles/jobs/leased-job.ts:
 *   overdue acknowledgments, AS2 receipt waits, held work); the SFTP poller takes a lease per
 *   connection instead; the replay consumer is a consumer group of its own.
 *
 * Safe with several replicas: the delay tiers are split by partition across the group.
 */
import type { Role } from './role.ts';
import { ConsumerRunner } from '../adapters/kafka/consumer-runner.ts';
import { DELAY_TIERS_SECONDS, delayStep, tierSecondsOf, type DelayedMessage } from '../wire/delayed.v1.ts';
import type { Resources } from './resources.ts';

/** A scheduled duty of the scheduler role. */
export interface SchedulerJob {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type SchedulerJobFactory = (resources: Resources) => Promise<SchedulerJob> | SchedulerJob;

export function schedulerRole(resources: Resources, jobFactories: readonly SchedulerJobFactory[] = []): Role {
  let runner: ConsumerRunner<DelayedMessage> | undefined;
  const jobs: SchedulerJob[] = [];
  const log = resources.logger.child({ role: 'scheduler' });
  return {
    name: 'scheduler',
    start: async () => {
      const [kafka, wire, producer] = await Promise.all([resources.kafka(), resources.wire(), resources.producer()]);
      const prefix = resources.config.kafka.topicPrefix;
      runner = new ConsumerRunner<DelayedMessage>(
        { kafka, wire, producer, config: resources.config, logger: resources.logger, metrics: resources.metrics, tracer: await resources.tracer() },
        {
          name: 'scheduler:delay',
          group: 'scheduler.delay',
          topics: DELAY_TIERS_SECONDS.map((s) => `delay.${s}s`),
          partitionsConcurrently: DELAY_TIERS_SECONDS.length,
          // a partition paused until its head is due is fetched again only when the fetch in
          // progress returns: keep that short so a 1 s retry is forwarded after about 1 s; while
          // nothing is paused or arriving, wait for the first message instead of polling
          maxWaitTimeMs: 100,
          idleWaitMs: resources.config.kafka.consumerMaxWaitMs,
          handleBatch: async (messages) => {
            const out: { topic: string; key: string | null; value: Buffer; headers?: Record<string, string> }[] = [];
            let stopAt = messages.length;
            let pauseUntil = 0;
            const now = Date.now();
            for (const [i, m] of messages.entries()) {
              const d = m.value;
              const step = delayStep(d.dueAt, m.timestamp, tierSecondsOf(m.topic) ?? DELAY_TIERS_SECONDS[DELAY_TIERS_SECONDS.length - 1]!, now);
              if (step.action === 'wait') {
                stopAt = i;
                pauseUntil = step.untilMs;
                break;
              }
              if (step.action === 'hop') {
                out.push({ topic: wire.topic(step.tier), key: m.key, value: wire.encode(step.tier, d) });
                continue;
              }
              out.push({ topic: prefix + d.targetTopic, key: d.key, value: d.value, headers: { ...d.headers, 'tdx-delay-id': d.id, 'tdx-attempt': String(d.attempt) } });
            }
            await producer.send(out);
            return stopAt < messages.length ? { processed: stopAt, pauseUntil } : undefined;
          },
        },
      );
      await runner.start();
      log.info({ event: 'scheduler:delay:consuming' }, 'forwarding delayed messages');
      for (const f of jobFactories) {
        const job = await f(resources);
        await job.start();
        jobs.push(job);
        log.info({ event: 'scheduler:job:started', job: job.name }, 'scheduler job started');
      }
    },
    stop: async () => {
      for (const j of jobs.splice(0).reverse()) await j.stop();
      await runner?.stop();
    },
  };
}
