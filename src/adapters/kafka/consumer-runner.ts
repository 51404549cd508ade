/**
 * The one consumer loop of the service. A role hands it a handler (per message, or per batch of
 * one partition); the runner alone owns offsets, heartbeats, retries and the dead-letter topic.
 *
 * - Offsets: an offset is resolved only after its handler finished (or its message went to the
 *   dead-letter topic), and the resolved offsets are committed once a second
 *   (`COMMIT_INTERVAL_MS`) and on stop, so a crash re-delivers at most the uncommitted tail:
 *   at-least-once, with idempotent handlers.
 * - Passing outages (a store or the broker unavailable: `isRetriable`) are retried with capped
 *   exponential backoff for as long as they last: a message is never dead-lettered because
 *   Cassandra restarted. Heartbeats go on meanwhile.
 * - Any other failure is tried `consumerAttempts` times; then `onGiveUp` runs (node roles write
 *   an error result on the trace there) and the message goes to the dead-letter topic, and the
 *   partition moves on.
 * - A batch handler may stop early (`{ processed, pauseUntil }`): the rest of the batch is left
 *   for later, the partition is paused and resumed at that time (the delay tiers use it, so no
 *   consumer ever sleeps), or fetched again at once when that time is past (a node whose slow
 *   items are still running hands the partition back that way).
 * - Scheduled retries (a webhook's 1-2-4-8-16 s) never wait here: handlers re-publish through
 *   the delay topics instead.
 * - Metrics (the `Meters` port, docs/observability.md) are counted here once for every consumer:
 *   items handled, failed, retried and dead-lettered, handler time, and each partition's lag and
 *   the age of its oldest waiting message as of each fetch.
 */
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import { TdxError, isTdxError } from '../../errors.ts';
import { TOPICS } from '../../wire/topics.ts';
import type { DeadLetter } from '../../wire/dead-letter.v1.ts';
import type { BatchingProducer } from './client.ts';
import type { WireRegistry } from './registry.ts';
import { isRetriable } from './retriable.ts';
import { waitLongerWhenIdle } from './idle-fetch.ts';
import { NO_CONSUMER_METER, type ConsumerMeter, type Meters } from '../../domain/metrics.ts';
import type { BatchSpans, OtlpTracer } from '../tracing/otlp.ts';

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
  /** Keeps the consumer's group membership alive during long work. */
  readonly heartbeat: () => Promise<void>;
}

/** What a batch handler may ask for: stop after `processed` messages and resume the partition at `pauseUntil` (ms). */
export interface BatchOutcome {
  readonly processed: number;
  readonly pauseUntil: number;
}

/**
 * Thrown by a batch handler when only some messages of the batch failed (the others' effects
 * are done): the runner tries those again, and gives up on those alone.
 */
export class PartialBatchFailure extends Error {
  constructor(
    /** Offsets of the messages that failed. */
    readonly failedOffsets: readonly string[],
    /** The first failure (it decides retriable or not). */
    readonly failure: unknown,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
    this.name = 'PartialBatchFailure';
  }
}

