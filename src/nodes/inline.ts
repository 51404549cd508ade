/**
 * In-house steps run inline: the next work items of a step that go to an in-house step
 * (x12_split, mapping, validation, feed, ack_generate, sandbox_sink) are run in the same
 * consumer pass, and their effects are written together with the effects of the step before
 * them, in the runtime's order (src/nodes/runtime.ts). Work items for steps with an external
 * side effect (webhook, sftp_upload, as2_send) and for x12_write still go through their stage
 * topics, and so does an item whose inline run threw: its own consumer then tries it with the
 * runner's retries, its dead-letter topic and its error result, so one bad set never holds its
 * neighbours.
 *
 * Each step still writes its own result under its own id, with its own clock from the step
 * ledger: an item run inline gets the same work id, clock and rows as it would through its
 * topic. Nothing is produced before everything is written, and the offset of the message that
 * started the pass is committed only after that, so a crash anywhere in the pass redelivers
 * that message and the whole pass is rewritten idempotently. The stage topics stay the unit of
 * scaling and of replay: a replay or a redelivery enters at its step's topic, and the steps
 * after it run inline from there.
 */
import type { NodeService } from '../domain/node-services.ts';
import type { ArtifactStore, ResultStore } from '../domain/processing-ports.ts';
import type { ArtifactRecord, ResultRecord } from '../domain/records.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import { contextOf } from './context.ts';
import type { InlineBatch, InlineHandler, InlineSteps, NodeDeps, ProcessingStores } from './ports.ts';
import { applyEffects } from './runtime.ts';
import { mapLimit } from '../domain/concurrency.ts';
import { effects, mergeEffects, type Effects, type Emission } from './step.ts';

/** The in-house steps: no external side effect, so they can run inline. */
export const INLINE_SERVICES = ['x12_split', 'mapping', 'validation', 'feed', 'ack_generate', 'sandbox_sink'] as const satisfies readonly NodeService[];

/** Work items of one inline round run at once. */
const INLINE_CONCURRENCY = 32;

/** The inline steps of one process, registered by the composition root. */
export class InlineRegistry implements InlineSteps {
  private readonly handlers = new Map<string, InlineHandler>();

  register(service: (typeof INLINE_SERVICES)[number], handler: InlineHandler): this {
    this.handlers.set(service, handler);
    return this;
  }

  handler(service: string): InlineHandler | undefined {
    return this.handlers.get(service);
  }
}

type StageEmission = Emission & { readonly value: StageMessage };

/** Removes the work items of `e` that run inline and returns them. */
function takeInline(inline: InlineSteps, e: Effects): StageEmission[] {
  const taken: StageEmission[] = [];
  const kept: Emission[] = [];
  for (const em of e.emit) {
    if (em.topic.startsWith('stage.') && inline.handler((em.value as StageMessage).service)) taken.push(em as StageEmission);
    else kept.push(em);
  }
  if (taken.length > 0) e.emit.splice(0, e.emit.length, ...kept);
  return taken;
}

/**
 * What the steps of one pass wrote but the pass has not stored yet: an inline step reads the
 * artifacts and results of the steps before it from here, before the store (they are written
 * with its own effects, bytes first).
 */
class Unwritten {
  private readonly artifacts = new Map<string, ArtifactRecord>();
  private readonly blobs = new Map<string, Uint8Array>();
  private readonly results = new Map<string, ResultRecord>();

  add(e: Effects): void {
    for (const a of e.artifacts) {
      this.artifacts.set(`${a.record.organizationId}/${a.record.id}`, a.record);
      if (a.bytes) this.blobs.set(`${a.record.organizationId}/${a.record.blobId}`, a.bytes);
    }
    for (const r of e.results) this.results.set(`${r.organizationId}/${r.id}`, r);
  }

