/**
 * The materializer role: two consumers.
 *
 * - The projector (group `materializer`) writes results and log entries into ClickHouse as they
 *   arrive (a pass's in one `events.records` message per trace, and the feed sequencer's changes
 *   a few to a batch; single events on `events.results`, `events.logs`, `events.transactions`),
 *   and projects each changed transaction: from the row its change carries when the pass that
 *   wrote it wrote it whole (wire/transaction-change.v1.ts), else by reading the row from
 *   Cassandra (the system of record, written field by field by several steps); the projection's
 *   version is the row's `updatedAt`, so the list always converges on the stored row.
 * - The feed sequencer (group `feed-sequencer`, the single consumer of the one-partition
 *   `events.feed` topic) runs the rules of src/nodes/feed-sequencer.ts on each batch: gives each
 *   new feed entry its createdAt, records it in Cassandra, sets the transaction's deliveredAt
 *   from its first success entry, inserts the entries into ClickHouse, moves the feed
 *   watermark, and publishes the entries on the public `feed` topic, in that order.
 *
 * Both are idempotent: a batch re-delivered after a crash rewrites the same rows.
 */
import type { Role } from './role.ts';
import { ConsumerRunner } from '../adapters/kafka/consumer-runner.ts';
import { FEED_WATERMARK, feedRow, insertFeedWatermark, insertRows, logRow, resultRow, transactionRow } from '../adapters/clickhouse/materialize.ts';
import { fromChTime, qualify, type ClickHouseHandle } from '../adapters/clickhouse/client.ts';
import { MonotonicClock } from '../domain/feed-sequence.ts';
import { feedRequestOf } from '../nodes/runtime.ts';
import { sequenceFeedBatch, type FeedSequencerPorts } from '../nodes/feed-sequencer.ts';
import { TOPICS } from '../wire/topics.ts';
import type { FeedRequestMessage } from '../wire/feed-request.v1.ts';
import type { LogEvent } from '../wire/log-event.v1.ts';
import type { ResultEvent } from '../wire/result-event.v1.ts';
import type { TransactionChange } from '../wire/transaction-change.v1.ts';
import type { RecordEvents } from '../wire/record-events.v1.ts';
import type { Resources } from './resources.ts';

export { FEED_WATERMARK };


/**
 * How long and how much the projector's fetches wait for (see ConsumerRunnerOptions.minBytes),
 * and how much a fetch may bring of one partition: a projector behind its topics (the pipeline
 * busy) gets that much in each batch, and each batch's rows of a table are one insert.
 */
const BATCHED_FETCH = { minBytes: 256 * 1024, maxWaitTimeMs: 250, maxBytesPerPartition: 4 * 1024 * 1024 } as const;
/**
 * The feed sequencer's: an entry's createdAt is the time it is sequenced, so its wait is part of
 * every document's latency to the feed; 50 ms still gathers the entries of a busy pipeline into
 * a few inserts a second. Idle (nothing fetched for `idleWaitMs`, the consumers' configured wait)
 * it does not poll every 50 ms but waits for the first request, which it gets at once.
 */
const SEQUENCER_FETCH = { minBytes: 256 * 1024, maxWaitTimeMs: 50 } as const;

/** The feed's readable position: every entry with a createdAt at or before it is in ClickHouse. */
export async function readFeedWatermark(ch: ClickHouseHandle): Promise<number> {
  const rs = await ch.client.query({
    query: `SELECT max(position) AS p, count() AS n FROM ${qualify(ch.database, 'feed_watermark')} WHERE name = {name:String}`,
    query_params: { name: FEED_WATERMARK },
    format: 'JSONEachRow',
  });
  const [row] = await rs.json<{ p: string; n: number }>();
  return row && Number(row.n) > 0 ? fromChTime(row.p) : 0;
}

