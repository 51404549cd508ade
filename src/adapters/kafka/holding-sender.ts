/**
 * The sender of work an HTTP request answers for (a submission, a replay, an AS2 message): a
 * 202 means the work is durable, a 503 means it was not taken.
 *
 * A send the broker confirms is done. A send that fails or is not confirmed within `timeoutMs`
 * may still have been written (the broker can append a batch and die before it answers, a
 * request can time out after the append): answering 503 then would make a careful caller send
 * the document again and have it processed twice. So the records are held in the store instead
 * (Cassandra, table held_work) and the request answers 202; the scheduler's held_work job
 * produces them again and forgets them. A work item produced twice is done once: nodes write
 * with deterministic ids. Only when the store cannot hold them either does the send fail
 * (`broker_unavailable`, 503). That answer is exact unless the unconfirmed send was written
 * after all while Cassandra refused the hold: both stores failing at the same moment.
 */
import { createHash } from 'node:crypto';
import { TdxError } from '../../errors.ts';
import type { HeldRecord, HeldWorkStore } from '../../domain/processing-ports.ts';
import type { Logger } from '../../logger.ts';
import type { OutgoingRecord, RecordSender } from './client.ts';

/** The digest that names a held record: topic, key, headers and value. */
export function heldRecordId(r: OutgoingRecord): string {
  const h = createHash('sha256').update(r.topic).update('\0').update(r.key ?? '').update('\0');
  for (const [k, v] of Object.entries(r.headers ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) h.update(k).update('=').update(v).update('\0');
  return h.update(r.value).digest('hex').slice(0, 40);
}

/** `work`, or a rejection once `ms` passed (the work itself goes on). */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TdxError('broker_unavailable', `Kafka did not confirm the work item within ${ms / 1000} s.`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export class HoldingSender implements RecordSender {
  constructor(
    private readonly inner: RecordSender,
    private readonly held: HeldWorkStore,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async send(records: readonly OutgoingRecord[]): Promise<void> {
    try {
      await within(this.inner.send(records), this.timeoutMs);
      return;
    } catch (sendErr) {
      const heldAt = this.clock();
      const rows: HeldRecord[] = records.map((r) => ({ id: heldRecordId(r), topic: r.topic, key: r.key, value: r.value, ...(r.headers ? { headers: r.headers } : {}), heldAt }));
      try {
        await this.held.hold(rows);
      } catch (holdErr) {
        throw new TdxError('broker_unavailable', 'Kafka did not take the work item and it could not be held for later.', { cause: holdErr });
      }
      this.logger.warn({ event: 'work:held', records: rows.length, topics: [...new Set(rows.map((r) => r.topic))], err: sendErr }, 'the broker did not confirm a request\'s work: held, to be produced by the scheduler');
    }
  }
}
