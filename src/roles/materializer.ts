/**
 * The materializer role: consumes the feed, log, result and transaction event topics and
 * writes them into ClickHouse in batches (one insert per partition batch and table), then
 * commits. Inserts are idempotent (ReplacingMergeTree on deterministic keys), so a batch
 * re-delivered after a crash rewrites the same rows.
 */
import type { Role } from '../main.ts';
import { ConsumerRunner } from '../adapters/kafka/consumer-runner.ts';
import { MATERIALIZED, insertBatch } from '../adapters/clickhouse/materialize.ts';
import type { Resources } from './resources.ts';

export function materializerRole(resources: Resources): Role {
  let runner: ConsumerRunner<unknown> | undefined;
  return {
    name: 'materializer',
    start: async () => {
      const [kafka, wire, producer, clickhouse] = await Promise.all([resources.kafka(), resources.wire(), resources.producer(), resources.clickhouse()]);
      const maxRows = resources.config.materializer.maxBatchRows;
      runner = new ConsumerRunner<unknown>(
        { kafka, wire, producer, config: resources.config, logger: resources.logger },
        {
          name: 'materializer',
          group: 'materializer',
          topics: [...MATERIALIZED.keys()],
          partitionsConcurrently: 8,
          handleBatch: async (messages, { logger }) => {
            const topic = messages[0]!.topic;
            const rows = await insertBatch(clickhouse, topic, messages.map((m) => m.value), maxRows);
            logger.debug({ event: 'materializer:inserted', topic, rows }, 'rows inserted');
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
