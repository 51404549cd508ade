/**
 * An idle consumer of the service's Kafka client keeps its broker connections quiet: kafkajs
 * 2.2.4 re-checked each connection's request queue every millisecond while nothing waited
 * (src/adapters/kafka/idle-timer.ts); with the fix a connection checks only when a request
 * completes or waits. And a consumer with a short wait that is marked to wait longer when idle
 * (src/adapters/kafka/idle-fetch.ts) stops polling the broker while nothing arrives, yet gets the
 * first message at once.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createKafka } from '../../../src/adapters/kafka/client.ts';
import { createTopicsReady } from '../../../src/adapters/kafka/topic-definitions.ts';
import { waitLongerWhenIdle } from '../../../src/adapters/kafka/idle-fetch.ts';
import { createLogger } from '../../../src/logger.ts';
import { createTestTopicPrefix } from '../helpers/index.ts';
import { eventually, isolatedConfig } from '../helpers/isolated-config.ts';

describe('an idle Kafka consumer', () => {
  it('checks its request queues a few times a second, not a thousand', async () => {
    const iso = isolatedConfig();
    const kafka = createKafka(iso.config, createLogger({ ...iso.config, logLevel: 'silent' }));
    const queue = (createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as { prototype: { checkPendingRequests: (this: unknown) => void } }).prototype;
    // deleted with its prefix when the test finishes
    const topic = `${createTestTopicPrefix()}idle`;
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsReady(admin, [{ topic, numPartitions: 1 }]);
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

describe('a consumer with a 50 ms wait', () => {
  it('fetches a few times in 3 idle seconds when marked to wait longer when idle (some 60 times when not), and gets a message within a fraction of a second', async () => {
    const iso = isolatedConfig();
    const kafka = createKafka(iso.config, createLogger({ ...iso.config, logLevel: 'silent' }));
    const broker = (createRequire(import.meta.url)('kafkajs/src/broker/index.js') as { prototype: { fetch: (this: unknown, ...a: unknown[]) => Promise<unknown> } }).prototype;
    const topic = `${createTestTopicPrefix()}idlefetch`;
    const admin = kafka.admin();
    const producer = kafka.producer();
    await Promise.all([admin.connect(), producer.connect()]);
    await createTopicsReady(admin, [{ topic, numPartitions: 1 }]);
    const original = broker.fetch;
    const fetches = new Map<string, number>();
    broker.fetch = function (this: unknown, ...a: unknown[]) {
      const group = (this as { connectionPool?: { clientId?: string } }).connectionPool?.clientId ?? '?';
      fetches.set(group, (fetches.get(group) ?? 0) + 1);
      return original.apply(this, a);
    };
    // two consumers, each with a client of its own (the client id tells their fetches apart)
    const consumers = ['marked', 'plain'].map((name) => {
      const k = createKafka(iso.config, createLogger({ ...iso.config, logLevel: 'silent' }), `-${name}`);
      return { name, clientId: `${iso.config.serviceName}-${name}`, groupId: `${topic}-${name}`, consumer: k.consumer({ groupId: `${topic}-${name}`, maxWaitTimeInMs: 50, minBytes: 256 * 1024, heartbeatInterval: 1000 }), got: [] as number[] };
    });
    const mark = waitLongerWhenIdle(consumers[0]!.groupId, 1000);
    try {
      for (const c of consumers) {
        await c.consumer.connect();
        await c.consumer.subscribe({ topics: [topic], fromBeginning: true });
        await c.consumer.run({ eachMessage: () => Promise.resolve(void c.got.push(Date.now())) });
      }
      await new Promise((r) => setTimeout(r, 2500)); // joined and fetching
      fetches.clear();
      await new Promise((r) => setTimeout(r, 3000));
      const marked = fetches.get(consumers[0]!.clientId) ?? 0;
      const plain = fetches.get(consumers[1]!.clientId) ?? 0;
      expect(plain, `fetches ${JSON.stringify([...fetches])}`).toBeGreaterThan(25);
      expect(marked, `fetches ${JSON.stringify([...fetches])}`).toBeLessThan(6);
      // the marked consumer's fetch in progress answers the first message as it arrives
      const sent = Date.now();
      await producer.send({ topic, messages: [{ value: 'one' }] });
      await eventually(() => (consumers[0]!.got.length > 0 ? true : undefined), 10_000, 'the marked consumer got the message');
      expect(consumers[0]!.got[0]! - sent).toBeLessThan(500);
    } finally {
      broker.fetch = original;
      mark.forget();
      await Promise.all(consumers.map((c) => c.consumer.disconnect()));
      await Promise.all([producer.disconnect(), admin.disconnect()]);
      await iso.cleanup();
    }
  }, 60_000);
});
