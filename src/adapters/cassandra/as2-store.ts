/**
 * Cassandra stores of AS2 in the pipeline (migrations/0030_as2.cql): the organization of each
 * AS2 connection, the message ids each connection took in (`As2ReceivedMessages`), and the
 * messages sent whose asynchronous receipt is awaited (`As2AwaitedMdnStore`, with its
 * deadlines by hour).
 */
import type { Client } from 'cassandra-driver';
import type { As2ReceiptOutcome } from '../../domain/as2-delivery.ts';
import type { As2DeliveryDetail } from '../../domain/as2-delivery.ts';
import type { Micros } from '../../domain/records.ts';
import type { StageMessage } from '../../wire/stage.v1.ts';
import type { As2ReceivedMessages } from '../as2/receive.ts';
import type { As2AwaitedMdnStore, AwaitedMdn } from '../as2/pipeline.ts';
import type { Mic } from '../as2/mic.ts';
import { guardStore } from './guard.ts';
import { long, num, str } from './cells.ts';


const HOUR_US = 3_600_000_000;
const hourOf = (at: Micros): number => Math.floor(at / HOUR_US);
const micros = (iso: string): Micros => Date.parse(iso) * 1000;

/** A message a connection took in. */
export interface As2ReceivedEntry {
  readonly organizationId: string;
  readonly connectionId: string;
  /** Without angle brackets. */
  readonly messageId: string;
  readonly traceGuid: string;
  readonly receivedAt: Micros;
  /** SHA-256 (hex) of the payload taken in: a repeat of the id with other content is refused. */
  readonly payloadSha256?: string;
}

/** The organization of each AS2 connection (written by the configuration store). */
export class CassandraAs2Directory {
  constructor(private readonly client: Client) {}

  organizationOf(connectionId: string): Promise<string | null> {
    return guardStore('AS2 connection lookup', async () => {
      const row = (await this.client.execute('SELECT org_id FROM as2_connections WHERE connection_id = ?', [connectionId], { prepare: true })).first();
      return row ? str(row.get('org_id')) : null;
    });
  }
}

/** Message ids taken in per connection. */
export class CassandraAs2ReceivedMessages implements As2ReceivedMessages {
  constructor(private readonly client: Client) {}

  seen(connectionId: string, messageId: string): Promise<boolean> {
    return guardStore('AS2 received message lookup', async () => {
      const rs = await this.client.execute('SELECT trace_guid FROM as2_received_messages WHERE connection_id = ? AND message_id = ?', [connectionId, messageId], { prepare: true });
      return rs.rowLength > 0;
    });
  }

  payloadDigest(connectionId: string, messageId: string): Promise<string | null> {
    return guardStore('AS2 received message lookup', async () => {
      const row = (await this.client.execute('SELECT payload_sha256 FROM as2_received_messages WHERE connection_id = ? AND message_id = ?', [connectionId, messageId], { prepare: true })).first();
      const v = row?.get('payload_sha256') as string | null | undefined;
      return v ?? null;
    });
  }

  remember(e: As2ReceivedEntry): Promise<void> {
    return guardStore('AS2 received message write', async () => {
      await this.client.execute(
        'INSERT INTO as2_received_messages (connection_id, message_id, org_id, trace_guid, received_at, payload_sha256) VALUES (?, ?, ?, ?, ?, ?)',
        [e.connectionId, e.messageId, e.organizationId, e.traceGuid, long(e.receivedAt), e.payloadSha256 ?? null],
        { prepare: true },
      );
    });
  }
}

interface Expected {
  readonly mic: Mic;
  readonly micRequired: boolean;
  readonly signedReceipt: boolean;
  readonly sentAt: string;
  readonly deadline: string;
}

/** Messages whose asynchronous receipt is awaited. */
export class CassandraAs2AwaitedMdns implements As2AwaitedMdnStore {
  constructor(private readonly client: Client) {}

