import { describe, expect, it } from 'vitest';
import { HoldingSender, heldRecordId } from '../../../../src/adapters/kafka/holding-sender.ts';
import type { OutgoingRecord, RecordSender } from '../../../../src/adapters/kafka/client.ts';
import type { HeldRecord, HeldWorkStore } from '../../../../src/domain/processing-ports.ts';
import { TdxError, isTdxError } from '../../../../src/errors.ts';
import { createLogger } from '../../../../src/logger.ts';
import { produceHeld } from '../../../../src/roles/jobs/held-work.ts';

const logger = createLogger({ serviceName: 'test', logLevel: 'silent' });
const rec = (value: string, headers?: Record<string, string>): OutgoingRecord => ({ topic: 'tdx.stage.partner_endpoint', key: 'trace-1', value: Buffer.from(value), ...(headers ? { headers } : {}) });

/** A held_work table in memory, split into `shards` partitions as the Cassandra one is. */
class MemoryHeld implements HeldWorkStore {
  readonly rows = new Map<string, HeldRecord>();
  failHold = false;
  constructor(readonly shards = 2) {}
  hold(records: readonly HeldRecord[]): Promise<void> {
    if (this.failHold) return Promise.reject(new TdxError('store_unavailable', 'Cassandra is down'));
    for (const r of records) this.rows.set(r.id, r);
    return Promise.resolve();
  }
  list(shard: number, limit: number): Promise<HeldRecord[]> {
    return Promise.resolve([...this.rows.values()].filter((r) => Number.parseInt(r.id.slice(0, 2), 16) % this.shards === shard).slice(0, limit));
  }
  release(records: readonly HeldRecord[]): Promise<void> {
    for (const r of records) this.rows.delete(r.id);
    return Promise.resolve();
  }
}

const sender = (send: RecordSender['send']): RecordSender => ({ send });

describe('heldRecordId', () => {
  it('names a record by everything that is sent: the same record the same id, any difference another', () => {
    expect(heldRecordId(rec('a'))).toBe(heldRecordId(rec('a')));
    expect(heldRecordId(rec('a'))).toMatch(/^[0-9a-f]{40}$/);
    const ids = new Set([rec('a'), rec('b'), rec('a', { traceparent: 'x' }), { ...rec('a'), key: null }, { ...rec('a'), topic: 'tdx.stage.mapping' }].map(heldRecordId));
    expect(ids.size).toBe(5);
    // header order does not matter
    expect(heldRecordId(rec('a', { x: '1', y: '2' }))).toBe(heldRecordId(rec('a', { y: '2', x: '1' })));
  });
});

describe('HoldingSender', () => {
  it('holds nothing when the broker confirms', async () => {
    const held = new MemoryHeld();
    await new HoldingSender(sender(() => Promise.resolve()), held, logger, 1000).send([rec('a')]);
    expect(held.rows.size).toBe(0);
  });

  it('holds the records as they were sent when the send fails, and resolves (the work is durable)', async () => {
    const held = new MemoryHeld();
    const records = [rec('a', { traceparent: '00-1-2-01' }), rec('b')];
    await new HoldingSender(sender(() => Promise.reject(new Error('Connection error: connect ECONNREFUSED'))), held, logger, 1000, () => 1234).send(records);
    expect([...held.rows.values()].sort((x, y) => (x.value.toString() < y.value.toString() ? -1 : 1))).toEqual([
      { id: heldRecordId(records[0]!), topic: records[0]!.topic, key: 'trace-1', value: Buffer.from('a'), headers: { traceparent: '00-1-2-01' }, heldAt: 1234 },
      { id: heldRecordId(records[1]!), topic: records[1]!.topic, key: 'trace-1', value: Buffer.from('b'), heldAt: 1234 },
    ]);
  });

  it('holds the records when the broker does not answer in time, without waiting for it', async () => {
    const held = new MemoryHeld();
    const started = Date.now();
    await new HoldingSender(sender(() => new Promise<void>(() => undefined)), held, logger, 50).send([rec('a')]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(held.rows.size).toBe(1);
  });

  it('fails with broker_unavailable (503) only when the records can be neither sent nor held', async () => {
    const held = new MemoryHeld();
    held.failHold = true;
    const err = await new HoldingSender(sender(() => Promise.reject(new Error('broker gone'))), held, logger, 1000).send([rec('a')]).catch((e: unknown) => e);
    expect(isTdxError(err) && [err.code, err.status]).toEqual(['broker_unavailable', 503]);
  });
});

describe('produceHeld (the scheduler job held_work)', () => {
  it('produces every held record of every shard, then forgets it; a failed send forgets nothing', async () => {
    const held = new MemoryHeld(3);
    const records = Array.from({ length: 1200 }, (_, i) => rec(`r${i}`));
    await new HoldingSender(sender(() => Promise.reject(new Error('down'))), held, logger, 1000).send(records);
    expect(held.rows.size).toBe(1200);

    const failing = await produceHeld(held, () => Promise.reject(new Error('still down'))).catch((e: unknown) => e);
    expect(failing).toBeInstanceOf(Error);
    expect(held.rows.size).toBe(1200);

    const sent: HeldRecord[] = [];
    const n = await produceHeld(held, (batch) => {
      sent.push(...batch);
      return Promise.resolve();
    });
    expect(n).toBe(1200);
    expect(held.rows.size).toBe(0);
    expect(new Set(sent.map((r) => r.value.toString())).size).toBe(1200);
    expect(await produceHeld(held, () => Promise.reject(new Error('not called')))).toBe(0);
  });
});
