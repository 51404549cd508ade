/**
 * Result event, version 1 (topic `events.results`): a result row a node step wrote to
 * Cassandra, published for the ClickHouse `results` projection. Rewriting the same result
 * (a redelivered step) publishes the same `id` and `createdAt`; the projection keeps the
 * highest `version`.
 *
 *   ResultEvent = {
 *     id             string          ; result id, deterministic from (trace, node, transaction, attempt)
 *     organizationId string
 *     traceGuid      string
 *     transactionId  string | null   ; null when no transaction is attributed (failed before extraction)
 *     flowId         string | null
 *     nodeId         string
 *     nodeName       string          ; as displayed
 *     service        string          ; node service
 *     status         "success" | "error"
 *     direction      "inbound" | "outbound" | null   ; transfer direction of the step
 *     partnerKey     string | null
 *     errorMessage   string | null
 *     resend         boolean
 *     detail         string          ; the result `detail` object as JSON text (contract: Result)
 *     createdAt      timestamp-micros
 *     updatedAt      timestamp-micros
 *     version        long            ; grows with every rewrite of the row (updatedAt in micros)
 *   }
 */
import { defineCodec, nullableString, oneOf, timestampMicros, type Codec, type WriterTypes } from './codec.ts';
import { DIRECTIONS, type Direction } from './stage.v1.ts';

export const RESULT_STATUSES = ['success', 'error'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export interface ResultEvent {
  readonly id: string;
  readonly organizationId: string;
  readonly traceGuid: string;
  readonly transactionId: string | null;
  readonly flowId: string | null;
  readonly nodeId: string;
  readonly nodeName: string;
  readonly service: string;
  readonly status: ResultStatus;
  readonly direction: Direction | null;
  readonly partnerKey: string | null;
  readonly errorMessage: string | null;
  readonly resend: boolean;
  /** JSON text of the result's `detail`. */
  readonly detail: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly version: number;
}

export const schema = {
  type: 'record',
  name: 'ResultEvent',
  namespace: 'tdx.wire.events',
  doc: 'A result written by a node step; key = trace GUID.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'organizationId', type: 'string' },
    { name: 'traceGuid', type: 'string' },
    { name: 'transactionId', type: nullableString, default: null },
    { name: 'flowId', type: nullableString, default: null },
    { name: 'nodeId', type: 'string' },
    { name: 'nodeName', type: 'string' },
    { name: 'service', type: 'string' },
    { name: 'status', type: 'string' },
    { name: 'direction', type: nullableString, default: null },
    { name: 'partnerKey', type: nullableString, default: null },
    { name: 'errorMessage', type: nullableString, default: null },
    { name: 'resend', type: 'boolean', default: false },
    { name: 'detail', type: 'string', doc: 'JSON text of the result detail object' },
    { name: 'createdAt', type: timestampMicros },
    { name: 'updatedAt', type: timestampMicros },
    { name: 'version', type: 'long' },
  ],
} as const;

export const codec: Codec<ResultEvent> = defineCodec<ResultEvent>('result-event.v1', schema, (m) =>
  oneOf('status', m.status, RESULT_STATUSES) ?? oneOf('direction', m.direction, DIRECTIONS, true),
);

export const encode = (m: ResultEvent, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): ResultEvent => codec.decode(buf, writers);
