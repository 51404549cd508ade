/**
 * The contract between a node service and its role (src/roles/node-role.ts), and the common
 * adapter shape most node services use: for each work item of a batch, load what the step needs
 * (flow, node, partner, clock), run the service's handler, collect the effects, and write them
 * with the runtime. Items of one batch run concurrently (a bound per service); the batch
 * succeeds or is retried as a whole, which is safe because every effect is idempotent.
 */
import type { Logger } from '../logger.ts';
import type { NodeService } from '../domain/node-services.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import type { Micros } from '../domain/records.ts';
import type { InlineHandler, NodeDeps } from './ports.ts';
import { applyEffects, withTransactionCreatedAt } from './runtime.ts';
import { mapLimit } from '../domain/concurrency.ts';
import { effects, effectsSize, mergeEffects, type Effects, type StepContext } from './step.ts';
import { failure } from './outcomes.ts';
import { contextOf } from './context.ts';
import { writeEffects } from './inline.ts';

export { contextOf } from './context.ts';

export interface WorkItem {
  readonly message: StageMessage;
}

export interface BatchContext {
  readonly logger: Logger;
  /** Keeps the consumer's group membership during long work. */
  readonly heartbeat: () => Promise<void>;
}

/**
 * A batch handed back only in part: the first `processed` items are done (their offsets may be
 * passed), the rest come back with a later fetch, not before `pauseUntil` (ms; 0 or a past time:
 * at once).
 */
export interface HandleOutcome {
  readonly processed: number;
  readonly pauseUntil: number;
}

/** A node service as its role runs it. */
export interface NodeModule {
  readonly service: NodeService;
  /**
   * Handles one batch of work items (of one partition); resolves once every effect is written
   * and produced, or with a `HandleOutcome` when only a leading part of the batch is done.
   */
  handle(items: readonly WorkItem[], batch: BatchContext): Promise<void | HandleOutcome>;
  /** Records on each item's trace that it failed for good (the runner then dead-letters it). */
  giveUp(items: readonly WorkItem[], err: unknown, attempts: number): Promise<void>;
  close?(): Promise<void>;
  /** One work item run inline by the step before it (in-house steps only; src/nodes/inline.ts). */
  readonly inline?: InlineHandler;
}

/**
 * Some items of a batch failed while the others' effects were written: the role tries the
 * failed ones again, and gives up on those alone (one bad document never fails its neighbours).
 */
export class ItemsFailed extends Error {
  constructor(
    /** Ids of the failed work items. */
    readonly itemIds: readonly string[],
    /** The first failure. */
    readonly failure: unknown,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
    this.name = 'ItemsFailed';
  }
}

export interface PerItemOptions {
  /** Items handled at once. @default 32 */
  readonly concurrency?: number;
  /** Write collected effects once they hold this many rows and messages. @default 5000 */
  readonly flushAt?: number;
}

/** The handler of one work item: returns its effects (a failure is an outcome, not an exception). */
export type ItemHandler = (ctx: StepContext, deps: NodeDeps, batch: BatchContext) => Promise<Effects>;

/** A node module that handles each work item on its own with `handleOne`. */
export function perItemNode(service: NodeService, deps: NodeDeps, handleOne: ItemHandler, opts: PerItemOptions = {}): NodeModule {
  const concurrency = opts.concurrency ?? 32;
  const flushAt = opts.flushAt ?? 5000;
  return {
    service,
    inline: (ctx, d, batch) => handleOne(ctx, d, { ...batch, logger: d.logger }),
    async handle(items, batch) {
      const { clocks, pass } = await startPass(deps, items, batch);
      let pending = effects();
      const flush = async (): Promise<void> => {
        const e = pending;
        pending = effects();
        await writeEffects(deps, e, pass);
      };
      // Items in windows of `concurrency`, flushing between windows when enough piled up. An
      // item that throws is set apart; the others go on.
      const failed: { id: string; err: unknown }[] = [];
      for (let i = 0; i < items.length; i += concurrency) {
        const window = items.slice(i, i + concurrency);
        const outs = await mapLimit(window, concurrency, async (item) => {
          try {
            const ctx = await contextOf(deps, item.message, clocks.get(item.message.id) ?? deps.wallClock());
            return withTransactionCreatedAt(await handleOne(ctx, deps, batch), item.message);
          } catch (err) {
            failed.push({ id: item.message.id, err });
            return null;
          }
        });
        for (const o of outs) if (o) mergeEffects(pending, o);
        if (effectsSize(pending) >= flushAt) await flush();
      }
      await flush();
      if (failed.length === items.length && failed.length > 0) throw failed[0]!.err;
      if (failed.length > 0) throw new ItemsFailed(failed.map((f) => f.id), failed[0]!.err);
    },
    async giveUp(items, err, attempts) {
      const reason = err instanceof Error ? err.message : String(err);
      const clocks = await deps.ledger.clocks(
        items.map((i) => i.message),
        deps.wallClock(),
      );
      const all = effects();
      for (const item of items) {
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
      await applyEffects(deps.stores, deps.emitter, all, deps.wallClock());
    },
  };
}

/**
 * The clocks of a batch's items, and the pass they start: `fresh` when every item's clock was
 * recorded by this reading (it had none), since `now` is a time no earlier run of an item can
 * have recorded (a redelivery or a retry comes later).
 */
export async function startPass(deps: NodeDeps, items: readonly WorkItem[], batch: BatchContext): Promise<{ clocks: Map<string, Micros>; pass: BatchContext & { fresh: boolean } }> {
  const now = deps.wallClock();
  const clocks = await deps.ledger.clocks(
    items.map((i) => i.message),
    now,
  );
  return { clocks, pass: { ...batch, fresh: items.every((i) => clocks.get(i.message.id) === now) } };
}

/** A message reduced to one line of at most 300 characters. */
export function oneLine(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 300 ? `${t.slice(0, 297)}...` : t;
}