export type MessageHandler<T> = (message: Consumed<T>, ctx: HandlerContext) => Promise<void>;
export type BatchHandler<T> = (messages: readonly Consumed<T>[], ctx: HandlerContext) => Promise<void | BatchOutcome>;

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
  /**
   * Runs once a message failed for good, before it goes to the dead-letter topic (node roles
   * record the failure on the trace). A failure here is treated like the handler's.
   */
  readonly onGiveUp?: (messages: readonly Consumed<T>[], err: unknown, attempts: number) => Promise<void>;
  /** Partitions processed at once. @default 4 */
  readonly partitionsConcurrently?: number;
  /** Start at the earliest offset when the group has none. @default true */
  readonly fromBeginning?: boolean;
  /** Longest time one batch may take before the group rebalances it away. @default 300000 */
  readonly rebalanceTimeoutMs?: number;
  /** Largest fetch per partition. @default 1048576 */
  readonly maxBytesPerPartition?: number;
  /**
   * Longest a fetch waits for new messages. A partition resumed meanwhile is fetched only when
   * the fetch in progress returns, so a consumer that pauses partitions until a due time keeps
   * this short. @default the configuration's `kafka.consumerMaxWaitMs` (5000)
   */
  readonly maxWaitTimeMs?: number;
  /**
   * Bytes a fetch waits for (up to `maxWaitTimeMs`) before it returns: a consumer whose cost is
   * per batch (an insert into ClickHouse, which makes a part of each) gets fewer, larger batches
   * when messages trickle in. @default 1
   */
  readonly minBytes?: number;
  /**
   * Once fetches have brought nothing for this long (and while no partition is paused), the
   * next fetch asks for one byte and waits up to this long (./idle-fetch.ts): a consumer with a
   * short `maxWaitTimeMs` then does not poll the broker while idle, and gets the first message
   * after a quiet spell at once. Unset: every fetch uses `maxWaitTimeMs` and `minBytes`.
   */
  readonly idleWaitMs?: number;
}

export interface RunnerDeps {
  readonly kafka: Kafka;
  readonly config: Config;
  readonly logger: Logger;
  readonly wire: WireRegistry;
  readonly producer: BatchingProducer;
  /** Where the runner counts (NO_METERS when absent). */
  readonly metrics?: Meters;
  /** Spans per work item, linked by `traceparent` (only when OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  readonly tracer?: OtlpTracer;
}

function headersOf(m: KafkaMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.map(String).join(',') : String(v);
  }
  return out;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** How often handled offsets are committed (see ConsumerRunner's class comment). */
export const COMMIT_INTERVAL_MS = 1000;

/**
 * Offsets are committed once a second (and when the runner stops), not after every batch:
 * kafkajs's auto-commit sends an OffsetCommit after each batch, which for documents that trickle
 * in one at a time was a broker round trip per stage per document. Work handled but not yet
 * committed when a process dies or loses its partitions is redelivered, as after a crash: every
 * effect is idempotent.
 */
export class ConsumerRunner<T> {
  private consumer: Consumer | undefined;
  private readonly log: Logger;
  /** The next offset to consume of each partition whose handled offsets are not committed yet. */
  private readonly handled = new Map<string, { topic: string; partition: number; offset: string }>();
  private commitTimer: NodeJS.Timeout | undefined;
  private idleFetch: { forget(): void } | undefined;
  private committing: Promise<void> | undefined;
  /** Batches being handled, and who waits for there to be none. */
  private inFlight = 0;
  private idle: (() => void)[] = [];
  private readonly abort = new AbortController();
  private readonly prefix: string;
  private readonly resumeTimers = new Set<NodeJS.Timeout>();
  private readonly meter: ConsumerMeter;
  readonly groupId: string;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly opts: ConsumerRunnerOptions<T>,
  ) {
    if (!opts.handle === !opts.handleBatch) throw new TdxError('config_invalid', `Consumer ${opts.name} needs exactly one of handle and handleBatch.`);
    this.prefix = deps.config.kafka.topicPrefix;
    this.groupId = `${deps.config.kafka.groupPrefix}${opts.group}`;
    this.log = deps.logger.child({ node: opts.name, group: this.groupId });
    this.meter = deps.metrics?.consumer(opts.name, opts.group) ?? NO_CONSUMER_METER;
  }

