/**
 * Transaction event, version 1 (topic `events.transactions`): the full list row of an EDI
 * transaction after a change (recorded, status, delivery, acknowledgment, resend), published
 * for the ClickHouse `transactions` projection, which keeps the highest `version` per id.
 *
 *   TransactionEvent = {
 *     id, organizationId, traceGuid                       string
 *     direction            "inbound" | "outbound"
 *     usageIndicator       string                        ; ISA15 (P, T, I, ...)
 *     partnerKey           string | null
 *     transactionSetIdentifier string                    ; 850, 997, ...
 *     reference            string | null
 *     senderExtid, senderQualifier, receiverExtid, receiverQualifier   string
 *     interchangeControlNumber, groupControlNumber, transactionSetControlNumber  string
 *     status               "processing" | "error" | "delivered"
 *     deliveredAt          timestamp-micros | null
 *     warningCount         int
 *     acknowledgmentStatus "accepted" | "rejected" | "unacknowledged" | null
 *     resendCount          int
 *     lastResentAt         timestamp-micros | null
 *     duplicateOf          string | null
 *     createdAt, updatedAt timestamp-micros
 *     version              long                          ; grows with every change
 *   }
 */
import { defineCodec, nullableString, nullableTimestampMicros, oneOf, timestampMicros, type Codec, type WriterTypes } from './codec.ts';
import { DIRECTIONS, type Direction } from './stage.v1.ts';

export const TRANSACTION_STATUSES = ['processing', 'error', 'delivered'] as const;
export const ACKNOWLEDGMENT_STATUSES = ['accepted', 'rejected', 'unacknowledged'] as const;

export interface TransactionEvent {
  readonly id: string;
  readonly organizationId: string;
  readonly traceGuid: string;
  readonly direction: Direction;
  readonly usageIndicator: string;
  readonly partnerKey: string | null;
  readonly transactionSetIdentifier: string;
  readonly reference: string | null;
  readonly senderExtid: string;
  readonly senderQualifier: string;
  readonly receiverExtid: string;
  readonly receiverQualifier: string;
  readonly interchangeControlNumber: string;
  readonly groupControlNumber: string;
  readonly transactionSetControlNumber: string;
  readonly status: (typeof TRANSACTION_STATUSES)[number];
  readonly deliveredAt: number | null;
  readonly warningCount: number;
  readonly acknowledgmentStatus: (typeof ACKNOWLEDGMENT_STATUSES)[number] | null;
  readonly resendCount: number;
  readonly lastResentAt: number | null;
  readonly duplicateOf: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly version: number;
}

export const schema = {
  type: 'record',
  name: 'TransactionEvent',
  namespace: 'tdx.wire.events',
  doc: 'The list row of an EDI transaction after a change; key = trace GUID.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'organizationId', type: 'string' },
    { name: 'traceGuid', type: 'string' },
    { name: 'direction', type: 'string' },
    { name: 'usageIndicator', type: 'string', default: 'P' },
    { name: 'partnerKey', type: nullableString, default: null },
    { name: 'transactionSetIdentifier', type: 'string' },
    { name: 'reference', type: nullableString, default: null },
    { name: 'senderExtid', type: 'string' },
    { name: 'senderQualifier', type: 'string' },
    { name: 'receiverExtid', type: 'string' },
    { name: 'receiverQualifier', type: 'string' },
    { name: 'interchangeControlNumber', type: 'string' },
    { name: 'groupControlNumber', type: 'string' },
    { name: 'transactionSetControlNumber', type: 'string' },
    { name: 'status', type: 'string' },
    { name: 'deliveredAt', type: nullableTimestampMicros, default: null },
    { name: 'warningCount', type: 'int', default: 0 },
    { name: 'acknowledgmentStatus', type: nullableString, default: null },
    { name: 'resendCount', type: 'int', default: 0 },
    { name: 'lastResentAt', type: nullableTimestampMicros, default: null },
    { name: 'duplicateOf', type: nullableString, default: null },
    { name: 'createdAt', type: timestampMicros },
    { name: 'updatedAt', type: timestampMicros },
    { name: 'version', type: 'long' },
  ],
} as const;

export const codec: Codec<TransactionEvent> = defineCodec<TransactionEvent>('transaction-event.v1', schema, (m) =>
  oneOf('direction', m.direction, DIRECTIONS) ??
  oneOf('status', m.status, TRANSACTION_STATUSES) ??
  oneOf('acknowledgmentStatus', m.acknowledgmentStatus, ACKNOWLEDGMENT_STATUSES, true),
);

export const encode = (m: TransactionEvent, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): TransactionEvent => codec.decode(buf, writers);
