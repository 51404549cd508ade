/**
 * Waits for a pipeline's Kafka work to be done: every consumer group of its group prefix has
 * committed to the end of every partition assigned to it, twice in a row with no topic of its
 * prefix having grown in between. A group commits an offset only after handling what comes before
 * it (src/adapters/kafka/consumer-runner.ts), and a handler produces its outputs before that, so
 * at that point nothing taken from Kafka is still being handled, nothing produced waits to be
 * taken, and what the materializer writes to ClickHouse is written.
 *
 * Tests that check something did NOT happen (a second delivery, a duplicate transaction) wait for
 * this rather than for a fixed time: whatever the pipeline would still do with the work it has
 * is done, however slow the machine. Work that enters from outside Kafka later (a poll, a held
 * submission produced again, a request) is not covered, and a pipeline that keeps producing
 * (a connection polled every second that fails each time) is never quiet: not for those.
 * TDX_TEST_QUIET_DEBUG=1 prints each look (what is behind).
 */
import kafkajs, { type Admin } from 'kafkajs';
import type { Config } from '../../../src/config.ts';
import { eventually } from './isolated-config.ts';
import { testKafka } from './kafka.ts';

interface Snapshot {
  /** Whether every assigned partition of every group is committed to its end. */
  readonly caughtUp: boolean;
  /** The end offset of every partition of the prefix's topics. */
  readonly ends: string;
  /** What is not caught up, for the timeout's message. */
  readonly behind: string[];
  /** Groups with members, and the partitions checked. */
  readonly checked: string;
}

async function snapshot(admin: Admin, config: Pick<Config, 'kafka'>): Promise<Snapshot> {
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(config.kafka.topicPrefix)).sort();
  const ends = new Map<string, { low: number; high: number }>();
  // the requests of a look go out together (one at a time, a look of 25 topics and 17 groups
  // took 0.4 s on a loaded machine)
  const [offsets, listed] = await Promise.all([Promise.all(topics.map(async (topic) => ({ topic, offsets: await admin.fetchTopicOffsets(topic) }))), admin.listGroups()]);
  for (const { topic, offsets: os } of offsets) {
    for (const o of os) ends.set(`${topic}:${o.partition}`, { low: Number(o.low), high: Number(o.high) });
  }
  const groupIds = listed.groups.map((g) => g.groupId).filter((g) => g.startsWith(config.kafka.groupPrefix));
  const behind: string[] = [];
  let active = 0;
  let partitions = 0;
  const groups = groupIds.length === 0 ? [] : (await admin.describeGroups(groupIds)).groups;
  const committedOf = new Map(
    await Promise.all(
      groups
        .filter((g) => g.state !== 'Empty' && g.state !== 'Dead')
        .map(async (g) => [g.groupId, topics.length === 0 ? [] : await admin.fetchOffsets({ groupId: g.groupId, topics })] as const),
    ),
  );
  for (const g of groups) {
    if (g.state === 'Empty' || g.state === 'Dead') continue; // no member: nobody handles anything
    active++;
    // the partitions a stable group's members hold, and every partition the group has committed
    // to (a group in the middle of a rebalance holds none for now)
    const assigned = new Set<string>();
    if (g.state === 'Stable') {
      for (const m of g.members) {
        if (m.memberAssignment.length === 0) continue;
        const a = kafkajs.AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
        for (const [topic, partitions] of Object.entries(a?.assignment ?? {})) for (const p of partitions) assigned.add(`${topic}:${p}`);
      }
    }
    for (const t of committedOf.get(g.groupId) ?? []) {
      for (const p of t.partitions) {
        const key = `${t.topic}:${p.partition}`;
        const end = ends.get(key) ?? { low: 0, high: 0 };
        if (Number(p.offset) < 0 && !assigned.has(key)) continue;
        const committed = Number(p.offset) < 0 ? end.low : Number(p.offset);
        if (committed < end.high) behind.push(`${g.groupId} ${key} at ${committed} of ${end.high}`);
        assigned.delete(key);
        partitions++;
      }
    }
    // assigned partitions the answer did not name: nothing committed yet
    for (const key of assigned) {
      const end = ends.get(key) ?? { low: 0, high: 0 };
      if (end.low < end.high) behind.push(`${g.groupId} ${key} at ${end.low} of ${end.high}`);
      partitions++;
    }
  }
  return { caughtUp: behind.length === 0, ends: JSON.stringify([...ends]), behind, checked: `${active} of ${groups.length} groups active, ${partitions} partitions checked` };
}

/** Resolves once the Kafka work of `config`'s prefixes is done (see above); fails after `timeoutMs`. */
export async function kafkaQuiet(config: Pick<Config, 'kafka'>, timeoutMs = 60_000): Promise<void> {
  const admin = testKafka().admin();
  await admin.connect();
  let last: Snapshot | undefined;
  let previous: Snapshot | undefined;
  try {
    const started = Date.now();
    await eventually(
      async () => {
        last = await snapshot(admin, config);
        if (process.env['TDX_TEST_QUIET_DEBUG'] === '1') console.error(`kafkaQuiet +${Date.now() - started} ms (${last.checked}): ${last.behind.join('; ') || 'caught up'}`);
        const done = last.caughtUp && previous?.caughtUp === true && previous.ends === last.ends;
        previous = last;
        return done ? true : undefined;
      },
      timeoutMs,
      'the pipeline to finish its Kafka work',
    );
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}; behind: ${last?.behind.slice(0, 10).join('; ') ?? '?'}`);
  } finally {
    await admin.disconnect();
  }
}
