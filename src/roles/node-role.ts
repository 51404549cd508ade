/**
 * The role of one node service: a consumer group on `stage.<service>` that runs the
 * service's step on each message. A node service plugs in a `NodeDefinition`:
 *
 *   decode (runner) → step (pure) → write (idempotent store writes) → produce (emissions)
 *
 * and the consumer runner owns everything else (offsets, heartbeats, retries, dead letters).
 * A service with no definition yet starts no consumer group: its messages wait on the topic
 * until a build with the step is deployed.
 */
import type { NodeService } from '../domain/node-services.ts';
import type { Logger } from '../logger.ts';
import type { Role } from '../main.ts';
import { stageTopic } from '../wire/topics.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import { ConsumerRunner, type Consumed } from '../adapters/kafka/consumer-runner.ts';
import type { Resources } from './resources.ts';

/** A message a step asks to produce; `topic` is the name without prefix, `value` its codec's type. */
export interface Emission {
  readonly topic: string;
  readonly key: string;
  readonly value: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface NodeRunContext {
  readonly logger: Logger;
  /** 1 on the first try of this message. */
  readonly attempt: number;
  readonly message: Consumed<StageMessage>;
}

/** What a node service provides. `O` is its step output (rows to upsert, messages to emit). */
export interface NodeDefinition<O = unknown> {
  /** Pure decision: no I/O beyond reads through ports given at construction. */
  step(input: StageMessage, ctx: NodeRunContext): Promise<O> | O;
  /** Idempotent writes (deterministic keys): a redelivered message rewrites the same rows. */
  write(output: O, ctx: NodeRunContext): Promise<void>;
  /** Messages to produce once the writes are done. */
  emissions(output: O): readonly Emission[];
}

/** Builds a node definition from the process's resources. */
export type NodeFactory = (resources: Resources) => Promise<NodeDefinition> | NodeDefinition;

export function nodeRole(service: NodeService, resources: Resources, factory: NodeFactory | undefined): Role {
  const name = `node:${service}`;
  let runner: ConsumerRunner<StageMessage> | undefined;
  return {
    name,
    start: async () => {
      if (!factory) {
        resources.logger.info({ event: `${name}:idle`, role: name }, 'no step registered for this node service; not consuming');
        return;
      }
      const [kafka, wire, producer, def] = await Promise.all([resources.kafka(), resources.wire(), resources.producer(), factory(resources)]);
      runner = new ConsumerRunner<StageMessage>(
        { kafka, wire, producer, config: resources.config, logger: resources.logger },
        {
          name,
          group: `node.${service}`,
          topics: [stageTopic(service)],
          handle: async (message, { logger, attempt }) => {
            const ctx: NodeRunContext = { logger, attempt, message };
            const output = await def.step(message.value, ctx);
            await def.write(output, ctx);
            const out = def.emissions(output);
            await producer.send(
              out.map((e) => ({ topic: wire.topic(e.topic), key: e.key, value: wire.encode(e.topic, e.value), ...(e.headers ? { headers: e.headers } : {}) })),
            );
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
