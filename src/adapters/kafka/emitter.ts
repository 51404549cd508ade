/**
 * The nodes' `Emitter` port over the batching producer and the registry codecs: values are
 * encoded with their topic's codec and sent under the deployment's topic prefix.
 */
import type { Emitter, OutgoingMessage } from '../../nodes/ports.ts';
import type { BatchingProducer } from './client.ts';
import type { WireRegistry } from './registry.ts';

export class WireEmitter implements Emitter {
  constructor(
    private readonly producer: BatchingProducer,
    private readonly wire: WireRegistry,
  ) {}

  produce(messages: readonly OutgoingMessage[]): Promise<void> {
    return this.producer.send(
      messages.map((m) => ({
        topic: this.wire.topic(m.topic),
        key: m.key,
        value: this.wire.encode(m.topic, m.value),
        ...(m.headers ? { headers: m.headers } : {}),
      })),
    );
  }

  encode(topic: string, value: unknown): Buffer {
    return this.wire.encode(topic, value);
  }
}
