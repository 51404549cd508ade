/**
 * kafkajs client factory, the batching producer and the Kafka health check.
 */
import { Kafka, Partitioners, logLevel, type Message, type PartitionMetadata, type Producer, type LogEntry } from 'kafkajs';
import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import { TdxError } from '../../errors.ts';
import { producerStateLost } from '../transient.ts';
import { quietRequestQueues } from './idle-timer.ts';
import { adaptIdleFetches } from './idle-fetch.ts';

/** A dependency check run by GET /readyz (structurally the HealthCheck of src/http/app.ts). */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<void>;
}

/** kafkajs logs through pino; its chatty info lines go to debug. */
function logCreator(logger: Logger) {
  const log = logger.child({ component: 'kafkajs' });
  return () =>
    ({ level, log: entry }: LogEntry): void => {
      const { message, ...rest } = entry;
      if (level === logLevel.ERROR) log.error(rest, message);
      else if (level === logLevel.WARN) log.warn(rest, message);
      else log.debug(rest, message);
    };
}

/** The process's kafkajs client: brokers and client id from configuration. */
export function createKafka(config: Config, logger: Logger, clientSuffix = '', limits: { retries?: number; requestTimeoutMs?: number } = {}): Kafka {
  quietRequestQueues();
  adaptIdleFetches();
  return new Kafka({
    clientId: `${config.serviceName}${clientSuffix}`,
    brokers: [...config.kafka.brokers],
    logLevel: logLevel.INFO,
    logCreator: logCreator(logger),
    retry: { initialRetryTime: 100, retries: limits.retries ?? 8 },
    connectionTimeout: 3_000,
    ...(limits.requestTimeoutMs === undefined ? {} : { requestTimeout: limits.requestTimeoutMs }),
  });
}

/** `describeCluster` through a short-lived admin connection. */
export function kafkaHealthCheck(kafka: Kafka): HealthCheck {
  return {
    name: 'kafka',
    check: async () => {
      const admin = kafka.admin({ retry: { retries: 0 } });
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        if (cluster.brokers.length === 0) throw new TdxError('broker_unavailable', 'Kafka cluster has no broker.');
      } finally {
        await admin.disconnect();
      }
    },
  };
}

