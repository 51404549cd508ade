/**
 * Replay command, version 1 (topic `commands.replay`): a resend (outbound) or redelivery
 * (inbound) accepted by the API with 202, carried out on the original trace.
 *
 *   ReplayCommand = {
 *     id             string           ; command id (idempotency key; a redelivered command runs once)
 *     organizationId string
 *     kind           "resend" | "redeliver"
 *     transactionId  string
 *     traceGuid      string
 *     requestedBy    string | null    ; API key id
 *     requestedAt    timestamp-micros
 *     attempt        int >= 2         ; the run it starts on the trace (the first delivery was 1);
 *                                     ; the replay's result ids derive from it
 *   }
 */
import { defineCodec, nullableString, oneOf, timestampMicros, type Codec, type WriterTypes } from './codec.ts';

export const REPLAY_KINDS = ['resend', 'redeliver'] as const;

export interface ReplayCommand {
  readonly id: string;
  readonly organizationId: string;
  readonly kind: (typeof REPLAY_KINDS)[number];
  readonly transactionId: string;
  readonly traceGuid: string;
  readonly requestedBy: string | null;
  readonly requestedAt: number;
  readonly attempt: number;
}

export const schema = {
  type: 'record',
  name: 'ReplayCommand',
  namespace: 'tdx.wire.commands',
  doc: 'Resend or redeliver a transaction on its original trace; key = trace GUID.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'organizationId', type: 'string' },
    { name: 'kind', type: 'string' },
    { name: 'transactionId', type: 'string' },
    { name: 'traceGuid', type: 'string' },
    { name: 'requestedBy', type: nullableString, default: null },
    { name: 'requestedAt', type: timestampMicros },
    { name: 'attempt', type: 'int', default: 2 },
  ],
} as const;

export const codec: Codec<ReplayCommand> = defineCodec<ReplayCommand>('replay-command.v1', schema, (m) => oneOf('kind', m.kind, REPLAY_KINDS) ?? (m.attempt >= 2 ? undefined : `attempt ${m.attempt} is below 2`));

export const encode = (m: ReplayCommand, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): ReplayCommand => codec.decode(buf, writers);
