/**
 * A node module for work that waits on someone else's system (a webhook receiver that takes
 * 5 s, or 10 s to time out): each work item is handled on its own as soon as it arrives, and a
 * slow one never holds back the items behind it on its partition.
 *
 * Why perItemNode is not enough: a consumer takes a partition's messages in batches and fetches
 * the next batch only once the whole batch (and, with kafkajs, every batch of the same fetch)
 * is handled. A 5 s call in a batch would hold every item that arrives meanwhile for 5 s.
 *
 * How: `handle` starts the items it has not seen (at most `concurrency` calls at once in the
 * process), waits for them at most `budgetMs`, and returns. Each item writes its own effects
 * the moment its call ends. The offsets the batch hands back cover the items before the first
 * one still running; the rest of the batch comes back with the next fetch, where items already
 * done or still running are recognised by id (kept in memory until their offset is passed) and
 * not started again. So the partition moves on while a slow call runs, and a crash re-delivers
 * exactly the items whose offsets were not passed (at least once; every effect is idempotent).
 *
 * A failure to load or to write (a store outage) is kept with its item; `handle` then throws it,
 * the consumer runner retries the batch as usual, and the item restarts where it failed: a write
 * that failed is written again without calling the receiver a second time.
 */
import type { NodeService } from '../domain/node-services.ts';
import type { Micros } from '../domain/records.ts';
import { applyEffects, withTransactionCreatedAt } from './runtime.ts';
import { contextOf, oneLine, type BatchContext, type HandleOutcome, type ItemHandler, type NodeModule, type WorkItem } from './node.ts';
import type { NodeDeps } from './ports.ts';
import { failure } from './outcomes.ts';
import { effects, mergeEffects, type Effects } from './step.ts';

export interface InFlightOptions {
  /** Calls running at once in this process (all partitions together). @default 64 */
  readonly concurrency?: number;
  /** Longest time `handle` waits for the items of a batch before handing the partition back. @default 200 */
  readonly budgetMs?: number;
  /** Most items remembered (running or done but not yet passed by the offsets); beyond it new items wait for a later fetch. @default 10000 */
  readonly maxTracked?: number;
}

type Phase = 'waiting' | 'running' | 'writing' | 'done' | 'failed';

interface Entry {
  phase: Phase;
  /** Effects computed but not yet written (a write to repeat after a failure). */
  pending: Effects | null;
  error: unknown;
  settled: Promise<void>;
  doneAt: number;
}

/** Counts the slots of a bounded number of concurrent calls. */
class Slots {
  private free: number;
  private readonly queue: (() => void)[] = [];
  constructor(n: number) {
    this.free = n;
  }
  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }
  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.free++;
  }
}

/** Done entries older than this are dropped even if their offsets never came by (the partition moved to another consumer). */
const FORGET_AFTER_MS = 15 * 60_000;

export function inFlightNode(service: NodeService, deps: NodeDeps, handleOne: ItemHandler, opts: InFlightOptions = {}): NodeModule {
  const slots = new Slots(opts.concurrency ?? 64);
  const budgetMs = opts.budgetMs ?? 200;
  const maxTracked = opts.maxTracked ?? 10_000;
  const entries = new Map<string, Entry>();
  let lastSweep = Date.now();

  const write = async (entry: Entry): Promise<void> => {
    entry.phase = 'writing';
    await applyEffects(deps.stores, deps.emitter, entry.pending!, deps.wallClock());
    entry.pending = null;
    entry.phase = 'done';
    entry.doneAt = Date.now();
  };

  const run = (item: WorkItem, entry: Entry, clock: Micros, batch: BatchContext): Promise<void> => {
    return (async () => {
      if (entry.pending === null) {
        await slots.acquire();
        entry.phase = 'running';
        try {
          const ctx = await contextOf(deps, item.message, clock);
          entry.pending = withTransactionCreatedAt(await handleOne(ctx, deps, batch), item.message);
        } finally {
          slots.release();
        }
      }
      await write(entry);
    })().catch((err: unknown) => {
      entry.phase = 'failed';
      entry.error = err;
    });
  };

  const sweep = (): void => {
    const now = Date.now();
    if (now - lastSweep < 60_000) return;
    lastSweep = now;
    for (const [id, e] of entries) if (e.phase === 'done' && now - e.doneAt > FORGET_AFTER_MS) entries.delete(id);
  };

  return {
    service,
    async handle(items, batch): Promise<void | HandleOutcome> {
      sweep();
      const fresh = items.filter((i) => !entries.has(i.message.id) || entries.get(i.message.id)!.phase === 'failed');
      const clocks = fresh.length > 0 ? await deps.ledger.clocks(
        fresh.map((i) => i.message), deps.wallClock()) : new Map<string, Micros>();
      for (const item of fresh) {
        const id = item.message.id;
        const known = entries.get(id);
        if (!known && entries.size >= maxTracked) continue; // back-pressure: taken up on a later fetch
        const entry: Entry = known ?? { phase: 'waiting', pending: null, error: undefined, settled: Promise.resolve(), doneAt: 0 };
        entry.error = undefined;
        entry.phase = entry.pending ? 'writing' : 'waiting';
        entry.settled = run(item, entry, clocks.get(id) ?? deps.wallClock(), batch);
        entries.set(id, entry);
      }
      const tracked = items.map((i) => entries.get(i.message.id));
      const all = Promise.all(tracked.map((e) => e?.settled ?? Promise.resolve()));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, budgetMs)))]);
      clearTimeout(timer);

      const failed = tracked.find((e) => e?.phase === 'failed');
      if (failed) throw failed.error;
      const firstOpen = tracked.findIndex((e) => e === undefined || e.phase !== 'done');
      const passed = firstOpen < 0 ? items.length : firstOpen;
      for (const i of items.slice(0, passed)) entries.delete(i.message.id);
      if (firstOpen < 0) return undefined;
      // hand the partition back at once: the items from `passed` on come back with the next fetch
      return { processed: passed, pauseUntil: 0 };
    },
    async giveUp(items, err, attempts) {
      const reason = err instanceof Error ? err.message : String(err);
      const open = items.filter((i) => entries.get(i.message.id)?.phase !== 'done');
      const clocks = await deps.ledger.clocks(
        open.map((i) => i.message),
        deps.wallClock(),
      );
      const all = effects();
      for (const item of open) {
        const m = item.message;
        const ctx = await contextOf(deps, m, clocks.get(m.id) ?? deps.wallClock());
        mergeEffects(
          all,
          failure(ctx, {
            transactionId: m.transactionId,
            message: `Processing failed after ${attempts} attempt${attempts === 1 ? '' : 's'} and was set aside for operators: ${oneLine(reason)}`,
            direction: m.direction,
            at: ctx.now,
          }),
        );
      }
      for (const i of items) entries.delete(i.message.id);
      await applyEffects(deps.stores, deps.emitter, all, deps.wallClock());
    },
    async close() {
      // calls still running finish (their effects are written); their offsets were not passed,
      // so they come back to whichever consumer takes the partition next
      await Promise.all([...entries.values()].map((e) => e.settled));
      entries.clear();
    },
  };
}
