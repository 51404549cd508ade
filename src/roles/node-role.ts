/**
 * The role of one node service: a consumer group on `stage.<service>` that hands each batch of
 * work items to the service's node module (src/nodes/<service>/node.ts). The consumer runner
 * owns offsets, heartbeats, retries and the dead-letter topic; on giving up on an item the
 * module records the failure on its trace first. A service with no module starts no consumer
 * group: its messages wait on the topic until a build with the step is deployed.
 */
import type { NodeService } from '../domain/node-services.ts';
import type { Role } from './role.ts';
import { stageTopic } from '../wire/topics.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import { ConsumerRunner, PartialBatchFailure } from '../adapters/kafka/consumer-runner.ts';
import { ItemsFailed, type NodeModule } from '../nodes/node.ts';
import type { Resources } from './resources.ts';

/** Builds a node module from the process's resources. */
export type NodeFactory = (resources: Resources) => Promise<NodeModule> | NodeModule;

/** Partitions a node service works on at once, per process. */
const PARTITIONS_CONCURRENTLY = 6;

/**
 * `prepare` runs before the role consumes (the composition root registers the in-house steps
 * this process runs inline there).
 */
export function nodeRole(service: NodeService, resources: Resources, factory: NodeFactory | undefined, prepare?: () => Promise<void>): Role {
  const name = `node:${service}`;
  let runner: ConsumerRunner<StageMessage> | undefined;
  let module: NodeModule | undefined;
  return {
    name,
    start: async () => {
      if (!factory) {
        resources.logger.info({ event: `${name}:idle`, role: name }, 'no step registered for this node service; not consuming');
        return;
      }
      const [kafka, wire, producer, mod] = await Promise.all([resources.kafka(), resources.wire(), resources.producer(), factory(resources)]);
      await prepare?.();
      module = mod;
      runner = new ConsumerRunner<StageMessage>(
        { kafka, wire, producer, config: resources.config, logger: resources.logger, metrics: resources.metrics, tracer: await resources.tracer() },
        {
          name,
          group: `node.${service}`,
          topics: [stageTopic(service)],
          partitionsConcurrently: PARTITIONS_CONCURRENTLY,
          handleBatch: async (messages, { logger, heartbeat }) => {
            try {
              return await mod.handle(
                messages.map((m) => ({ message: m.value })),
                { logger, heartbeat },
              );
            } catch (err) {
              if (!(err instanceof ItemsFailed)) throw err;
              const ids = new Set(err.itemIds);
              throw new PartialBatchFailure(
                messages.filter((m) => ids.has(m.value.id)).map((m) => m.offset),
                err.failure,
              );
            }
          },
          onGiveUp: (messages, err, attempts) =>
            mod.giveUp(
              messages.map((m) => ({ message: m.value })),
              err,
              attempts,
            ),
        },
      );
      await runner.start();
    },
    stop: async () => {
      await runner?.stop();
      await module?.close?.();
    },
  };
}
