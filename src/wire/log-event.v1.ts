/**
 * Log event, version 1 (topic `events.logs`): one log entry of a trace, materialized into the
 * ClickHouse `logs` table (contract: Log entry).
 *
 *   LogEvent = {
 *     id             string           ; deterministic per (result, sequence) so rewrites collapse
 *     organizationId string
 *     traceGuid      string
 *     level          "debug" | "info" | "warn" | "error"
 *     message        string
 *     nodeName       string | null    ; null for entries written outside a node
 *     createdAt      timestamp-micros
 *   }
 */
import { defineCodec, nullableString, oneOf, timestampMicros, type Codec, type WriterTypes } from './codec.ts';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

export interface LogEvent {
  readonly id: string;
  readonly organizationId: string;
  readonly traceGuid: string;
  readonly level: (typeof LOG_LEVELS)[number];
  readonly message: string;
  readonly nodeName: string | null;
  readonly createdAt: number;
}

export const schema = {
  type: 'record',
  name: 'LogEvent',
  namespace: 'tdx.wire.events',
  doc: 'One log entry of a trace; key = trace GUID.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'organizationId', type: 'string' },
    { name: 'traceGuid', type: 'string' },
    { name: 'level', type: 'string' },
    { name: 'message', type: 'string' },
    { name: 'nodeName', type: nullableString, default: null },
    { name: 'createdAt', type: timestampMicros },
  ],
} as const;

export const codec: Codec<LogEvent> = defineCodec<LogEvent>('log-event.v1', schema, (m) => oneOf('level', m.level, LOG_LEVELS));

export const encode = (m: LogEvent, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): LogEvent => codec.decode(buf, writers);