  expect(a: Omit<AwaitedMdn, 'outcome'>): Promise<void> {
    return guardStore('AS2 awaited receipt write', async () => {
      const expected: Expected = { mic: a.mic, micRequired: a.micRequired, signedReceipt: a.signedReceipt, sentAt: a.sentAt, deadline: a.deadline };
      const dueAt = micros(a.deadline);
      // the deadline first: a row without one would never be failed by the receipt-wait job
      await this.client.execute('INSERT INTO as2_mdn_deadlines (due_hour, due_at, message_id) VALUES (?, ?, ?)', [long(hourOf(dueAt)), long(dueAt), a.messageId], { prepare: true });
      await this.client.execute(
        'INSERT INTO as2_pending_mdns (message_id, org_id, connection_id, expected, work, detail, deadline) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [a.messageId, a.organizationId, a.connectionId, JSON.stringify(expected), JSON.stringify(a.work), JSON.stringify(a.detail), long(dueAt)],
        { prepare: true },
      );
    });
  }

  record(messageId: string): Promise<AwaitedMdn | null> {
    return guardStore('AS2 awaited receipt read', async () => {
      const row = (await this.client.execute('SELECT org_id, connection_id, expected, work, detail, outcome FROM as2_pending_mdns WHERE message_id = ?', [messageId], { prepare: true })).first();
      if (!row || row.get('expected') === null) return null;
      const expected = JSON.parse(str(row.get('expected'))) as Expected;
      const outcome = row.get('outcome') as string | null;
      return {
        ...expected,
        messageId,
        connectionId: str(row.get('connection_id')),
        organizationId: str(row.get('org_id')),
        work: JSON.parse(str(row.get('work'))) as StageMessage,
        detail: JSON.parse(str(row.get('detail'))) as As2DeliveryDetail,
        outcome: outcome ? (JSON.parse(outcome) as As2ReceiptOutcome) : null,
      };
    });
  }

  async get(messageId: string): Promise<AwaitedMdn | null> {
    return this.record(messageId);
  }

  settle(messageId: string, outcome: As2ReceiptOutcome): Promise<As2ReceiptOutcome | null> {
    return guardStore('AS2 awaited receipt settle', async () => {
      // `org_id != null`: a message forgotten meanwhile is not brought back as a row holding only an outcome
      const rs = await this.client.execute('UPDATE as2_pending_mdns SET outcome = ? WHERE message_id = ? IF org_id != null AND outcome = null', [JSON.stringify(outcome), messageId], { prepare: true });
      if (rs.wasApplied()) return outcome;
      // not applied: settled before (the outcome in force is returned with the failed condition), or gone
      const current = rs.first()?.get('outcome') as string | null | undefined;
      return current ? (JSON.parse(current) as As2ReceiptOutcome) : null;
    });
  }

  forget(messageId: string, deadline: string): Promise<void> {
    return guardStore('AS2 awaited receipt delete', async () => {
      const dueAt = micros(deadline);
      await this.client.execute('DELETE FROM as2_pending_mdns WHERE message_id = ?', [messageId], { prepare: true });
      await this.client.execute('DELETE FROM as2_mdn_deadlines WHERE due_hour = ? AND due_at = ? AND message_id = ?', [long(hourOf(dueAt)), long(dueAt), messageId], { prepare: true });
    });
  }

  due(from: Micros, to: Micros): Promise<{ messageId: string; dueAt: Micros }[]> {
    return guardStore('AS2 receipt deadlines read', async () => {
      const out: { messageId: string; dueAt: Micros }[] = [];
      for (let h = hourOf(from); h <= hourOf(to - 1); h++) {
        let pageState: string | undefined;
        do {
          const rs = await this.client.execute('SELECT due_at, message_id FROM as2_mdn_deadlines WHERE due_hour = ? AND due_at >= ? AND due_at < ?', [long(h), long(from), long(to)], {
            prepare: true,
            fetchSize: 1000,
            ...(pageState ? { pageState } : {}),
          });
          for (const r of rs.rows) out.push({ dueAt: num(r.get('due_at')), messageId: str(r.get('message_id')) });
          pageState = rs.pageState ?? undefined;
        } while (pageState);
      }
      return out;
    });
  }

  done(d: { messageId: string; dueAt: Micros }): Promise<void> {
    return guardStore('AS2 receipt deadline delete', async () => {
      await this.client.execute('DELETE FROM as2_mdn_deadlines WHERE due_hour = ? AND due_at = ? AND message_id = ?', [long(hourOf(d.dueAt)), long(d.dueAt), d.messageId], { prepare: true });
    });
  }
}