  async start(): Promise<void> {
    const { config } = this.deps;
    const consumer = this.deps.kafka.consumer({
      groupId: this.groupId,
      sessionTimeout: config.kafka.sessionTimeoutMs,
      rebalanceTimeout: this.opts.rebalanceTimeoutMs ?? 300_000,
      heartbeatInterval: Math.max(1000, Math.floor(config.kafka.sessionTimeoutMs / 10)),
      maxBytesPerPartition: this.opts.maxBytesPerPartition ?? 1_048_576,
      maxWaitTimeInMs: this.opts.maxWaitTimeMs ?? config.kafka.consumerMaxWaitMs,
      minBytes: this.opts.minBytes ?? 1,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    if (this.opts.idleWaitMs !== undefined) this.idleFetch = waitLongerWhenIdle(this.groupId, this.opts.idleWaitMs);
    await consumer.connect();
    await consumer.subscribe({ topics: this.opts.topics.map((t) => this.prefix + t), fromBeginning: this.opts.fromBeginning ?? true });
    this.commitTimer = setInterval(() => void this.commitHandled(), COMMIT_INTERVAL_MS);
    this.commitTimer.unref();
    await consumer.run({
      // committed by commitHandled, not after every batch
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.opts.partitionsConcurrently ?? 4,
      eachBatch: (payload) => this.eachBatch(payload),
    });
    this.log.info({ event: `${this.opts.name}:consuming`, topics: this.opts.topics }, 'consuming');
  }

  /** Stops fetching, lets the batch in hand finish, commits handled offsets, disconnects. */
  async stop(): Promise<void> {
    this.abort.abort();
    for (const t of this.resumeTimers) clearTimeout(t);
    this.resumeTimers.clear();
    clearInterval(this.commitTimer);
    if (!this.consumer) return;
    // no new batches; the ones in hand finish (aborted retries end at once); then the handled
    // offsets are committed while this member still belongs to the group
    this.consumer.pause(this.opts.topics.map((t) => ({ topic: this.prefix + t })));
    if (this.inFlight > 0) await new Promise<void>((resolve) => this.idle.push(resolve));
    await this.committing;
    await this.commitHandled();
    await this.consumer.stop();
    await this.consumer.disconnect();
    this.consumer = undefined;
    this.idleFetch?.forget();
    this.idleFetch = undefined;
  }

  /** Notes that a partition was handled up to (not including) `next`. */
  private markHandled(topic: string, partition: number, next: string): void {
    this.handled.set(`${topic}\u0000${partition}`, { topic, partition, offset: next });
  }

  /**
   * Commits the offsets handled since the last commit. A commit refused (the group rebalanced,
   * the broker is away) is dropped: the partition's next batch marks a newer offset, and what a
   * new owner receives again is handled idempotently.
   */
  private commitHandled(): Promise<void> {
    if (this.committing || this.handled.size === 0 || !this.consumer) return this.committing ?? Promise.resolve();
    const batch = [...this.handled.values()];
    this.handled.clear();
    const consumer = this.consumer;
    this.committing = consumer
      .commitOffsets(batch)
      .catch((err: unknown) => this.log.debug({ event: `${this.opts.name}:commit-skipped`, err }, 'offset commit refused; the work is redelivered if the partition moves'))
      .finally(() => (this.committing = undefined));
    return this.committing;
  }

  private unprefixed(topic: string): string {
    return topic.startsWith(this.prefix) ? topic.slice(this.prefix.length) : topic;
  }

  /** Runs `work` with a heartbeat every few seconds while it lasts. */
  private async withHeartbeats<R>(payload: EachBatchPayload, work: (heartbeat: () => Promise<void>) => Promise<R>): Promise<R> {
    const heartbeat = (): Promise<void> => payload.heartbeat().catch((err: unknown) => this.log.warn({ event: `${this.opts.name}:heartbeat-failed`, err }, 'heartbeat failed'));
    const every = Math.max(1000, Math.floor(this.deps.config.kafka.sessionTimeoutMs / 5));
    const timer = setInterval(() => void heartbeat(), every);
    try {
      return await work(heartbeat);
    } finally {
      clearInterval(timer);
    }
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    this.inFlight += 1;
    try {
      const { batch } = payload;
      const first = batch.messages[0];
      const topic = this.unprefixed(batch.topic);
      // waiting as of this fetch: this batch and what follows it up to the high watermark
      if (first) this.meter.position(topic, batch.partition, Number(batch.offsetLagLow()) + 1, Math.max(0, (Date.now() - Number(first.timestamp)) / 1000));
      const complete = await this.handleFetched(payload);
      if (complete) {
        const behind = first ? Math.max(0, Number(batch.offsetLag())) : 0;
        if (behind === 0) this.meter.position(topic, batch.partition, 0, 0);
      }
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** Handles a fetched batch; false when part of it was left for later (paused or sought back). */
  private async handleFetched(payload: EachBatchPayload): Promise<boolean> {
    const { batch } = payload;
    const topic = this.unprefixed(batch.topic);
    if (this.opts.handleBatch) {
      const decoded: Consumed<T>[] = [];
      const raw = new Map<string, KafkaMessage>();
      for (const m of batch.messages) {
        const c = await this.decodeOrDeadLetter(topic, batch.partition, m);
        if (c) {
          decoded.push(c);
          raw.set(c.offset, m);
        }
      }
      let outcome: void | BatchOutcome = undefined;
      if (decoded.length > 0) {
        const last = batch.messages[batch.messages.length - 1]!;
        const log = this.log.child({ topic, partition: batch.partition, offset: last.offset, count: decoded.length });
        const spans = this.spans(topic, batch.partition, decoded);
        const work = (): Promise<void | BatchOutcome | undefined> => this.withHeartbeats(payload, async (heartbeat) => {
          // Messages still to do: all of the batch first; after a partial failure, the failed ones.
          let pending = decoded;
          return this.withRetries(
            log,
            () => pending.length,
            async (attempt) => {
              const started = performance.now();
              try {
                const result = await this.opts.handleBatch!(pending, { logger: log, attempt, heartbeat });
                this.meter.handled(result ? result.processed : pending.length, (performance.now() - started) / 1000);
                return result;
              } catch (err) {
                if (err instanceof PartialBatchFailure) {
                  const failed = new Set(err.failedOffsets);
                  const before = pending.length;
                  pending = pending.filter((c) => failed.has(c.offset));
                  this.meter.handled(before - pending.length, (performance.now() - started) / 1000);
                  this.meter.failed(pending.length);
                  throw err.failure;
                }
                this.meter.failed(pending.length);
                throw err;
              }
            },
            async (err, attempts) => {
              if (spans) {
                const failed = new Set(pending.map((c) => c.offset));
                spans.fail(decoded.flatMap((c, i) => (failed.has(c.offset) ? [i] : [])), err);
              }
              if (this.opts.onGiveUp) await this.opts.onGiveUp(pending, err, attempts);
              for (const c of pending) await this.deadLetter(topic, batch.partition, raw.get(c.offset)!, err, attempts);
            },
          );
        });
        try {
          outcome = await (spans ? spans.run(work) : work());
        } finally {
          spans?.end();
        }
      }
      if (outcome && outcome.processed < decoded.length) {
        // Mark what was handled; leave the rest for when the partition resumes.
        if (outcome.processed > 0) payload.resolveOffset(decoded[outcome.processed - 1]!.offset);
        const nextOffset = decoded[outcome.processed]!.offset;
        if (outcome.processed > 0) this.markHandled(batch.topic, batch.partition, nextOffset);
        this.consumer!.seek({ topic: batch.topic, partition: batch.partition, offset: nextOffset });
        // a time already past resumes at once: no pause (a paused partition would make the next
        // fetch wait for data on the others)
        if (outcome.pauseUntil > Date.now()) {
          const resume = payload.pause();
          const t = setTimeout(() => {
            this.resumeTimers.delete(t);
            resume();
          }, outcome.pauseUntil - Date.now());
          this.resumeTimers.add(t);
        }
        return false;
      }
      const last = batch.messages[batch.messages.length - 1];
      if (last) {
        payload.resolveOffset(last.offset);
        this.markHandled(batch.topic, batch.partition, (BigInt(last.offset) + 1n).toString());
      }
      return true;
    }
    let complete = true;
    await this.withHeartbeats(payload, async (heartbeat) => {
      for (const m of batch.messages) {
        if (!payload.isRunning() || payload.isStale()) {
          complete = false;
          break;
        }
        const c = await this.decodeOrDeadLetter(topic, batch.partition, m);
        if (c) {
          const log = this.log.child({ topic, partition: batch.partition, offset: m.offset, key: c.key });
          const spans = this.spans(topic, batch.partition, [c]);
          const work = (): Promise<void> => this.withRetries(
            log,
            () => 1,
            async (attempt) => {
              const started = performance.now();
              try {
                await this.opts.handle!(c, { logger: log, attempt, heartbeat });
              } catch (err) {
                this.meter.failed(1);
                throw err;
              }
              this.meter.handled(1, (performance.now() - started) / 1000);
            },
            async (err, attempts) => {
              spans?.fail([0], err);
              if (this.opts.onGiveUp) await this.opts.onGiveUp([c], err, attempts);
              await this.deadLetter(topic, batch.partition, m, err, attempts);
            },
          );
          try {
            await (spans ? spans.run(work) : work());
          } finally {
            spans?.end();
          }
        }
        payload.resolveOffset(m.offset);
        this.markHandled(batch.topic, batch.partition, (BigInt(m.offset) + 1n).toString());
      }
    });
    return complete;
  }

  /** A span per work item when tracing is on. */
  private spans(topic: string, partition: number, items: readonly Consumed<T>[]): BatchSpans | undefined {
    return this.deps.tracer?.consume(`${this.opts.name} process`, items, {
      'messaging.system': 'kafka',
      'messaging.destination.name': topic,
      'messaging.destination.partition.id': String(partition),
      'messaging.consumer.group.name': this.opts.group,
      'tdx.consumer': this.opts.name,
    });
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

  /**
   * Runs `fn` until it succeeds: passing outages are retried for as long as they last, other
   * failures `consumerAttempts` times in all; then `giveUp` gets the error. Returns what `fn`
   * returned, or undefined after giving up.
   */
  private async withRetries<R>(log: Logger, items: () => number, fn: (attempt: number) => Promise<R>, giveUp: (err: unknown, attempts: number) => Promise<void>): Promise<R | undefined> {
    const { consumerAttempts, consumerRetryMinMs, consumerRetryMaxMs } = this.deps.config.kafka;
    let failures = 0;
    let outages = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (err) {
        if (this.abort.signal.aborted) throw err; // stopping: leave the offset unresolved, it is re-delivered
        const passing = isRetriable(err);
        if (passing) outages++;
        else failures++;
        if (!passing && failures >= consumerAttempts) {
          log.error({ event: `${this.opts.name}:giving-up`, attempts: attempt, err }, 'giving up on message');
          await giveUp(err, attempt);
          return undefined;
        }
        this.meter.retried(items(), passing ? 'outage' : 'failure');
        const n = passing ? outages : failures;
        const delay = Math.min(consumerRetryMaxMs, consumerRetryMinMs * 2 ** (n - 1)) * (0.5 + Math.random() / 2);
        log.warn({ event: `${this.opts.name}:retry`, attempt, passing, delayMs: Math.round(delay), err }, passing ? 'store or broker unavailable; retrying' : 'failed; retrying');
        await sleep(delay, this.abort.signal);
        if (this.abort.signal.aborted) throw err;
      }
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
    this.meter.deadLettered();
    this.log.warn({ event: `${this.opts.name}:dead-letter`, topic, partition, offset: m.offset, errorCode: letter.errorCode }, 'message sent to the dead-letter topic');
    await this.deps.producer.send([
      { topic: this.prefix + TOPICS.deadLetter, key: letter.key, value: this.deps.wire.encode(TOPICS.deadLetter, letter) },
    ]);
  }
}
