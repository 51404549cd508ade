import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { BatchingProducer, createKafka } from '../../../src/adapters/kafka/client.ts';
import { WireRegistry, createSchemaRegistry } from '../../../src/adapters/kafka/registry.ts';
import { ConsumerRunner, type Consumed } from '../../../src/adapters/kafka/consumer-runner.ts';
import { schemaIdOf } from '../../../src/wire/codec.ts';
import { valueSubject } from '../../../src/wire/topics.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import type { DeadLetter } from '../../../src/wire/dead-letter.v1.ts';
import { captureIo, eventually, isolatedConfig } from '../helpers/isolated-config.ts';

const iso = isolatedConfig({ TDX_CONSUMER_ATTEMPTS: '3', TDX_CONSUMER_RETRY_MIN_MS: '10', TDX_CONSUMER_RETRY_MAX_MS: '20' });
const { config } = iso;
const logger = createLogger({ ...config, logLevel: 'silent' });
const kafka = createKafka(config, logger, '-it');
const registry = createSchemaRegistry(config);
const wire = new WireRegistry(registry, config.kafka.topicPrefix);
const producer = BatchingProducer.create(kafka, config);
const runners: ConsumerRunner<unknown>[] = [];

beforeAll(async () => {
  await runMigrate(config, logger, captureIo().io, ['topics', 'schemas']);
  await wire.resolve();
  await producer.connect();
});

afterAll(async () => {
  // each stop waits for its fetch in hand: side by side, not one after another
  await Promise.all(runners.map((r) => r.stop()));
  await producer.close();
  await iso.cleanup();
});

const message = (id: string, traceGuid: string): StageMessage => ({
  id,
  traceGuid,
  organizationId: 'org-it',
  service: 'x12_split',
  flowId: 'flow-1',
  flowVersion: 1,
  nodeId: 'node-1',
  direction: 'inbound',
  partnerKey: 'ACME',
  transactionId: null,
  inputResultId: null,
  artifacts: [{ id: 'art-1', usage: 'input', contentType: 'application/edi-x12', filename: 'a.edi' }],
  usageIndicator: 'P',
  resend: false,
  attempt: 1,
  createdAt: Date.now() * 1000,
  params: {},
});

