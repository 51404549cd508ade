/**
 * Kafka + schema registry are real: an Avro record registered, produced, consumed and decoded
 * with the exact @kafkajs/confluent-schema-registry calls the service makes.
 */
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { describe, expect, it } from 'vitest';
import { createTopicsReady } from '../../../src/adapters/kafka/topic-definitions.ts';
import { createTestSubjectPrefix, createTestTopicPrefix, deleteTopicsIfPresent, eventually, stackEnv, testKafka } from '../helpers/index.ts';

const schemaV1 = {
  type: 'record',
  name: 'SmokeEvent',
  namespace: 'tdx.smoke',
  fields: [
    { name: 'traceId', type: 'string' },
    { name: 'count', type: 'long' },
  ],
};

describe('kafka and schema registry', () => {
  it("the tests' topic clean-up deletes what is there and takes a topic already gone as deleted", async () => {
    const prefix = createTestTopicPrefix();
    // no retries: kafkajs retries an unknown topic's answer for seconds before giving it up
    const admin = testKafka().admin({ retry: { retries: 0 } });
    await admin.connect();
    try {
      await createTopicsReady(admin, [{ topic: `${prefix}present`, numPartitions: 1 }]);
      await expect(admin.deleteTopics({ topics: [`${prefix}present`, `${prefix}gone`] })).rejects.toThrow(/does not host this topic-partition/);
      await admin.createTopics({ topics: [{ topic: `${prefix}present`, numPartitions: 1 }], waitForLeaders: true }).catch(() => undefined);
      await deleteTopicsIfPresent(admin, [`${prefix}present`, `${prefix}gone`]);
      // a deletion under way may still be listed for a moment
      await eventually(async () => ((await admin.listTopics()).some((t) => t.startsWith(prefix)) ? undefined : true), 10_000, `the topics of ${prefix} to be gone`);
    } finally {
      await admin.disconnect();
    }
  });

  it('round-trips an Avro record with its registered schema id', async () => {
    const registry = new SchemaRegistry({ host: stackEnv().schemaRegistryUrl });
    const topic = `${createTestTopicPrefix()}smoke`;
    const subject = `${createTestSubjectPrefix()}smoke-value`;

    const { id } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(schemaV1) },
      { subject, compatibility: COMPATIBILITY.BACKWARD },
    );
    expect(id).toBeGreaterThan(0);
    expect(await registry.getLatestSchemaId(subject)).toBe(id);

    const config = (await (await fetch(`${stackEnv().schemaRegistryUrl}/config/${subject}`)).json()) as { compatibilityLevel: string };
    expect(config.compatibilityLevel).toBe('BACKWARD');

    // BACKWARD is enforced: a new required field without a default cannot read old data.
    const incompatible = { ...schemaV1, fields: [...schemaV1.fields, { name: 'extra', type: 'string' }] };
    await expect(
      registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(incompatible) }, { subject }),
    ).rejects.toThrow();

    const payload = { traceId: '2b0c4a8e-7f7e-4a53-9d3e-4f0c8d3b8a11', count: 42 };
    const encoded = await registry.encode(id, payload);
    expect(encoded[0]).toBe(0); // Confluent wire format: magic byte 0, then the 4-byte schema id
    expect(encoded.readInt32BE(1)).toBe(id);
    expect(encoded.length).toBeGreaterThan(5);

    const kafka = testKafka();
    const admin = kafka.admin();
    await admin.connect();
    await createTopicsReady(admin, [{ topic, numPartitions: 1 }]);
    await admin.disconnect();

    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ key: payload.traceId, value: encoded }] });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: `${topic}.group`, sessionTimeout: 10_000, heartbeatInterval: 500 });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    const received = await new Promise<{ key: string; value: Buffer }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no record consumed within 60 s')), 60_000);
      consumer
        .run({
          eachMessage: ({ message }) => {
            clearTimeout(timer);
            resolve({ key: message.key!.toString(), value: message.value! });
            return Promise.resolve();
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();

    expect(received.key).toBe(payload.traceId);
    expect(received.value.readInt32BE(1)).toBe(id);
    expect(await registry.decode(received.value)).toEqual(payload);
  });
});
