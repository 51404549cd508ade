/**
 * The replay consumer (in the scheduler role): consumes the resend and redeliver commands the
 * API accepted (`commands.replay`, group `replay`) and carries out each in the background, on
 * its transaction's original trace, with the rules of src/nodes/replay.ts (`runReplayCommand`:
 * once per command through the replay ledger, planned again, an error result on the trace when
 * it can no longer run).
 */
import { ConsumerRunner } from '../../adapters/kafka/consumer-runner.ts';
import type { ReplayLedger } from '../../domain/processing-ports.ts';
import type { NodeDeps } from '../../nodes/ports.ts';
import { runReplayCommand } from '../../nodes/replay.ts';
import { TOPICS } from '../../wire/topics.ts';
import type { ReplayCommand } from '../../wire/replay-command.v1.ts';
import type { Resources } from '../resources.ts';
import type { SchedulerJob } from '../scheduler.ts';

export function replayJob(resources: Resources, deps: NodeDeps, ledger: ReplayLedger): SchedulerJob {
  let runner: ConsumerRunner<ReplayCommand> | undefined;
  return {
    name: 'replay',
    start: async () => {
      const [kafka, wire, producer] = await Promise.all([resources.kafka(), resources.wire(), resources.producer()]);
      runner = new ConsumerRunner<ReplayCommand>(
        { kafka, wire, producer, config: resources.config, logger: resources.logger, metrics: resources.metrics, tracer: await resources.tracer() },
        {
          name: 'replay',
          group: 'replay',
          topics: [TOPICS.replay],
          handle: (m, { logger }) => runReplayCommand(deps, ledger, resources.config.cassandra.retentionSeconds, m.value, logger),
        },
      );
      await runner.start();
    },
    stop: async () => {
      await runner?.stop();
    },
  };
}