/** One record to send: topic is the full (prefixed) name. */
export interface OutgoingRecord {
  readonly topic: string;
  readonly key: string | null;
  readonly value: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Sends records to the broker; resolves once they are acknowledged. */
export interface RecordSender {
  send(records: readonly OutgoingRecord[]): Promise<void>;
}

export interface BatchingOptions {
  /** Records that flush a batch at once. @default 1000 */
  readonly maxBatchRecords?: number;
  /**
   * Most bytes (keys, values, headers) in one produce request. Records of one partition go in
   * one record batch, which the broker refuses above its message.max.bytes (1 MiB by default)
   * with an error that retrying never cures: the 20,000 feed entries of one interchange share a
   * trace, so a partition. @default 524288
   */
  readonly maxRequestBytes?: number;
  /**
   * Makes a new producer when the broker no longer takes this one's idempotent sequence
   * (`producerStateLost`, ../transient.ts): kafkajs does not recover from it, so without a new
   * producer every later send would fail. The failed batch's callers retry as for any failure;
   * records written twice that way are done once (deterministic ids).
   */
  readonly renew?: () => Producer;
  /** Sees the partition kafkajs chose for each record (the producer's partitioner must be `witness.partitioner`). */
  readonly witness?: PartitionWitness;
}

/**
 * An idempotent producer that gathers the sends of concurrent callers for `lingerMs` into one
 * `sendBatch` request (kafkajs has no linger of its own). Each caller's promise settles when
 * its batch is acknowledged by every in-sync replica.
 */
export class BatchingProducer implements RecordSender {
  private pending: { records: readonly OutgoingRecord[]; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = new Set<Promise<void>>();
  /** The last batch's sends (settled either way: a failed batch rejects its own callers only). */
  private tail: Promise<unknown> = Promise.resolve();
  /** A flush is due as soon as the batch in flight is acknowledged (group commit). */
  private flushQueued = false;

  /** Connects a producer made by `renew`, before the next request (a failed connect is tried again by the next batch). */
  private connectRenewed: (() => Promise<void>) | null = null;

  private readonly maxBatchRecords: number;
  private readonly maxRequestBytes: number;
  private readonly renew: (() => Producer) | undefined;
  private readonly witness: PartitionWitness;

  constructor(
    private producer: Producer,
    private readonly lingerMs: number,
    options: BatchingOptions = {},
  ) {
    this.maxBatchRecords = options.maxBatchRecords ?? 1000;
    this.maxRequestBytes = options.maxRequestBytes ?? 512 * 1024;
    this.renew = options.renew;
    this.witness = options.witness ?? new PartitionWitness();
  }

  static create(kafka: Kafka, config: Config): BatchingProducer {
    // The idempotent producer retries without limit (a bounded retry could break its ordering
    // guarantee); shutdown is bounded by TDX_SHUTDOWN_TIMEOUT_MS instead.
    const witness = new PartitionWitness();
    const make = (): Producer =>
      kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: witness.partitioner,
        retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 100, maxRetryTime: 5_000 },
      });
    return new BatchingProducer(make(), config.kafka.producerLingerMs, { renew: make, witness });
  }

  /**
   * A producer for work an HTTP request answers for (a submission, a replay): every send settles,
   * written or failed, within a few seconds, with a client of its own whose connection retries
   * are as short. The process's producer retries without limit (nothing a node produced may be
   * lost), so a record it took during a broker outage is written once the broker is back: a
   * request that meanwhile answered 503 would still be processed, and again when its caller
   * sends it again, as a 503 asks. This one gives up instead, so a 503 means not taken: a send
   * that failed because the broker refused the connection wrote nothing (one whose request got
   * no answer in 5 s stays open either way, as for any client). Not idempotent (its
   * records are single work items with deterministic ids, which nodes do once however often
   * they arrive), so a retry never waits on producer state.
   */
  static createBounded(config: Config, logger: Logger): BatchingProducer {
    const kafka = createKafka(config, logger, '-requests', { retries: 1, requestTimeoutMs: 5_000 });
    const witness = new PartitionWitness();
    const producer = kafka.producer({
      idempotent: false,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: witness.partitioner,
      retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 1_000 },
    });
    return new BatchingProducer(producer, 0, { witness });
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  /** Sends records; resolves once they are acknowledged. */
  send(records: readonly OutgoingRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ records, resolve, reject });
      const count = this.pending.reduce((n, p) => n + p.records.length, 0);
      if (count >= this.maxBatchRecords) this.flush();
      else if (this.lingerMs === 0) this.groupCommit();
      else this.timer ??= setTimeout(() => this.flush(), this.lingerMs);
    });
  }

  /**
   * Without a linger: sends at once when nothing is in flight; otherwise every send that comes
   * while a request is being acknowledged goes in the next request, sent as soon as that one is
   * acknowledged (group commit): one waiting caller costs no delay, many share a round trip.
   */
  private groupCommit(): void {
    if (this.inFlight.size === 0) {
      this.flush();
      return;
    }
    if (this.flushQueued) return;
    this.flushQueued = true;
    void this.tail.then(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    // Requests of at most maxRequestBytes, each sent after the one before it (of this batch and
    // of earlier batches) was acknowledged, so records keep the order they were sent in. The
    // idempotent producer has one request in flight anyway (maxInFlightRequests 1).
    const requests: Map<string, Message[]>[] = [];
    let byTopic = new Map<string, Message[]>();
    let bytes = 0;
    for (const p of batch) {
      for (const r of p.records) {
        const size = recordBytes(r);
        if (bytes > 0 && bytes + size > this.maxRequestBytes) {
          requests.push(byTopic);
          byTopic = new Map();
          bytes = 0;
        }
        bytes += size;
        let list = byTopic.get(r.topic);
        if (!list) byTopic.set(r.topic, (list = []));
        list.push({ key: r.key, value: r.value, ...(r.headers ? { headers: { ...r.headers } } : {}) });
      }
    }
    requests.push(byTopic);
    const run = requests
      .reduce<Promise<unknown>>((prev, req) => prev.then(() => this.sendRequest(req)), this.tail)
      .then(
        () => batch.forEach((p) => p.resolve()),
        (err: unknown) => {
          if (producerStateLost(err)) this.renewProducer();
          const e = new TdxError('broker_unavailable', 'Kafka did not accept the batch.', { cause: err });
          batch.forEach((p) => p.reject(e));
        },
      );
    this.tail = run;
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /**
   * One produce request, checked: every partition a record went to must be in the broker's
   * answer. kafkajs 2.2.4 drops records without an error when, in a request spread over several
   * brokers, one broker fails and its partitions' new leader is a broker that had already
   * answered: its retry sends only to brokers without an answer (seen in the cluster chaos run:
   * a result event lost while the feed event beside it was written). The records of a partition
   * missing from the answer were never sent, so they are sent again, a few times at most.
   */
  private async sendRequest(req: Map<string, Message[]>): Promise<void> {
    let topicMessages = [...req].map(([topic, messages]) => ({ topic, messages }));
    for (let round = 0; ; round++) {
      const producer = await this.current();
      this.witness.begin();
      const answered = await producer.sendBatch({ acks: -1, topicMessages });
      const dropped = this.witness.unanswered(answered);
      if (dropped.length === 0) return;
      if (round >= 3) throw new TdxError('broker_unavailable', `Kafka answered a produce request without ${dropped.length} of its records (partitions ${[...new Set(dropped.map((d) => `${d.topic}/${d.partition}`))].join(', ')}).`);
      const byTopic = new Map<string, Message[]>();
      for (const d of dropped) byTopic.set(d.topic, [...(byTopic.get(d.topic) ?? []), d.message]);
      topicMessages = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    }
  }

  private readonly watchers: ((producer: Producer) => void)[] = [];

  /** Calls `fn` with the kafkajs producer now and with every producer that replaces it (metrics). */
  watch(fn: (producer: Producer) => void): void {
    this.watchers.push(fn);
    fn(this.producer);
  }

  /** The producer to send with, connected first when it was just renewed. */
  private async current(): Promise<Producer> {
    const connect = this.connectRenewed;
    if (connect) {
      await connect();
      this.connectRenewed = null;
    }
    return this.producer;
  }

  /** Replaces the producer whose idempotence state the broker lost (see `renew`). */
  private renewProducer(): void {
    if (!this.renew) return;
    const old = this.producer;
    const fresh = this.renew();
    this.producer = fresh;
    for (const fn of this.watchers) fn(fresh);
    this.connectRenewed = () => fresh.connect();
    void old.disconnect().catch(() => undefined);
  }

  /** Sends what is pending, waits for in-flight batches, disconnects. */
  async close(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.inFlight]);
    await this.producer.disconnect();
  }
}

