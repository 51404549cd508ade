import { describe, expect, it } from 'vitest';
import type { Producer } from 'kafkajs';
import { BatchingProducer } from '../../../../src/adapters/kafka/client.ts';

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
    const p = new BatchingProducer(producer, 60_000, 2);
    await p.send([{ topic: 'a', key: null, value: Buffer.from('1') }, { topic: 'a', key: null, value: Buffer.from('2') }]);
    expect(batches).toHaveLength(1);
  });

  it('rejects every caller of a failed batch with broker_unavailable', async () => {
    const { producer } = fakeProducer(true);
    const p = new BatchingProducer(producer, 1);
    const results = await Promise.allSettled([p.send([{ topic: 'a', key: null, value: Buffer.from('1') }]), p.send([{ topic: 'a', key: null, value: Buffer.from('2') }])]);
    for (const r of results) expect(r).toMatchObject({ status: 'rejected', reason: { code: 'broker_unavailable' } });
  });

  it('sends what is pending on close', async () => {
    const { producer, batches } = fakeProducer();
    const p = new BatchingProducer(producer, 60_000);
    const sent = p.send([{ topic: 'a', key: null, value: Buffer.from('1') }]);
    await p.close();
    await sent;
    expect(batches).toHaveLength(1);
  });
});
