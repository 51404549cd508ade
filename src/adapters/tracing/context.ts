/**
 * The trace context a consumer handler runs in: the `traceparent` each outgoing message gets,
 * by message key (the trace GUID). Set only when tracing is on (src/adapters/tracing/otlp.ts);
 * otherwise the store is empty and the emitter adds nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const outgoingTraceparents = new AsyncLocalStorage<Map<string, string>>();
