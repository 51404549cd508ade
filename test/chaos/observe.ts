/**
 * What the chaos run watches on the broker: the consumer groups' positions (lag, and whether a
 * group has caught up with what was waiting at a given moment), the public `feed` topic as an
 * outside consumer reads it, and the dead-letter topic. Each reader starts again by itself when
 * the broker goes away and comes back.
 */
import { createHash } from 'node:crypto';
import type { Admin, Consumer, Kafka } from 'kafkajs';
import type { WireRegistry } from '../../src/adapters/kafka/registry.ts';
import type { FeedEntry } from '../../src/wire/feed-entry.v1.ts';
import type { DeadLetter } from '../../src/wire/dead-letter.v1.ts';

/** A consumer group and the topics it reads (names with prefix). */
export interface GroupSpec {
  readonly group: string;
  readonly topics: readonly string[];
}

/** Log-end offsets per `topic:partition`. */
export type Offsets = Map<string, bigint>;

export class GroupWatch {
  constructor(private readonly admin: Admin) {}

  /** Log-end offsets of the topics. */
  async ends(topics: readonly string[]): Promise<Offsets> {
    const out: Offsets = new Map();
    for (const t of topics) for (const p of await this.admin.fetchTopicOffsets(t)) out.set(`${t}:${p.partition}`, BigInt(p.high));
    return out;
  }

  /** Committed offsets of a group (a partition it never committed counts as its low mark). */
  async committed(g: GroupSpec): Promise<Offsets> {
    const out: Offsets = new Map();
    const lows = new Map<string, bigint>();
    for (const t of g.topics) for (const p of await this.admin.fetchTopicOffsets(t)) lows.set(`${t}:${p.partition}`, BigInt(p.low));
    for (const t of await this.admin.fetchOffsets({ groupId: g.group, topics: [...g.topics] })) {
      for (const p of t.partitions) {
        const k = `${t.topic}:${p.partition}`;
        const o = BigInt(p.offset);
        out.set(k, o < 0n ? (lows.get(k) ?? 0n) : o);
      }
    }
    return out;
  }

  /** Messages not yet committed by the group. */
  async lag(g: GroupSpec): Promise<bigint> {
    const [ends, committed] = await Promise.all([this.ends(g.topics), this.committed(g)]);
    let lag = 0n;
    for (const [k, end] of ends) lag += end - (committed.get(k) ?? 0n);
    return lag;
  }

  /** True once the group committed everything that was in its topics at `snapshot`. */
  async caughtUp(g: GroupSpec, snapshot: Offsets): Promise<boolean> {
    const committed = await this.committed(g);
    for (const [k, end] of snapshot) if ((committed.get(k) ?? 0n) < end) return false;
    return true;
  }

  /** Whether the group has members and is not rebalancing. */
  async stable(group: string): Promise<boolean> {
    const { groups } = await this.admin.describeGroups([group]);
    const g = groups[0];
    return g !== undefined && g.state === 'Stable' && g.members.length > 0;
  }
}

/** One entry as the public feed topic carried it, and how often. */
export interface SeenFeedEntry {
  readonly entry: FeedEntry;
  /** Hash of the fields (equal for a republished entry). */
  readonly sha: string;
  count: number;
  /** A republished entry whose fields differ from the first. */
  differs: boolean;
}

const ENTRY_FIELDS = ['id', 'organizationId', 'direction', 'status', 'partnerKey', 'traceGuid', 'resultId', 'detail', 'createdAt'] as const;

/** A consumer of a topic that restarts itself after a crash (a broker outage). */
export class Reader<T> {
  private consumer: Consumer | undefined;
  private stopped = false;
  restarts = 0;

  constructor(
    private readonly kafka: Kafka,
    private readonly wire: WireRegistry,
    private readonly group: string,
    private readonly topic: string,
    private readonly onValue: (value: T) => void,
  ) {}

  async start(): Promise<void> {
    const c = this.kafka.consumer({ groupId: this.group, sessionTimeout: 10_000, heartbeatInterval: 1_000, retry: { retries: Number.MAX_SAFE_INTEGER, maxRetryTime: 5_000 } });
    this.consumer = c;
    c.on(c.events.CRASH, () => {
      if (this.stopped) return;
      this.restarts++;
      // kafkajs restarts a crashed consumer only for errors it deems retriable: take no chances
      setTimeout(() => {
        if (this.stopped || this.consumer !== c) return;
        void c
          .disconnect()
          .catch(() => undefined)
          .then(() => (this.stopped ? undefined : this.start()))
          .catch(() => undefined);
      }, 2_000).unref();
    });
    await c.connect();
    await c.subscribe({ topics: [this.wire.topic(this.topic)], fromBeginning: true });
    await c.run({
      eachMessage: async ({ message }) => {
        if (message.value) this.onValue(await this.wire.decode<T>(this.topic, message.value));
      },
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.consumer?.disconnect().catch(() => undefined);
  }
}

/** Every entry of the public feed topic, by id. */
export class FeedTopic {
  readonly entries = new Map<string, SeenFeedEntry>();
  readonly reader: Reader<FeedEntry>;

  constructor(kafka: Kafka, wire: WireRegistry, group: string) {
    this.reader = new Reader<FeedEntry>(kafka, wire, group, 'feed', (e) => this.add(e));
  }

  private add(e: FeedEntry): void {
    const sha = createHash('sha256')
      .update(JSON.stringify(ENTRY_FIELDS.map((f) => e[f])))
      .digest('hex');
    const seen = this.entries.get(e.id);
    if (!seen) this.entries.set(e.id, { entry: e, sha, count: 1, differs: false });
    else {
      seen.count++;
      if (seen.sha !== sha) seen.differs = true;
    }
  }
}

/** Every dead letter. */
export class DeadLetters {
  readonly letters: DeadLetter[] = [];
  readonly reader: Reader<DeadLetter>;

  constructor(kafka: Kafka, wire: WireRegistry, group: string) {
    this.reader = new Reader<DeadLetter>(kafka, wire, group, 'deadletter', (l) => this.letters.push(l));
  }
}