  /** `stores` with this pass's unwritten artifacts and results readable first. */
  over(stores: ProcessingStores): ProcessingStores {
    const { artifacts, results } = stores;
    const bytesOf = (record: ArtifactRecord): Uint8Array | undefined => this.blobs.get(`${record.organizationId}/${record.blobId}`);
    const overArtifacts: ArtifactStore = {
      put: (record, bytes) => artifacts.put(record, bytes),
      putStream: (record, chunks) => artifacts.putStream(record, chunks),
      alias: (record, source) => artifacts.alias(record, source),
      putAll: (items) => artifacts.putAll(items),
      aliasAll: (items) => artifacts.aliasAll(items),
      get: async (org, id) => this.artifacts.get(`${org}/${id}`) ?? artifacts.get(org, id),
      chunks: (record) => {
        const bytes = bytesOf(record);
        if (!bytes) return artifacts.chunks(record);
        return (async function* () {
          yield await Promise.resolve(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        })();
      },
      read: async (record) => {
        const bytes = bytesOf(record);
        return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : artifacts.read(record);
      },
    };
    const overResults: ResultStore = {
      put: (rs) => results.put(rs),
      get: async (org, id) => this.results.get(`${org}/${id}`) ?? results.get(org, id),
      byTrace: (org, trace) => results.byTrace(org, trace),
      byTransaction: (org, trace, tx) => results.byTransaction(org, trace, tx),
    };
    return { ...stores, artifacts: overArtifacts, results: overResults };
  }
}

/** The latest result time in `e`, or `since`. */
function latest(e: Effects, since: number): number {
  let t = since;
  for (const r of e.results) if (r.createdAt > t) t = r.createdAt;
  return t;
}

/**
 * Runs the work items of `e` that go to in-house steps, then theirs, and so on, merging their
 * effects into `e` (returned). An item whose run threw stays in `e.emit`, for its stage topic.
 */
export async function runInline(deps: NodeDeps, e: Effects, batch: InlineBatch): Promise<Effects> {
  const inline = deps.inline;
  if (!inline) return e;
  let round = takeInline(inline, e);
  if (round.length === 0) return e;
  const unwritten = new Unwritten();
  unwritten.add(e);
  const passDeps: NodeDeps = { ...deps, stores: unwritten.over(deps.stores) };
  // clocks of the steps run in a pass whose items were all new: nothing to read, recorded
  // together before the pass's effects are written
  const recorded: { item: StageMessage; at: number }[] = [];
  // each round's clock is after every result the pass has so far: steps run within one
  // millisecond still list in the order they ran
  let floor = latest(e, 0);
  while (round.length > 0) {
    const items = round;
    let clocks: Map<string, number>;
    const now = Math.max(deps.wallClock(), floor + 1);
    floor = now;
    if (batch.fresh) {
      clocks = new Map(items.map((em) => [em.value.id, now]));
      for (const em of items) recorded.push({ item: em.value, at: now });
      // a split writes the parts of a large file as it reads it: its clock is recorded first
      if (items.some((em) => em.value.service === 'x12_split')) await deps.ledger.record(recorded.splice(0));
    } else {
      clocks = await deps.ledger.clocks(
        items.map((em) => em.value),
        now,
      );
    }
    const outs = await mapLimit(items, INLINE_CONCURRENCY, async (em) => {
      const m = em.value;
      try {
        const ctx = await contextOf(passDeps, m, clocks.get(m.id) ?? deps.wallClock());
        const run = (): Promise<Effects> => inline.handler(m.service)!(ctx, passDeps, batch);
        return await (deps.tracer ? deps.tracer.inline(m.service, m, run) : run());
      } catch (err) {
        deps.logger.warn({ event: 'inline:failed', service: m.service, traceGuid: m.traceGuid, workId: m.id, err }, 'an inline step failed; its work item goes through its stage topic');
        return null;
      }
    });
    const more = effects();
    const failed: StageEmission[] = [];
    outs.forEach((o, i) => {
      if (o) mergeEffects(more, o);
      else failed.push(items[i]!);
    });
    round = takeInline(inline, more);
    floor = latest(more, floor);
    unwritten.add(more);
    mergeEffects(e, more);
    e.emit.push(...failed);
  }
  await deps.ledger.record(recorded);
  return e;
}

/** Runs the inline steps that follow `e`, then writes everything in the runtime's order. */
export async function writeEffects(deps: NodeDeps, e: Effects, batch: InlineBatch): Promise<void> {
  await applyEffects(deps.stores, deps.emitter, await runInline(deps, e, batch), deps.wallClock());
}
