/**
 * Scheduler control, version 1 (topic `control.scheduler`, one partition): commands to the
 * scheduler replica that owns the partition (the only one that runs timers).
 *
 *   SchedulerControl = {
 *     id             string           ; command id
 *     kind           "poll_connection" | "reschedule" | "retention_sweep"
 *     organizationId string | null
 *     targetId       string | null    ; connection or flow id the command is about
 *     issuedAt       timestamp-micros
 *     params         map<string>
 *   }
 */
import { defineCodec, nullableString, oneOf, stringMap, timestampMicros, type Codec, type WriterTypes } from './codec.ts';

export const SCHEDULER_COMMANDS = ['poll_connection', 'reschedule', 'retention_sweep'] as const;

export interface SchedulerControl {
  readonly id: string;
  readonly kind: (typeof SCHEDULER_COMMANDS)[number];
  readonly organizationId: string | null;
  readonly targetId: string | null;
  readonly issuedAt: number;
  readonly params: Readonly<Record<string, string>>;
}

export const schema = {
  type: 'record',
  name: 'SchedulerControl',
  namespace: 'tdx.wire.scheduling',
  doc: 'A command to the scheduler replica owning the single control partition; key = job key.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'kind', type: 'string' },
    { name: 'organizationId', type: nullableString, default: null },
    { name: 'targetId', type: nullableString, default: null },
    { name: 'issuedAt', type: timestampMicros },
    { name: 'params', type: stringMap, default: {} },
  ],
} as const;

export const codec: Codec<SchedulerControl> = defineCodec<SchedulerControl>('scheduler-control.v1', schema, (m) =>
  oneOf('kind', m.kind, SCHEDULER_COMMANDS),
);

export const encode = (m: SchedulerControl, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): SchedulerControl => codec.decode(buf, writers);
