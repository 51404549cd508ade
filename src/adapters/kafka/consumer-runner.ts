/**
 * The one consumer loop of the service. A role hands it a handler (per message, or per batch
 * for the materializer); the runner alone owns offsets, heartbeats, bounded retries of
 * retriable failures (p-retry, exponential backoff) and the dead-letter topic.
 *
 * Per partition, messages are handled in offset order (one trace is one key, so one
 * partition: an actor per trace). An offset is resolved only after its handler finished (or
 * its message went to the dead-letter topic), and committed after each batch and on stop, so
 * a crash re-delivers at most the uncommitted tail: at-least-once, with idempotent handlers.
 * Scheduled retries (a webhook's 1-2-4-8-16 s) never wait here: handlers re-publish through
 * the delay topics instead.
 */
import pRetry, { AbortError } from 'p-retry';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import { TdxError, isTdxError } from '../../errors.ts';
import { TOPICS } from '../../wire/topics.ts';
import type { DeadLetter } from '../../wire/dead-letter.v1.ts';
import type { BatchingProducer } from './client.ts';
import type { WireRegistry } from './registry.ts';
import { isRetriable } from './retriable.ts';

/** A decoded message. `topic` is the name without prefix. */
export interface Consumed<T> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly value: T;
  readonly headers: Readonly<Record<string, string>>;
  /** Broker timestamp, milliseconds. */
  readonly timestamp: number;
}

export interface HandlerContext {
  /** Child logger bound with node, topic, partition, offset and key. */
  readonly logger: Logger;
  /** 1 on the first try. */
  readonly attempt: number;
}

export type MessageHandler<T> = (message: Consumed<T>, ctx: HandlerContext) => Promise<void>;
export type BatchHandler<T> = (messages: readonly Consumed<T>[], ctx: HandlerContext) => Promise<void>;

export interface ConsumerRunnerOptions<T> {
  /** Name in logs (`node:x12_split`, `materializer`). */
  readonly name: string;
  /** Group id without prefix. */
  readonly group: string;
  /** Topics without prefix. */
  readonly topics: readonly string[];
  /** Per message, or per batch of one partition. Exactly one. */
  readonly handle?: MessageHandler<T>;
  readonly handleBatch?: BatchHandler<T>;
  /** Partitions processed at once. @default 4 */
  readonly partitionsConcurrently?: number;
  /** Start at the earliest offset when the group has none. @default true */
  readonly fromBeginning?: boolean;
}

export interface RunnerDeps {
  readonly kafka: Kafka;
  readonly config: Config;
  readonly logger: Logger;
  readonly wire: WireRegistry;
  readonly producer: BatchingProducer;
}

function headersOf(m: KafkaMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.map(String).join(',') : String(v);
  }
  return out;
}

