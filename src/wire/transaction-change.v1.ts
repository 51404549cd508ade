/**
 * Transaction change, version 1 (topic `events.transactions`): a transaction row was recorded
 * or changed in Cassandra. Several steps write different fields of one transaction (status,
 * delivery, acknowledgment, replays), so a change carries no row: the materializer reads the
 * current row and writes it to the ClickHouse `transactions` projection. Changes of one
 * transaction are keyed by its trace GUID, so they are projected in order by one consumer.
 *
 *   TransactionChange = {
 *     id             string           ; transaction id
 *     organizationId string
 *     traceGuid      string           ; the transaction's own trace (the key)
 *     changedAt      timestamp-micros
 *   }
 */
import { defineCodec, timestampMicros, type Codec, type WriterTypes } from './codec.ts';

export interface TransactionChange {
  readonly id: string;
  readonly organizationId: string;
  readonly traceGuid: string;
  readonly changedAt: number;
}

export const schema = {
  type: 'record',
  name: 'TransactionChange',
  namespace: 'tdx.wire.events',
  doc: 'A transaction row was recorded or changed; key = the transaction trace GUID.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'organizationId', type: 'string' },
    { name: 'traceGuid', type: 'string' },
    { name: 'changedAt', type: timestampMicros },
  ],
} as const;

export const codec: Codec<TransactionChange> = defineCodec<TransactionChange>('transaction-change.v1', schema);

export const encode = (m: TransactionChange, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): TransactionChange => codec.decode(buf, writers);
