/**
 * The nodes' `Emitter` port over the batching producer and the registry codecs: values are
 * encoded with their topic's codec and sent under the deployment's topic prefix.
 */
import type { Emitter, OutgoingMessage } from '../../nodes/ports.ts';
import type { RecordSender } from './client.ts';
import type { WireRegistry } from './registry.ts';
import { emittedBy, outgoingTraceparents } from '../tracing/context.ts';

export class WireEmitter implements Emitter {
  constructor(
    private readonly producer: RecordSender,
    private readonly wire: WireRegistry,
  ) {}

  produce(messages: readonly OutgoingMessage[]): Promise<void> {
    // with tracing on, a message emitted while a traced step runs carries that step's span
    const traced = outgoingTraceparents.getStore();
    return this.producer.send(
      messages.map((m) => {
        // an item an inline step emitted is the child of that step's span
        const traceparent = traced ? ((typeof m.value === 'object' && m.value !== null ? emittedBy.get(m.value) : undefined) ?? traced.get(m.key)) : undefined;
        const headers = traceparent && !m.headers?.['traceparent'] ? { ...m.headers, traceparent } : m.headers;
        return {
          topic: this.wire.topic(m.topic),
          key: m.key,
          value: this.wire.encode(m.topic, m.value),
          ...(headers ? { headers } : {}),
        };
      }),
    );
  }

  encode(topic: string, value: unknown): Buffer {
    return this.wire.encode(topic, value);
  }
}