/** A record's size on the wire, near enough: key, value, headers and a record's overhead. */
function recordBytes(r: OutgoingRecord): number {
  let n = 32 + r.value.length + (r.key === null ? 0 : Buffer.byteLength(r.key));
  if (r.headers) for (const [k, v] of Object.entries(r.headers)) n += Buffer.byteLength(k) + Buffer.byteLength(v) + 4;
  return n;
}

/**
 * Wraps kafkajs's default partitioner to note the partition each record of the request under
 * way goes to, so the broker's answer can be checked for every one of them. A producer sends one
 * request at a time (`maxInFlightRequests: 1`, requests chained), so one set of notes suffices.
 */
export class PartitionWitness {
  private chosen = new Map<Message, { topic: string; partition: number }>();
  private readonly inner = Partitioners.DefaultPartitioner();

  /** The `createPartitioner` of the producer this witness watches. */
  readonly partitioner = (): ((args: { topic: string; partitionMetadata: PartitionMetadata[]; message: Message }) => number) => (args) => {
    const partition = this.inner(args);
    this.chosen.set(args.message, { topic: args.topic, partition });
    return partition;
  };

  /** Forgets the notes of the previous request. */
  begin(): void {
    this.chosen = new Map();
  }

  /** The records noted whose partition the answer does not list (none when nothing was noted). */
  unanswered(answer: readonly { topicName: string; partition: number }[] | undefined): { topic: string; partition: number; message: Message }[] {
    if (this.chosen.size === 0 || answer === undefined) return [];
    const seen = new Set(answer.map((a) => `${a.topicName}\u0000${a.partition}`));
    const out: { topic: string; partition: number; message: Message }[] = [];
    for (const [message, { topic, partition }] of this.chosen) if (!seen.has(`${topic}\u0000${partition}`)) out.push({ topic, partition, message });
    return out;
  }
}
