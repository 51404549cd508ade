import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Message, Producer } from 'kafkajs';
import { BatchingProducer, PartitionWitness } from '../../../../src/adapters/kafka/client.ts';
import { loadConfig } from '../../../../src/config.ts';
import { isTdxError } from '../../../../src/errors.ts';
import { createLogger } from '../../../../src/logger.ts';

type Batch = { topicMessages: { topic: string; messages: { key: unknown; value: unknown }[] }[] };

function fakeProducer(fail = false): { producer: Producer; batches: Batch[] } {
  const batches: Batch[] = [];
  const producer = {
    sendBatch: (b: Batch) => {
      batches.push(b);
      return fail ? Promise.reject(new Error('broker gone')) : Promise.resolve([]);
    },
    disconnect: () => Promise.resolve(),
  } as unknown as Producer;
  return { producer, batches };
}

describe('BatchingProducer', () => {
  it('gathers concurrent sends into one batch grouped by topic', async () => {
    const { producer, batches } = fakeProducer();
    const p = new BatchingProducer(producer, 5);
    await Promise.all([
      p.send([{ topic: 'a', key: 'k1', value: Buffer.from('1') }]),
      p.send([{ topic: 'b', key: 'k2', value: Buffer.from('2') }, { topic: 'a', key: 'k3', value: Buffer.from('3') }]),
    ]);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.topicMessages.map((t) => [t.topic, t.messages.map((m) => m.key)])).toEqual([
      ['a', ['k1', 'k3']],
      ['b', ['k2']],
    ]);
  });

  it('flushes at once when the batch is full', async () => {
    const { producer, batches } = fakeProducer();
    const p = new BatchingProducer(producer, 60_000, { maxBatchRecords: 2 });
    await p.send([{ topic: 'a', key: null, value: Buffer.from('1') }, { topic: 'a', key: null, value: Buffer.from('2') }]);
    expect(batches).toHaveLength(1);
  });

  it('rejects every caller of a failed batch with broker_unavailable', async () => {
    const { producer } = fakeProducer(true);
    const p = new BatchingProducer(producer, 1);
    const results = await Promise.allSettled([p.send([{ topic: 'a', key: null, value: Buffer.from('1') }]), p.send([{ topic: 'a', key: null, value: Buffer.from('2') }])]);
    for (const r of results) expect(r).toMatchObject({ status: 'rejected', reason: { code: 'broker_unavailable' } });
  });

  it('replaces a producer whose idempotent sequence the broker lost, and sends the next batch with the new one', async () => {
    // kafkajs reports the broker's OUT_OF_ORDER_SEQUENCE_NUMBER as a protocol error, wrapped when retries ran out
    const lost = Object.assign(new Error('The broker received an out of order sequence number'), { name: 'KafkaJSProtocolError', type: 'OUT_OF_ORDER_SEQUENCE_NUMBER', code: 45, retriable: false });
    const wrapped = Object.assign(new Error(lost.message), { name: 'KafkaJSNumberOfRetriesExceeded', cause: lost });
    const events: string[] = [];
    const make = (name: string, fail: boolean): Producer =>
      ({
        connect: () => (events.push(`${name}:connect`), Promise.resolve()),
        sendBatch: () => (events.push(`${name}:send`), fail ? Promise.reject(wrapped) : Promise.resolve([])),
        disconnect: () => (events.push(`${name}:disconnect`), Promise.resolve()),
      }) as unknown as Producer;
    let made = 0;
    const p = new BatchingProducer(make('first', true), 0, { renew: () => make(`renewed${++made}`, false) });
    const first = await p.send([{ topic: 'a', key: 'k', value: Buffer.from('1') }]).catch((e: unknown) => e);
    expect(isTdxError(first) && first.code).toBe('broker_unavailable');
    await p.send([{ topic: 'a', key: 'k', value: Buffer.from('1') }]);
    expect(events).toEqual(['first:send', 'first:disconnect', 'renewed1:connect', 'renewed1:send']);
    expect(made).toBe(1);
  });

  it('sends again the records of a partition the broker answer leaves out (kafkajs drops them after a leader moved), and only those', async () => {
    const witness = new PartitionWitness();
    const partition = witness.partitioner();
    const meta = [0, 1, 2].map((partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0, offlineReplicas: [] }));
    const sent: { round: number; topic: string; key: string }[] = [];
    let round = 0;
    const producer = {
      sendBatch: (b: { topicMessages: { topic: string; messages: Message[] }[] }) => {
        round++;
        const answer: { topicName: string; partition: number; errorCode: number }[] = [];
        for (const { topic, messages } of b.topicMessages) {
          for (const message of messages) {
            const p = partition({ topic, partitionMetadata: meta, message });
            sent.push({ round, topic, key: String(message.key) });
            // the first answer leaves out the topic `lost`, as kafkajs does after a leader change
            if (!(round === 1 && topic === 'lost')) answer.push({ topicName: topic, partition: p, errorCode: 0 });
          }
        }
        return Promise.resolve(answer);
      },
      disconnect: () => Promise.resolve(),
    } as unknown as Producer;
    const p = new BatchingProducer(producer, 0, { witness });
    await p.send([
      { topic: 'kept', key: 'a', value: Buffer.from('1') },
      { topic: 'lost', key: 'b', value: Buffer.from('2') },
      { topic: 'lost', key: 'c', value: Buffer.from('3') },
    ]);
    expect(sent.filter((x) => x.round === 2).map((x) => `${x.topic}:${x.key}`).sort()).toEqual(['lost:b', 'lost:c']);
    expect(round).toBe(2);
  });

  it('fails the batch when the broker keeps answering without some of its records', async () => {
    const witness = new PartitionWitness();
    const partition = witness.partitioner();
    const meta = [{ partitionId: 0, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0, offlineReplicas: [] }];
    const producer = {
      sendBatch: (b: { topicMessages: { topic: string; messages: Message[] }[] }) => {
        for (const { topic, messages } of b.topicMessages) for (const message of messages) partition({ topic, partitionMetadata: meta, message });
        return Promise.resolve([]);
      },
      disconnect: () => Promise.resolve(),
    } as unknown as Producer;
    const p = new BatchingProducer(producer, 0, { witness });
    const err = await p.send([{ topic: 'lost', key: 'k', value: Buffer.from('1') }]).catch((e: unknown) => e);
    expect(isTdxError(err) && err.code).toBe('broker_unavailable');
  });

  it('keeps its producer after any other failure', async () => {
    const { producer } = fakeProducer(true);
    let made = 0;
    const p = new BatchingProducer(producer, 0, { renew: () => (made++, producer) });
    await p.send([{ topic: 'a', key: null, value: Buffer.from('1') }]).catch(() => undefined);
    expect(made).toBe(0);
  });

  it('sends what is pending on close', async () => {
    const { producer, batches } = fakeProducer();
    const p = new BatchingProducer(producer, 60_000);
    const sent = p.send([{ topic: 'a', key: null, value: Buffer.from('1') }]);
    await p.close();
    await sent;
    expect(batches).toHaveLength(1);
  });

  it('splits a batch above maxRequestBytes into requests sent one after another, in order', async () => {
    const { producer, batches } = fakeProducer();
    let inFlight = 0;
    let most = 0;
    const send = producer.sendBatch.bind(producer);
    producer.sendBatch = async (b) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return send(b);
    };
    const p = new BatchingProducer(producer, 5, { maxRequestBytes: 1000 });
    // 25 records of about 132 bytes: 7 per request of at most 1000 bytes, so 4 requests
    const records = Array.from({ length: 25 }, (_, i) => ({ topic: 'a', key: `k${i}`, value: Buffer.alloc(98) }));
    await Promise.all([p.send(records.slice(0, 20)), p.send(records.slice(20))]);
    expect(batches.map((b) => b.topicMessages[0]!.messages.length)).toEqual([7, 7, 7, 4]);
    expect(batches.flatMap((b) => b.topicMessages.flatMap((t) => t.messages.map((m) => m.key)))).toEqual(records.map((r) => r.key));
    expect(most).toBe(1);
  });

  it('keeps the order of batches flushed while an earlier one is still being sent', async () => {
    const { producer, batches } = fakeProducer();
    const send = producer.sendBatch.bind(producer);
    producer.sendBatch = async (b) => {
      await new Promise((r) => setTimeout(r, 5));
      return send(b);
    };
    const p = new BatchingProducer(producer, 0, { maxRequestBytes: 200 });
    const first = p.send(Array.from({ length: 4 }, (_, i) => ({ topic: 'a', key: `x${i}`, value: Buffer.alloc(60) })));
    const second = p.send([{ topic: 'a', key: 'y', value: Buffer.alloc(10) }]);
    await Promise.all([first, second]);
    expect(batches.flatMap((b) => b.topicMessages.flatMap((t) => t.messages.map((m) => m.key)))).toEqual(['x0', 'x1', 'x2', 'x3', 'y']);
  });

  it('without a linger, sends at once when idle and gathers the sends made while a request is in flight into the next one', async () => {
    const { producer, batches } = fakeProducer();
    const send = producer.sendBatch.bind(producer);
    producer.sendBatch = async (b) => {
      await new Promise((r) => setTimeout(r, 5));
      return send(b);
    };
    const p = new BatchingProducer(producer, 0);
    const first = p.send([{ topic: 'a', key: 'k0', value: Buffer.alloc(1) }]);
    const rest = Array.from({ length: 20 }, (_, i) => p.send([{ topic: 'a', key: `k${i + 1}`, value: Buffer.alloc(1) }]));
    await Promise.all([first, ...rest]);
    const keys = batches.map((b) => b.topicMessages.flatMap((t) => t.messages.map((m) => m.key)));
    expect(keys).toEqual([['k0'], Array.from({ length: 20 }, (_, i) => `k${i + 1}`)]);
    // idle again: the next send goes at once, alone
    await p.send([{ topic: 'a', key: 'late', value: Buffer.alloc(1) }]);
    expect(batches).toHaveLength(3);
  });

  it('rejects the callers of a failed request and still sends the next batch', async () => {
    const { producer, batches } = fakeProducer();
    const send = producer.sendBatch.bind(producer);
    let calls = 0;
    producer.sendBatch = (b) => (++calls === 2 ? Promise.reject(new Error('too large')) : send(b));
    const p = new BatchingProducer(producer, 0, { maxRequestBytes: 200 });
    const failed = p.send(Array.from({ length: 4 }, (_, i) => ({ topic: 'a', key: `x${i}`, value: Buffer.alloc(60) })));
    const next = p.send([{ topic: 'a', key: 'y', value: Buffer.alloc(10) }]);
    await expect(failed).rejects.toMatchObject({ code: 'broker_unavailable' });
    await next;
    expect(batches.at(-1)!.topicMessages[0]!.messages.map((m) => m.key)).toEqual(['y']);
  });
});


