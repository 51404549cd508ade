/**
 * An idle consumer of the service's Kafka client keeps its broker connections quiet: kafkajs
 * 2.2.4 re-checked each connection's request queue every millisecond while nothing waited
 * (src/adapters/kafka/idle-timer.ts); with the fix a connection checks only when a request
 * completes or waits.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createKafka } from '../../../src/adapters/kafka/client.ts';
import { createLogger } from '../../../src/logger.ts';
import { createTestTopicPrefix } from '../helpers/index.ts';
import { isolatedConfig } from '../helpers/isolated-config.ts';

describe('an idle Kafka consumer', () => {
  it('checks its request queues a few times a second, not a thousand', async () => {
    const iso = isolatedConfig();
    const kafka = createKafka(iso.config, createLogger({ ...iso.config, logLevel: 'silent' }));
    const queue = (createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as { prototype: { checkPendingRequests: (this: unknown) => void } }).prototype;
    // deleted with its prefix when the test finishes
    const topic = `${createTestTopicPrefix()}idle`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    const consumer = kafka.consumer({ groupId: `${topic}-group`, maxWaitTimeInMs: 1000, heartbeatInterval: 1000 });
    const original = queue.checkPendingRequests;
    let checks = 0;
    queue.checkPendingRequests = function (this: unknown) {
      checks++;
      original.call(this);
    };
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({ eachMessage: () => Promise.resolve() });
      await new Promise((r) => setTimeout(r, 1500)); // joined and fetching
      checks = 0;
      await new Promise((r) => setTimeout(r, 3000));
      // a fetch a second and a heartbeat a second on a few connections: tens, where the
      // unfixed queue re-checked every millisecond (thousands)
      expect(checks).toBeGreaterThan(0);
      expect(checks).toBeLessThan(200);
    } finally {
      queue.checkPendingRequests = original;
      await consumer.disconnect();
      await admin.disconnect();
      await iso.cleanup();
    }
  }, 60_000);
});
