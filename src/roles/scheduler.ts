/**
 * The scheduler role. It owns time so that no consumer ever sleeps:
 *
 * - Delay forwarder: consumes the `delay.<n>s` tiers and forwards each DelayedMessage to its
 *   target topic once due. When the head of a partition is not due yet, the partition is
 *   paused (with a seek back to that message) and resumed by a timer at its due time; other
 *   partitions and tiers keep flowing. Each tier is in due order up to its own width, so a
 *   paused head delays the messages behind it by at most n seconds.
 * - Timers on the single-partition `control.scheduler` topic (SFTP polls, retention sweeps)
 *   start with their jobs; none is registered in this build.
 *
 * Safe with several replicas: the delay tiers are split by partition across the group, and the
 * control topic has one partition, so one replica owns it.
 */
import type { Consumer } from 'kafkajs';
import type { Role } from '../main.ts';
import { isTdxError } from '../errors.ts';
import { DELAY_TIERS_SECONDS, type DelayedMessage } from '../wire/delayed.v1.ts';
import type { Resources } from './resources.ts';

export function schedulerRole(resources: Resources): Role {
  let consumer: Consumer | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const log = resources.logger.child({ role: 'scheduler' });
  return {
    name: 'scheduler',
    start: async () => {
      const [kafka, wire, producer] = await Promise.all([resources.kafka(), resources.wire(), resources.producer()]);
      const { topicPrefix, groupPrefix, sessionTimeoutMs } = resources.config.kafka;
      const c = kafka.consumer({ groupId: `${groupPrefix}scheduler.delay`, sessionTimeout: sessionTimeoutMs, allowAutoTopicCreation: false });
      consumer = c;
      await c.connect();
      await c.subscribe({ topics: DELAY_TIERS_SECONDS.map((s) => `${topicPrefix}delay.${s}s`), fromBeginning: true });
      await c.run({
        autoCommit: true,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: DELAY_TIERS_SECONDS.length,
        eachBatch: async (payload) => {
          const { batch } = payload;
          const tier = batch.topic.slice(topicPrefix.length);
          for (const m of batch.messages) {
            if (!payload.isRunning() || payload.isStale()) break;
            let d: DelayedMessage;
            try {
              d = await wire.decode<DelayedMessage>(tier, m.value ?? Buffer.alloc(0));
            } catch (err) {
              if (!isTdxError(err) || err.code !== 'wire_decode_failed') throw err;
              log.error({ event: 'scheduler:delay:undecodable', topic: batch.topic, partition: batch.partition, offset: m.offset, err }, 'skipping undecodable delayed message');
              payload.resolveOffset(m.offset);
              continue;
            }
            const waitMs = Math.ceil(d.dueAt / 1000 - Date.now());
            if (waitMs > 0) {
              c.seek({ topic: batch.topic, partition: batch.partition, offset: m.offset });
              const resume = payload.pause();
              const t = setTimeout(() => {
                timers.delete(t);
                resume();
              }, waitMs);
              timers.add(t);
              break;
            }
            await producer.send([{ topic: topicPrefix + d.targetTopic, key: d.key, value: d.value, headers: { ...d.headers, 'tdx-delay-id': d.id, 'tdx-attempt': String(d.attempt) } }]);
            payload.resolveOffset(m.offset);
            await payload.heartbeat();
          }
          await payload.commitOffsetsIfNecessary();
        },
      });
      log.info({ event: 'scheduler:delay:consuming' }, 'forwarding delayed messages');
    },
    stop: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      if (consumer) {
        await consumer.stop();
        await consumer.disconnect();
      }
    },
  };
}
