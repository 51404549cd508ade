/**
 * The trace context a consumer handler runs in: the `traceparent` each outgoing message gets,
 * by message key (the trace GUID). Set only when tracing is on (src/adapters/tracing/otlp.ts);
 * otherwise the store is empty and the emitter adds nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const outgoingTraceparents = new AsyncLocalStorage<Map<string, string>>();

/**
 * The `traceparent` of the span of the inline step that emitted a work item, by the item's
 * value (tracing on only): the next inline step, or the emitter when the item goes through its
 * stage topic, makes it the child of that span rather than of the pass's.
 */
export const emittedBy = new WeakMap<object, string>();