describe('BatchingProducer.createBounded', () => {
  /** A loopback port nothing listens on: a broker that is down. */
  const closedPort = (): Promise<number> =>
    new Promise((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as AddressInfo;
        srv.close(() => resolve(port));
      });
    });

  // Without a broker this checks the bound the sends rely on: the client's connection retries
  // (a send to a broker gone reconnects through them), one retry where the process's client
  // has eight with growing pauses. The whole path, a broker stopped and started again under the
  // service, is test/integration/pipeline/kafka-outage.test.ts.
  it('gives up connecting to a broker that is down within seconds, with a reason, and a send then fails with broker_unavailable', async () => {
    const config = loadConfig({ KAFKA_BROKERS: `127.0.0.1:${await closedPort()}` });
    const p = BatchingProducer.createBounded(config, createLogger({ ...config, logLevel: 'silent' }));
    const started = Date.now();
    const connectErr = await p.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String((connectErr as Error | undefined)?.message)).toMatch(/ECONNREFUSED|Connection error/);
    // the API waits 10 s for a work item
    expect(Date.now() - started).toBeLessThan(5_000);
    const err = await p.send([{ topic: 'stage.partner_endpoint', key: 'k', value: Buffer.from('work') }]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isTdxError(err) && err.code).toBe('broker_unavailable');
    await p.close();
  }, 20_000);
});
