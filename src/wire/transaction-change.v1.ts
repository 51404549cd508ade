/**
 * Transaction change, version 1 (topic `events.transactions`, and inside `events.records`): a
 * transaction row was recorded or changed in Cassandra. Several steps write different fields of
 * one transaction (status, delivery, acknowledgment, replays), so a change in general carries no
 * row: the materializer reads the current row and writes it to the ClickHouse `transactions`
 * projection. A pass that wrote the whole row (it recorded the transaction, its own updates
 * folded in, and wrote nothing else of it) sends the row as it wrote it (`snapshot`), and the
 * materializer projects that without reading: its version (`updatedAt`, the step clock of the
 * pass) is older than that of any later writer, so a later change always wins in ClickHouse.
 * Changes of one transaction are keyed by its trace GUID, so they are projected in order by one
 * consumer.
 *
 *   TransactionChange = {
 *     id             string           ; transaction id
 *     organizationId string
 *     traceGuid      string           ; the transaction's own trace (the key)
 *     changedAt      timestamp-micros
 *     snapshot       TransactionSnapshot | null   ; the fields the projection shows, as written
 *   }
 */
import { defineCodec, nullableString, nullableTimestampMicros, timestampMicros, type Codec, type WriterTypes } from './codec.ts';
import type { StoredTransaction } from '../domain/records.ts';

/** The fields of a transaction the ClickHouse projection shows (the snapshot's, in schema order). */
export const SNAPSHOT_FIELDS = [
  'createdAt', 'updatedAt', 'direction', 'usageIndicator', 'partnerKey', 'transactionSetIdentifier', 'reference', 'senderQualifier', 'senderExtid',
  'receiverQualifier', 'receiverExtid', 'interchangeControlNumber', 'groupControlNumber', 'transactionSetControlNumber', 'duplicateOf', 'failed',
  'completed', 'deliveredAt', 'warningCount', 'acknowledgmentStatus', 'acknowledgedBy', 'acknowledges', 'resendCount', 'lastResentAt',
] as const satisfies ReadonlyArray<keyof StoredTransaction>;

/** Those fields as the pass wrote them (an acknowledgment status is read back as text). */
export type TransactionSnapshot = Omit<Pick<StoredTransaction, (typeof SNAPSHOT_FIELDS)[number]>, 'acknowledgmentStatus'> & { readonly acknowledgmentStatus: string | null };

export interface TransactionChange {
  readonly id: string;
  readonly organizationId: string;
  readonly traceGuid: string;
  readonly changedAt: number;
  readonly snapshot: TransactionSnapshot | null;
}

const snapshotSchema = {
  type: 'record',
  name: 'TransactionSnapshot',
  fields: [
    { name: 'createdAt', type: timestampMicros },
    { name: 'updatedAt', type: timestampMicros },
    { name: 'direction', type: 'string' },
    { name: 'usageIndicator', type: 'string' },
    { name: 'partnerKey', type: nullableString },
    { name: 'transactionSetIdentifier', type: 'string' },
    { name: 'reference', type: nullableString },
    { name: 'senderQualifier', type: 'string' },
    { name: 'senderExtid', type: 'string' },
    { name: 'receiverQualifier', type: 'string' },
    { name: 'receiverExtid', type: 'string' },
    { name: 'interchangeControlNumber', type: 'string' },
    { name: 'groupControlNumber', type: 'string' },
    { name: 'transactionSetControlNumber', type: 'string' },
    { name: 'duplicateOf', type: nullableString },
    { name: 'failed', type: 'boolean' },
    { name: 'completed', type: 'boolean' },
    { name: 'deliveredAt', type: nullableTimestampMicros },
    { name: 'warningCount', type: 'int' },
    { name: 'acknowledgmentStatus', type: nullableString },
    { name: 'acknowledgedBy', type: nullableString },
    { name: 'acknowledges', type: nullableString },
    { name: 'resendCount', type: 'int' },
    { name: 'lastResentAt', type: nullableTimestampMicros },
  ],
} as const;

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
    { name: 'snapshot', type: ['null', snapshotSchema], default: null },
  ],
} as const;

export const codec: Codec<TransactionChange> = defineCodec<TransactionChange>('transaction-change.v1', schema);

export const encode = (m: TransactionChange, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): TransactionChange => codec.decode(buf, writers);
