/**
 * Feed request, version 1 (topic `events.feed`, one partition): a feed entry a node step asks
 * for. The feed sequencer (the materializer's single consumer of this one-partition topic)
 * gives each new entry its `createdAt`, so entries become readable in the order of their
 * `createdAt` and a cursor never skips one; it records the entry, sets the transaction's
 * `deliveredAt` from the first success entry, and publishes the entry on the public `feed`
 * topic.
 *
 *   FeedRequest = {
 *     id             string           ; entry id, deterministic from the result (a repeat collapses)
 *     organizationId string
 *     direction      "inbound" | "outbound"   ; the document's direction
 *     status         "success" | "error"
 *     partnerKey     string
 *     traceGuid      string
 *     resultId       string
 *     transactionId  string | null    ; a success entry for it sets its deliveredAt once
 *     detail         string           ; the full result object as JSON text
 *     requestedAt    timestamp-micros ; when the step asked for it
 *     transactionCreatedAt     timestamp-micros | null ; with the next field: the transaction
 *     transactionSetIdentifier string | null           ; as recorded by the pass that also
 *                                                      ; delivered it (its first success entry)
 *   }
 */
import { defineCodec, nullableString, nullableTimestampMicros, oneOf, timestampMicros, type Codec, type WriterTypes } from './codec.ts';
import { DIRECTIONS, type Direction } from './stage.v1.ts';
import { RESULT_STATUSES, type ResultStatus } from './result-event.v1.ts';

export interface FeedRequestMessage {
  readonly id: string;
  readonly organizationId: string;
  readonly direction: Direction;
  readonly status: ResultStatus;
  readonly partnerKey: string;
  readonly traceGuid: string;
  readonly resultId: string;
  readonly transactionId: string | null;
  readonly detail: string;
  readonly requestedAt: number;
  readonly transactionCreatedAt: number | null;
  readonly transactionSetIdentifier: string | null;
}

export const schema = {
  type: 'record',
  name: 'FeedRequest',
  namespace: 'tdx.wire.events',
  doc: 'A feed entry asked for by a node step, before the sequencer gives it its createdAt; key = trace GUID.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'organizationId', type: 'string' },
    { name: 'direction', type: 'string' },
    { name: 'status', type: 'string' },
    { name: 'partnerKey', type: 'string' },
    { name: 'traceGuid', type: 'string' },
    { name: 'resultId', type: 'string' },
    { name: 'transactionId', type: nullableString, default: null },
    { name: 'detail', type: 'string' },
    { name: 'requestedAt', type: timestampMicros },
    { name: 'transactionCreatedAt', type: nullableTimestampMicros, default: null },
    { name: 'transactionSetIdentifier', type: nullableString, default: null },
  ],
} as const;

export const codec: Codec<FeedRequestMessage> = defineCodec<FeedRequestMessage>('feed-request.v1', schema, (m) =>
  oneOf('direction', m.direction, DIRECTIONS) ?? oneOf('status', m.status, RESULT_STATUSES),
);

export const encode = (m: FeedRequestMessage, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): FeedRequestMessage => codec.decode(buf, writers);