describe('stage codec through Kafka and the registry', () => {
  it('produces with the registered schema id and consumes the same value', async () => {
    const seen: Consumed<StageMessage>[] = [];
    const raw: Buffer[] = [];
    const runner = new ConsumerRunner<StageMessage>(
      { kafka, config, logger, wire, producer },
      {
        name: 'it:x12_split',
        group: 'it.roundtrip',
        topics: ['stage.x12_split'],
        handle: (m) => {
          seen.push(m);
          return Promise.resolve();
        },
      },
    );
    runners.push(runner as ConsumerRunner<unknown>);
    await runner.start();

    const sent = message('w-1', 'trace-roundtrip');
    const bytes = wire.encode('stage.x12_split', sent);
    raw.push(bytes);
    await producer.send([{ topic: wire.topic('stage.x12_split'), key: sent.traceGuid, value: bytes }]);

    const got = await eventually(() => seen[0], 60_000, 'the consumed message');
    expect(got.key).toBe('trace-roundtrip');
    expect(got.topic).toBe('stage.x12_split');
    // a field the writer left out that has a default reads as that default
    expect(JSON.parse(JSON.stringify(got.value))).toEqual(JSON.parse(JSON.stringify({ ...sent, transactionCreatedAt: null })));
    const registeredId = await registry.getLatestSchemaId(valueSubject(config.kafka.topicPrefix, 'stage.x12_split'));
    expect(schemaIdOf(raw[0]!)).toBe(registeredId);
  });

  it('sends an undecodable message to the dead-letter topic and goes on with the next one', async () => {
    const seen: string[] = [];
    const runner = new ConsumerRunner<StageMessage>(
      { kafka, config, logger, wire, producer },
      {
        name: 'it:mapping',
        group: 'it.deadletter',
        topics: ['stage.mapping'],
        handle: (m) => {
          seen.push(m.value.id);
          return Promise.resolve();
        },
      },
    );
    runners.push(runner as ConsumerRunner<unknown>);
    await runner.start();
    const letters: DeadLetter[] = [];
    const dlq = new ConsumerRunner<DeadLetter>(
      { kafka, config, logger, wire, producer },
      { name: 'it:dlq', group: 'it.dlq', topics: ['deadletter'], handle: (m) => (letters.push(m.value), Promise.resolve()) },
    );
    runners.push(dlq as ConsumerRunner<unknown>);
    await dlq.start();

    const garbage = Buffer.from([0, 0, 0, 0, 1, 0xff, 0xff]);
    const good = wire.encode('stage.mapping', { ...message('w-2', 'trace-dlq'), service: 'mapping' });
    await producer.send([
      { topic: wire.topic('stage.mapping'), key: 'trace-dlq', value: garbage },
      { topic: wire.topic('stage.mapping'), key: 'trace-dlq', value: good },
    ]);

    const letter = await eventually(() => letters[0], 60_000, 'the dead letter');
    expect(letter.errorCode).toBe('wire_decode_failed');
    expect(letter.sourceTopic).toBe(wire.topic('stage.mapping'));
    expect(Buffer.from(letter.value!).equals(garbage)).toBe(true);
    expect(letter.key).toBe('trace-dlq');
    await eventually(() => (seen.includes('w-2') ? true : undefined), 60_000, 'the next message');
  });

  it('retries a passing outage until it passes (never dead-lettered), and dead-letters a failure after the configured attempts', async () => {
    let outageCalls = 0;
    let failureCalls = 0;
    const handled: string[] = [];
    const runner = new ConsumerRunner<StageMessage>(
      { kafka, config, logger, wire, producer },
      {
        name: 'it:validation',
        group: 'it.retry',
        topics: ['stage.validation'],
        handle: (m) => {
          if (m.value.id === 'w-outage') {
            outageCalls += 1;
            // more failures than the attempts allowed: an outage is waited out, however long
            if (outageCalls <= 5) return Promise.reject(Object.assign(new Error('store down'), { name: 'NoHostAvailableError' }));
            handled.push(m.value.id);
            return Promise.resolve();
          }
          failureCalls += 1;
          return Promise.reject(new TypeError('cannot read this message'));
        },
      },
    );
    runners.push(runner as ConsumerRunner<unknown>);
    const letters: DeadLetter[] = [];
    const dlq = new ConsumerRunner<DeadLetter>(
      { kafka, config, logger, wire, producer },
      { name: 'it:dlq2', group: 'it.dlq2', topics: ['deadletter'], handle: (m) => (letters.push(m.value), Promise.resolve()) },
    );
    runners.push(dlq as ConsumerRunner<unknown>);
    await Promise.all([runner.start(), dlq.start()]);
    await producer.send([
      { topic: wire.topic('stage.validation'), key: 'trace-retry', value: wire.encode('stage.validation', { ...message('w-outage', 'trace-retry'), service: 'validation' }) },
      { topic: wire.topic('stage.validation'), key: 'trace-retry', value: wire.encode('stage.validation', { ...message('w-broken', 'trace-retry'), service: 'validation' }) },
    ]);
    const letter = await eventually(() => letters.find((l) => l.key === 'trace-retry'), 60_000, 'the dead letter');
    expect(handled).toEqual(['w-outage']);
    expect(outageCalls).toBe(6);
    expect(failureCalls).toBe(3);
    expect(letter.attempts).toBe(3);
    expect(letter.errorMessage).toBe('cannot read this message');
    expect(letters.filter((l) => l.key === 'trace-retry')).toHaveLength(1);
  });
});
