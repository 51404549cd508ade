/**
 * Delayed message, version 1 (topics `delay.<n>s`): scheduled re-delivery. A consumer that
 * must try again later (a webhook answered 503, or asked for Retry-After) writes the message
 * it wants re-delivered here instead of sleeping; the scheduler forwards it to `targetTopic`
 * once `dueAt` has passed. Tier `delay.<n>s` holds a message at most n seconds from when it
 * was written, so each tier is in due order up to n seconds: a message due later than its
 * tier's width (a retry 45 minutes away rides the 60 s tier) is written again to the tier of
 * the time still to wait once the width has passed (a hop), and never holds back the messages
 * behind it for longer than the width.
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

/** What the scheduler does with the head of a tier partition (`delayStep`). */
export type DelayStep =
  /** Not yet: pause the partition until `untilMs`. */
  | { readonly action: 'wait'; readonly untilMs: number }
  /** Due: forward to the target topic. */
  | { readonly action: 'forward' }
  /** Held for the tier's width but not due yet: write it again to `tier` (the time still to wait). */
  | { readonly action: 'hop'; readonly tier: `delay.${number}s` };

/**
 * The scheduler's decision for a message read from tier `tierSeconds`, written at `writtenAtMs`
 * (the broker timestamp), due at `dueAtMicros`, at `nowMs`: it is held until its due time or
 * the tier's width after it was written, whichever comes first; then it is forwarded when due,
 * otherwise written again to the tier of the time still to wait.
 */
export function delayStep(dueAtMicros: number, writtenAtMs: number, tierSeconds: number, nowMs: number): DelayStep {
  const dueMs = Math.ceil(dueAtMicros / 1000);
  const holdUntil = Math.min(dueMs, writtenAtMs + tierSeconds * 1000);
  if (holdUntil > nowMs) return { action: 'wait', untilMs: holdUntil };
  if (dueMs <= nowMs) return { action: 'forward' };
  return { action: 'hop', tier: delayTierFor(dueMs - nowMs) };
}

/** The width in seconds of a tier topic (`delay.16s` → 16), whatever prefix it carries; undefined for another topic. */
export function tierSecondsOf(topic: string): number | undefined {
  const m = /(?:^|\.)delay\.(\d+)s$/.exec(topic);
  return m ? Number(m[1]) : undefined;
}