export class ConsumerRunner<T> {
  private consumer: Consumer | undefined;
  private readonly log: Logger;
  private readonly abort = new AbortController();
  private readonly prefix: string;
  readonly groupId: string;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly opts: ConsumerRunnerOptions<T>,
  ) {
    if (!opts.handle === !opts.handleBatch) throw new TdxError('config_invalid', `Consumer ${opts.name} needs exactly one of handle and handleBatch.`);
    this.prefix = deps.config.kafka.topicPrefix;
    this.groupId = `${deps.config.kafka.groupPrefix}${opts.group}`;
    this.log = deps.logger.child({ node: opts.name, group: this.groupId });
  }

  async start(): Promise<void> {
    const { config } = this.deps;
    const consumer = this.deps.kafka.consumer({
      groupId: this.groupId,
      sessionTimeout: config.kafka.sessionTimeoutMs,
      heartbeatInterval: Math.max(1000, Math.floor(config.kafka.sessionTimeoutMs / 10)),
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    await consumer.connect();
    await consumer.subscribe({ topics: this.opts.topics.map((t) => this.prefix + t), fromBeginning: this.opts.fromBeginning ?? true });
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: 1000,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.opts.partitionsConcurrently ?? 4,
      eachBatch: (payload) => this.eachBatch(payload),
    });
    this.log.info({ event: `${this.opts.name}:consuming`, topics: this.opts.topics }, 'consuming');
  }

  /** Stops fetching, lets the batch in hand finish, commits resolved offsets, disconnects. */
  async stop(): Promise<void> {
    this.abort.abort();
    if (!this.consumer) return;
    await this.consumer.stop();
    await this.consumer.disconnect();
    this.consumer = undefined;
  }

  private unprefixed(topic: string): string {
    return topic.startsWith(this.prefix) ? topic.slice(this.prefix.length) : topic;
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const heartbeat = (): Promise<void> => payload.heartbeat();
    const topic = this.unprefixed(batch.topic);
    if (this.opts.handleBatch) {
      const decoded: Consumed<T>[] = [];
      for (const m of batch.messages) {
        const c = await this.decodeOrDeadLetter(topic, batch.partition, m);
        if (c) decoded.push(c);
      }
      if (decoded.length > 0) {
        const last = batch.messages[batch.messages.length - 1]!;
        const log = this.log.child({ topic, partition: batch.partition, offset: last.offset, count: decoded.length });
        await this.withRetries(log, heartbeat, (attempt) => this.opts.handleBatch!(decoded, { logger: log, attempt }), async (err, attempts) => {
          for (const c of decoded) {
            const m = batch.messages.find((x) => x.offset === c.offset)!;
            await this.deadLetter(topic, batch.partition, m, err, attempts);
          }
        });
      }
      const last = batch.messages[batch.messages.length - 1];
      if (last) payload.resolveOffset(last.offset);
      await payload.commitOffsetsIfNecessary();
      return;
    }
    for (const m of batch.messages) {
      if (!payload.isRunning() || payload.isStale()) break;
      const c = await this.decodeOrDeadLetter(topic, batch.partition, m);
      if (c) {
        const log = this.log.child({ topic, partition: batch.partition, offset: m.offset, key: c.key });
        await this.withRetries(log, heartbeat, (attempt) => this.opts.handle!(c, { logger: log, attempt }), (err, attempts) =>
          this.deadLetter(topic, batch.partition, m, err, attempts),
        );
      }
      payload.resolveOffset(m.offset);
      await heartbeat();
    }
    await payload.commitOffsetsIfNecessary();
  }

  private async decodeOrDeadLetter(topic: string, partition: number, m: KafkaMessage): Promise<Consumed<T> | undefined> {
    if (m.value === null) {
      await this.deadLetter(topic, partition, m, new TdxError('wire_decode_failed', 'Message has no value (tombstone).'), 0);
      return undefined;
    }
    try {
      const value = await this.deps.wire.decode<T>(topic, m.value);
      return { topic, partition, offset: m.offset, key: m.key?.toString('utf8') ?? null, value, headers: headersOf(m), timestamp: Number(m.timestamp) };
    } catch (err) {
      if (isTdxError(err) && err.code === 'wire_decode_failed') {
        await this.deadLetter(topic, partition, m, err, 0);
        return undefined;
      }
      throw err; // registry unreachable: kafkajs restarts the consumer and re-delivers
    }
  }

  /** Runs `fn` with bounded retries of retriable failures; after the last, hands the error to `giveUp`. */
  private async withRetries(
    log: Logger,
    heartbeat: () => Promise<void>,
    fn: (attempt: number) => Promise<void>,
    giveUp: (err: unknown, attempts: number) => Promise<void>,
  ): Promise<void> {
    const { consumerAttempts, consumerRetryMinMs, consumerRetryMaxMs } = this.deps.config.kafka;
    let attempt = 0;
    try {
      await pRetry(
        async () => {
          attempt += 1;
          try {
            await fn(attempt);
          } catch (err) {
            if (!isRetriable(err)) throw new AbortError(err instanceof Error ? err : new Error(String(err)));
            throw err;
          }
        },
        {
          retries: consumerAttempts - 1,
          minTimeout: consumerRetryMinMs,
          maxTimeout: consumerRetryMaxMs,
          factor: 2,
          randomize: true,
          signal: this.abort.signal,
          onFailedAttempt: async (err) => {
            log.warn({ event: `${this.opts.name}:retry`, attempt: err.attemptNumber, retriesLeft: err.retriesLeft, err }, 'retriable failure');
            await heartbeat();
          },
        },
      );
    } catch (err) {
      if (this.abort.signal.aborted) throw err; // stopping: leave the offset unresolved, it is re-delivered
      const cause = err instanceof Error && 'originalError' in err ? (err as { originalError: unknown }).originalError : err;
      log.error({ event: `${this.opts.name}:dead-lettered`, attempts: attempt, err: cause }, 'giving up on message');
      await giveUp(cause, attempt);
    }
  }

  private async deadLetter(topic: string, partition: number, m: KafkaMessage, err: unknown, attempts: number): Promise<void> {
    const e = isTdxError(err) ? err : undefined;
    const letter: DeadLetter = {
      id: `${this.prefix}${topic}:${partition}:${m.offset}`,
      sourceTopic: this.prefix + topic,
      partition,
      offset: m.offset,
      consumerGroup: this.groupId,
      key: m.key?.toString('utf8') ?? null,
      value: m.value ?? null,
      headers: headersOf(m),
      errorCode: e?.code ?? 'internal_error',
      errorMessage: err instanceof Error ? err.message : String(err),
      attempts,
      failedAt: Date.now() * 1000,
    };
    this.log.warn({ event: `${this.opts.name}:dead-letter`, topic, partition, offset: m.offset, errorCode: letter.errorCode }, 'message sent to the dead-letter topic');
    await this.deps.producer.send([
      { topic: this.prefix + TOPICS.deadLetter, key: letter.key, value: this.deps.wire.encode(TOPICS.deadLetter, letter) },
    ]);
  }
}