export function materializerRole(resources: Resources): Role {
  const runners: ConsumerRunner<unknown>[] = [];
  return {
    name: 'materializer',
    start: async () => {
      const [kafka, wire, producer, clickhouse, stores] = await Promise.all([resources.kafka(), resources.wire(), resources.producer(), resources.clickhouse(), resources.stores()]);
      const { config, logger } = resources;
      const maxRows = config.materializer.maxBatchRows;
      const deps = { kafka, wire, producer, config, logger, metrics: resources.metrics, tracer: await resources.tracer() };

      const projector = new ConsumerRunner<unknown>(deps, {
        name: 'materializer',
        group: 'materializer',
        topics: [TOPICS.records, TOPICS.results, TOPICS.logs, TOPICS.transactions],
        partitionsConcurrently: 8,
        // each insert makes a ClickHouse part: while documents trickle in, gather up to a
        // quarter of a second (or 256 KiB) of events into each fetch rather than one or two
        ...BATCHED_FETCH,
        handleBatch: async (messages, { logger: log }) => {
          const topic = messages[0]!.topic;
          // a batch is of one partition of one topic: the events of a pass come together in
          // events.records; the single-event topics carry other writers' (and older) events
          const results: ResultEvent[] = [];
          const logs: LogEvent[] = [];
          const changes: TransactionChange[] = [];
          for (const m of messages) {
            if (topic === TOPICS.records) {
              const v = m.value as RecordEvents;
              results.push(...v.results);
              logs.push(...v.logs);
              changes.push(...v.changes);
            } else if (topic === TOPICS.results) results.push(m.value as ResultEvent);
            else if (topic === TOPICS.logs) logs.push(m.value as LogEvent);
            else changes.push(m.value as TransactionChange);
          }
          if (results.length > 0) await insertRows(clickhouse, 'results', results.map(resultRow), maxRows);
          if (logs.length > 0) await insertRows(clickhouse, 'logs', logs.map(logRow), maxRows);
          if (changes.length > 0) {
            // a transaction whose every change here carries the row as its pass wrote it is
            // projected from the newest of them; one with a change that carries none is read
            const written = new Map<string, TransactionChange>();
            const toRead = new Set<string>();
            for (const c of changes) {
              const k = `${c.organizationId}|${c.id}`;
              if (!c.snapshot) toRead.add(k);
              else if ((written.get(k)?.snapshot?.updatedAt ?? -1) < c.snapshot.updatedAt) written.set(k, c);
            }
            const rows = [];
            for (const [k, c] of written) if (!toRead.has(k)) rows.push(transactionRow({ ...c.snapshot!, organizationId: c.organizationId, id: c.id, traceGuid: c.traceGuid }));
            const byOrg = new Map<string, string[]>();
            for (const k of toRead) {
              const [org, id] = k.split('|') as [string, string];
              let ids = byOrg.get(org);
              if (!ids) byOrg.set(org, (ids = []));
              ids.push(id);
            }
            for (const [org, ids] of byOrg) for (const tx of await stores.transactions.getMany(org, ids)) rows.push(transactionRow(tx));
            await insertRows(clickhouse, 'transactions', rows, maxRows);
          }
          log.debug({ event: 'materializer:inserted', topic, count: messages.length }, 'rows inserted');
        },
      });

      const clock = new MonotonicClock(await readFeedWatermark(clickhouse));
      // the feed sequencer's rules are src/nodes/feed-sequencer.ts; its ports over this role's connections
      const sequencerPorts: FeedSequencerPorts = {
        feed: stores.feed,
        transactions: stores.transactions,
        projection: {
          insert: async (entries) => void (await insertRows(clickhouse, 'feed_entries', entries.map(feedRow), maxRows)),
          moveWatermark: (position, newest) => insertFeedWatermark(clickhouse, position, newest),
        },
        emitter: { produce: (ms) => producer.send(ms.map((m) => ({ topic: wire.topic(m.topic), key: m.key, value: wire.encode(m.topic, m.value) }))) },
        business: resources.metrics.business,
        wallClock: () => Date.now() * 1000,
      };
      const sequencer = new ConsumerRunner<unknown>(deps, {
        name: 'feed-sequencer',
        group: 'feed-sequencer',
        topics: [TOPICS.feedRequests],
        partitionsConcurrently: 1,
        // well inside the contract's 2 s feed lag
        ...SEQUENCER_FETCH,
        idleWaitMs: config.kafka.consumerMaxWaitMs,
        handleBatch: async (messages, { logger: log }) => {
          const requests = messages.map((m) => feedRequestOf(m.value as FeedRequestMessage));
          const s = await sequenceFeedBatch(sequencerPorts, clock, requests);
          let oldest = Infinity;
          for (const m of messages) if (m.timestamp < oldest) oldest = m.timestamp;
          if (oldest !== Infinity) resources.metrics.business.feedSequencerLag(Math.max(0, (Date.now() - oldest) / 1000));
          log.debug({ event: 'feed-sequencer:sequenced', fresh: s.fresh.length, entries: s.entries.length }, 'feed entries sequenced');
        },
      });
      runners.push(projector, sequencer);
      await Promise.all([projector.start(), sequencer.start()]);
    },
    stop: async () => {
      await Promise.all(runners.splice(0).map((r) => r.stop()));
    },
  };
}
