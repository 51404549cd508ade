/**
 * Delayed message, version 1 (topics `delay.<n>s`): scheduled re-delivery. A consumer that
 * must try again later (a webhook answered 503, or asked for Retry-After) writes the message
 * it wants re-delivered here instead of sleeping; the scheduler forwards it to `targetTopic`
 * once `dueAt` has passed. Tier `delay.<n>s` holds messages due at most n seconds after they
 * were written, so each tier is in due order up to n seconds.
 *
 *   DelayedMessage = {
 *     id          string           ; idempotency key of the re-delivery
 *     dueAt       timestamp-micros ; not forwarded before this instant
 *     targetTopic string           ; topic name without prefix, e.g. "stage.webhook"
 *     key         string | null    ; key to forward with (the trace GUID)
 *     value       bytes            ; the target message, already in registry wire format
 *     headers     map<string>      ; headers to forward with
 *     reason      string           ; why it was delayed (e.g. "webhook_retry")
 *     attempt     int >= 1         ; the attempt the forwarded message starts
 *   }
 */
import { defineCodec, nullableString, stringMap, timestampMicros, type Codec, type WriterTypes } from './codec.ts';

export interface DelayedMessage {
  readonly id: string;
  readonly dueAt: number;
  readonly targetTopic: string;
  readonly key: string | null;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
  readonly reason: string;
  readonly attempt: number;
}

export const schema = {
  type: 'record',
  name: 'DelayedMessage',
  namespace: 'tdx.wire.scheduling',
  doc: 'A message to forward to targetTopic once dueAt has passed; key = trace GUID.',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'dueAt', type: timestampMicros },
    { name: 'targetTopic', type: 'string' },
    { name: 'key', type: nullableString, default: null },
    { name: 'value', type: 'bytes' },
    { name: 'headers', type: stringMap, default: {} },
    { name: 'reason', type: 'string' },
    { name: 'attempt', type: 'int', default: 1 },
  ],
} as const;

export const codec: Codec<DelayedMessage> = defineCodec<DelayedMessage>('delayed.v1', schema, (m) =>
  !/^[A-Za-z0-9._-]+$/.test(m.targetTopic) ? `targetTopic "${m.targetTopic}" is not a topic name` : m.attempt >= 1 ? undefined : `attempt ${m.attempt} is below 1`,
);

export const encode = (m: DelayedMessage, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): DelayedMessage => codec.decode(buf, writers);

/** Delay tiers in seconds, each a topic `delay.<n>s`. */
export const DELAY_TIERS_SECONDS = [1, 2, 4, 8, 16, 60] as const;

/** The smallest tier that holds a delay of `delayMs` (the largest tier for longer delays). */
export function delayTierFor(delayMs: number): `delay.${number}s` {
  const tier = DELAY_TIERS_SECONDS.find((s) => s * 1000 >= delayMs) ?? DELAY_TIERS_SECONDS[DELAY_TIERS_SECONDS.length - 1]!;
  return `delay.${tier}s`;
}

/**
 * When the scheduler forwards a delayed message (epoch milliseconds): at its `dueAt` (micros,
 * rounded up to the millisecond) when `percent` is 100; otherwise after `percent` % of the wait
 * between `writtenAtMs` (when it was written to its tier) and `dueAt` (TDX_RETRY_DELAY_PERCENT).
 */
export function forwardAtMs(dueAtMicros: number, writtenAtMs: number, percent: number): number {
  const dueMs = Math.ceil(dueAtMicros / 1000);
  if (percent >= 100 || dueMs <= writtenAtMs) return dueMs;
  return writtenAtMs + Math.ceil(((dueMs - writtenAtMs) * percent) / 100);
}
