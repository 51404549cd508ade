/**
 * Poison input: a work item that always fails is tried a bounded number of times, then its
 * trace gets an error result saying so, the message goes to the dead-letter topic, and the
 * partition moves on. Its neighbours in the same batch are not held back or failed with it.
 * The mapping node is wrapped for the test (poisonedMappingParts): it throws for test
 * interchanges (ISA15 T).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusOf } from '../../../src/domain/records.ts';
import type { DeadLetter } from '../../../src/wire/dead-letter.v1.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { interchange, po850, poisonedMappingParts, pollingPartnerDoc, startPipeline, type Pipeline } from './support.ts';

let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline(pollingPartnerDoc(), {
    env: { TDX_CONSUMER_ATTEMPTS: '3', TDX_CONSUMER_RETRY_MIN_MS: '100', TDX_CONSUMER_RETRY_MAX_MS: '400' },
    sharedKeyspace: true,
    parts: poisonedMappingParts(() => new TypeError('Cannot read properties of undefined (reading "heading")')),
  });
}, 240_000);
afterAll(async () => p?.stop());

describe('a message that always fails', () => {
  it('ends in an error result and a dead letter after bounded attempts, and its neighbours are delivered', async () => {
    const bad = (await p.submitEdi('GLOBEX', interchange({ control: 71, usage: 'T', groups: [{ sets: [po850('PO-POISON')] }] }))).body['traceGuid'] as string;
    const good = (await p.submitEdi('GLOBEX', interchange({ control: 72, groups: [{ sets: [po850('PO-FINE-1'), po850('PO-FINE-2')] }] }))).body['traceGuid'] as string;
    const fine = await p.settled(good, 2);
    expect(fine.map((t) => statusOf(t))).toEqual(['delivered', 'delivered']);
    const [poisoned] = await p.settled(bad, 1);
    expect(statusOf(poisoned!)).toBe('error');
    const results = await p.results(bad);
    const err = results.find((r) => r.status === 'error')!;
    expect(err.service).toBe('mapping');
    expect(err.transactionId).toBe(poisoned!.id);
    expect(err.detail.errorMessage).toMatch(/^Processing failed after 3 attempts and was set aside for operators: Cannot read properties of undefined/);
    expect(err.detail.incomingResultId).toBe(results.find((r) => r.service === 'x12_split')!.id);

    // the dead letter, with the original message
    const kafka = await p.reader.kafka();
    const wire = await p.reader.wire();
    const consumer = kafka.consumer({ groupId: `${p.iso.config.kafka.groupPrefix}test.dlq` });
    const letters: DeadLetter[] = [];
    await consumer.connect();
    await consumer.subscribe({ topics: [wire.topic('deadletter')], fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void letters.push(await wire.decode<DeadLetter>('deadletter', message.value!)) });
    try {
      const letter = await eventually(() => letters.find((l) => l.key === bad), 60_000, 'the dead letter');
      expect(letter.sourceTopic).toBe(wire.topic('stage.mapping'));
      expect(letter.attempts).toBe(3);
      expect(letter.errorMessage).toMatch(/Cannot read properties/);
      expect(letters.filter((l) => l.key === good)).toEqual([]);
    } finally {
      await consumer.disconnect();
    }
  });
});
