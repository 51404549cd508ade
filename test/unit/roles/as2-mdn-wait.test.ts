/* eslint-disable @typescript-eslint/require-await -- fakes of async ports answer synchronously */
/**
 * The receipt-wait job's pass: a message still without a receipt at its deadline is settled
 * `timeout` as of the deadline and its delivery completed; a message answered in time, or whose
 * receipt wins the race for the settlement, is left alone; every handled deadline is forgotten
 * and the job's position moves on (ten minutes back, for deadlines noted late).
 */
import { describe, expect, it } from 'vitest';
import type { As2AwaitedMdnStore, AwaitedMdn } from '../../../src/adapters/as2/pipeline.ts';
import type { As2DeliveryDetail, As2ReceiptOutcome } from '../../../src/domain/as2-delivery.ts';
import type { SchedulerLeaseStore } from '../../../src/domain/processing-ports.ts';
import { AS2_MDN_WAIT_JOB, endOverdueWaits } from '../../../src/roles/jobs/as2-mdn-wait.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';

const MIN = 60_000_000;
const T0 = 1_767_225_600_000_000;
const detail: As2DeliveryDetail = { messageId: '', from: 'US', to: 'THEM', url: 'http://them/as2', mdnMode: 'async', mdnStatus: 'pending', mic: 'x, sha-256', returnedMic: null, micMatched: null, disposition: null, mdnMessageId: null, httpStatus: 200, error: null };

function setup(raceWinner: As2ReceiptOutcome | null = null) {
  const awaited = new Map<string, AwaitedMdn>();
  const deadlines: { messageId: string; dueAt: number }[] = [];
  const add = (messageId: string, dueAt: number, outcome: As2ReceiptOutcome | null = null): void => {
    awaited.set(messageId, { messageId, connectionId: 'c1', organizationId: 'o1', mic: { value: 'x', algorithm: 'sha256' }, micRequired: true, signedReceipt: true, sentAt: new Date((dueAt - 5 * MIN) / 1000).toISOString(), deadline: new Date(dueAt / 1000).toISOString(), work: { id: `work-${messageId}` } as StageMessage, detail: { ...detail, messageId }, outcome });
    deadlines.push({ messageId, dueAt });
  };
  const store: As2AwaitedMdnStore = {
    get: async (id) => awaited.get(id) ?? null,
    record: async (id) => awaited.get(id) ?? null,
    expect: async () => undefined,
    settle: async (id, o) => {
      const a = awaited.get(id)!;
      const won = a.outcome ?? raceWinner ?? o;
      awaited.set(id, { ...a, outcome: won });
      return won;
    },
    forget: async () => undefined,
    due: async (from, to) => deadlines.filter((d) => d.dueAt >= from && d.dueAt < to).sort((a, b) => a.dueAt - b.dueAt),
    done: async (d) => void deadlines.splice(deadlines.findIndex((x) => x.messageId === d.messageId), 1),
  };
  const positions = new Map<string, number>();
  const leases: SchedulerLeaseStore = { hold: async () => true, release: async () => undefined, position: async (n) => positions.get(n) ?? null, setPosition: async (n, p) => void positions.set(n, p) };
  const completed: [string, As2ReceiptOutcome][] = [];
  return { awaited, deadlines, add, store, leases, positions, completed, complete: async (w: StageMessage, o: As2ReceiptOutcome) => void completed.push([w.id, o]) };
}

describe('the AS2 receipt-wait job', () => {
  it('fails deliveries whose receipt is missing at the deadline, as of the deadline, and leaves answered ones alone', async () => {
    const s = setup();
    s.add('late@tdx', T0 + 1 * MIN);
    s.add('answered@tdx', T0 + 2 * MIN, { status: 'processed', at: T0, detail });
    s.add('not-yet@tdx', T0 + 30 * MIN);
    const n = await endOverdueWaits({ awaited: s.store, leases: s.leases, complete: s.complete, now: () => 0 }, T0 + 20 * MIN);
    expect(n).toBe(1);
    expect(s.completed).toEqual([['work-late@tdx', { status: 'timeout', at: T0 + 1 * MIN, detail: { ...detail, messageId: 'late@tdx', mdnStatus: 'timeout', error: 'no MDN within 300 s' } }]]);
    expect(s.deadlines.map((d) => d.messageId)).toEqual(['not-yet@tdx']);
    expect(s.positions.get(AS2_MDN_WAIT_JOB)).toBe(T0 + 10 * MIN);
    // a second pass (another replica, a retried tick) finds nothing left to do
    expect(await endOverdueWaits({ awaited: s.store, leases: s.leases, complete: s.complete, now: () => 0 }, T0 + 20 * MIN)).toBe(0);
  });

  it('a receipt settling the message in the same moment wins: no failure is written', async () => {
    const s = setup({ status: 'processed', at: T0 + MIN - 1, detail });
    s.add('raced@tdx', T0 + MIN);
    expect(await endOverdueWaits({ awaited: s.store, leases: s.leases, complete: s.complete, now: () => 0 }, T0 + 2 * MIN)).toBe(0);
    expect(s.completed).toEqual([]);
    expect(s.deadlines).toEqual([]);
  });
});
