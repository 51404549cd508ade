/**
 * The replay consumer (in the scheduler role): carries out the resend and redeliver commands the
 * API accepted, in the background, on each transaction's original trace. A command is planned
 * again with the same rules the API checked (src/domain/replay.ts), then the work item goes to
 * the delivery node (src/nodes/replay.ts `replayWork`), which uploads or delivers and writes
 * results marked `detail.resend`. Each command runs once: the replay ledger records it, so a
 * command Kafka delivers twice uploads or delivers once. A command that can no longer run (the
 * configuration changed in between) ends in an error result on the trace saying why.
 */
import { ConsumerRunner } from '../../adapters/kafka/consumer-runner.ts';
import { planReplay } from '../../domain/replay.ts';
import type { ReplayLedger } from '../../domain/processing-ports.ts';
import type { NodeDeps } from '../../nodes/ports.ts';
import { replayFacts, replayWork } from '../../nodes/replay.ts';
import { applyEffects } from '../../nodes/runtime.ts';
import { effects, mergeEffects } from '../../nodes/step.ts';
import { failure } from '../../nodes/outcomes.ts';
import { contextOf } from '../../nodes/node.ts';
import { stageTopic, TOPICS } from '../../wire/topics.ts';
import type { ReplayCommand } from '../../wire/replay-command.v1.ts';
import type { NodeService } from '../../domain/node-services.ts';
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
          handle: async (m, { logger }) => {
            const c = m.value;
            if (await ledger.done(c.organizationId, c.id)) return;
            const t = await deps.stores.transactions.get(c.organizationId, c.transactionId);
            if (!t) {
              logger.warn({ event: 'replay:gone', command: c.id, transactionId: c.transactionId }, 'the transaction of a replay command no longer exists');
              await ledger.markDone(c.organizationId, c.id, deps.wallClock());
              return;
            }
            const plan = planReplay(await replayFacts({ artifacts: deps.stores.artifacts, results: deps.stores.results, config: deps.config }, c.kind, t), resources.config.cassandra.retentionSeconds);
            if (plan instanceof Error) {
              // record on the trace why the replay did not run (configuration changed meanwhile)
              const probe = { ...replayWorkless(c, t.traceGuid, t.direction, t.partnerKey), nodeId: t.deliveryNodeId };
              const ctx = await contextOf(deps, probe, c.requestedAt);
              const e = mergeEffects(effects(), failure(ctx, { transactionId: null, message: `The ${c.kind === 'resend' ? 'resend' : 'redelivery'} of transaction ${t.id} could not start: ${plan.message}`, direction: 'outbound', at: c.requestedAt, notify: false }));
              await applyEffects(deps.stores, deps.emitter, e, deps.wallClock());
            } else {
              const work = replayWork(plan, t, c);
              await deps.emitter.produce([{ topic: stageTopic(work.service as NodeService), key: work.traceGuid, value: work }]);
            }
            await ledger.markDone(c.organizationId, c.id, deps.wallClock());
          },
        },
      );
      await runner.start();
    },
    stop: async () => {
      await runner?.stop();
    },
  };
}

/** A work item naming the command's trace, for recording a failure on it. */
function replayWorkless(c: ReplayCommand, traceGuid: string, direction: 'inbound' | 'outbound', partnerKey: string | null) {
  return {
    id: `replay-${c.id}`,
    traceGuid,
    organizationId: c.organizationId,
    service: 'partner_endpoint',
    flowId: null,
    flowVersion: null,
    nodeId: null,
    direction,
    partnerKey,
    transactionId: c.transactionId,
    inputResultId: null,
    artifacts: [],
    usageIndicator: null,
    resend: true,
    attempt: c.attempt,
    createdAt: c.requestedAt,
    params: {},
  } as const;
}
