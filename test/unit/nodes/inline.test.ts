/* eslint-disable @typescript-eslint/require-await -- fakes of async ports answer synchronously */
/**
 * In-house steps run inline (src/nodes/inline.ts): the split's sets are mapped, validated and
 * placed on the feed in the split's own pass, with the same results (ids, services, statuses)
 * as through the stage topics; only work for steps with an external side effect is produced;
 * an item whose inline run throws goes through its stage topic instead, and its neighbours are
 * not held.
 */
import { describe, expect, it } from 'vitest';
import { x12SplitNode } from '../../../src/nodes/x12_split/node.ts';
import { mappingNode } from '../../../src/nodes/mapping/node.ts';
import { validationNode } from '../../../src/nodes/validation/node.ts';
import { feedNode } from '../../../src/nodes/feed/node.ts';
import { ackGenerateNode } from '../../../src/nodes/ack_generate/node.ts';
import { sandboxSinkNode } from '../../../src/nodes/sandbox_sink/node.ts';
import { INLINE_SERVICES, InlineRegistry } from '../../../src/nodes/inline.ts';
import { statusOf } from '../../../src/domain/records.ts';
import type { MappingEngine } from '../../../src/domain/mapping-engine.ts';
import type { NodeDeps } from '../../../src/nodes/ports.ts';
import type { NodeModule } from '../../../src/nodes/node.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import type { FeedRequestMessage } from '../../../src/wire/feed-request.v1.ts';
import type { TransactionChange } from '../../../src/wire/transaction-change.v1.ts';
import { po850 } from '../../integration/pipeline/support.ts';
import { doc, interchange } from '../support/acme.ts';
import { memoryDeps, type MemoryNodeDeps } from '../support/memory-stores.ts';
import { memoryOrg, workFor } from '../support/org.ts';


const org = memoryOrg(doc);

/** Echoes the order number; throws (an engine fault, not a mapping failure) for orders in `poison`. */
function engine(poison: ReadonlySet<string> = new Set()): MappingEngine {
  return {
    run: async (_expr, input) => {
      const order = (JSON.parse(input) as { heading: { beginning_segment_for_purchase_order_BEG: { purchase_order_number_03: string } } }).heading.beginning_segment_for_purchase_order_BEG.purchase_order_number_03;
      if (poison.has(order)) throw new Error(`engine fault on ${order}`);
      return { ok: true, outputJson: JSON.stringify({ order }), violations: [] };
    },
    validate: () => Promise.resolve([]),
    close: () => Promise.resolve(),
  };
}

const BUILDERS: Record<(typeof INLINE_SERVICES)[number], (deps: NodeDeps) => NodeModule> = {
  x12_split: x12SplitNode,
  mapping: mappingNode,
  validation: validationNode,
  feed: feedNode,
  ack_generate: ackGenerateNode,
  sandbox_sink: sandboxSinkNode,
};

/** Deps with every in-house step registered inline, as src/service.ts composes them. */
function inlineDeps(mappings: MappingEngine): MemoryNodeDeps {
  const inline = new InlineRegistry();
  const deps = memoryDeps(org, { mappings, inline });
  for (const s of INLINE_SERVICES) inline.register(s, BUILDERS[s](deps).inline!);
  return deps;
}

const batch = (deps: MemoryNodeDeps) => ({ logger: deps.logger, heartbeat: () => Promise.resolve() });

/** The split's work item for one stored input, the same for every run. */
async function splitWork(deps: MemoryNodeDeps, text: string): Promise<StageMessage> {
  const msg = workFor(org.flow('ACME', 'inbound'), 'x12_split', { id: 'work-split', traceGuid: 'trace-inline', partnerKey: 'ACME', inputResultId: 'input-result' });
  await deps.stores.artifacts.put(
    { organizationId: 'org-1', id: 'in-1', traceGuid: msg.traceGuid, resultId: 'input-result', nodeName: 'Input', usage: 'input', contentType: 'application/edi-x12', filename: 'po.edi', size: 0, sha256: '', blobId: 'in-1', createdAt: msg.createdAt },
    Buffer.from(text),
  );
  return { ...msg, artifacts: [{ id: 'in-1', usage: 'input', contentType: 'application/edi-x12', filename: 'po.edi' }] };
}

/** Runs the split, then every stage message produced, through its own node, until none is left. */
async function throughTopics(deps: MemoryNodeDeps, text: string): Promise<void> {
  const nodes: Record<string, NodeModule> = { mapping: mappingNode(deps), validation: validationNode(deps), feed: feedNode(deps), ack_generate: ackGenerateNode(deps) };
  let done = 0;
  await x12SplitNode(deps).handle([{ message: await splitWork(deps, text) }], batch(deps));
  for (;;) {
    const pending = deps.memory.emitter.sent.slice(done);
    done = deps.memory.emitter.sent.length;
    const work = pending.filter((m) => m.topic.startsWith('stage.')).map((m) => m.value as StageMessage).filter((w) => nodes[w.service]);
    if (work.length === 0) return;
    for (const w of work) await nodes[w.service]!.handle([{ message: w }], batch(deps));
  }
}

const file = interchange({ control: 7, groups: [{ sets: [po850('PO-1'), po850('PO-2'), po850('PO-3')] }] });

describe('in-house steps inline', () => {
  it('maps, validates, places on the feed and writes the 997 in the split pass, producing only the upload work', async () => {
    const deps = inlineDeps(engine());
    await x12SplitNode(deps).handle([{ message: await splitWork(deps, file) }], batch(deps));
    const stages = deps.memory.emitter.sent.filter((m) => m.topic.startsWith('stage.')).map((m) => m.topic);
    expect(stages).toEqual(['stage.sftp_upload']);
    const txs = deps.memory.transactions.all().filter((t) => t.direction === 'inbound');
    expect(txs).toHaveLength(3);
    for (const t of txs) expect(statusOf(t)).toBe('delivered');
    const services = deps.memory.results.all().map((r) => r.service);
    for (const s of ['x12_split', 'mapping', 'validation', 'feed', 'ack_generate']) expect(services).toContain(s);
    // the mapping read the translation the split had not stored yet
    const mapped = deps.memory.results.all().filter((r) => r.service === 'mapping');
    expect(mapped.map((r) => r.detail.mappingFailed ?? false)).toEqual([false, false, false]);
    // each feed request is its transaction's first delivery, and carries what the sequencer needs of it
    const requests = deps.memory.emitter.on<FeedRequestMessage>('events.feed');
    expect(requests).toHaveLength(3);
    for (const f of requests) {
      const t = txs.find((x) => x.id === f.transactionId)!;
      expect(f).toMatchObject({ status: 'success', transactionCreatedAt: t.createdAt, transactionSetIdentifier: '850' });
    }
    // one change event per transaction for the whole pass, not one per step
    const changes = deps.memory.emitter.on<TransactionChange>('events.transactions').filter((c) => txs.some((t) => t.id === c.id));
    expect(changes).toHaveLength(3);
  });

  it('writes the same results, under the same ids, as the run through the stage topics', async () => {
    const viaTopics = memoryDeps(org, { mappings: engine() });
    await throughTopics(viaTopics, file);
    const inline = inlineDeps(engine());
    await x12SplitNode(inline).handle([{ message: await splitWork(inline, file) }], batch(inline));
    const key = (d: MemoryNodeDeps) =>
      d.memory.results
        .all()
        .map((r) => `${r.id} ${r.service} ${r.status} ${r.transactionId ?? ''}`)
        .sort();
    expect(key(inline)).toEqual(key(viaTopics));
    expect(key(inline).length).toBeGreaterThanOrEqual(13);
    const txKey = (d: MemoryNodeDeps) =>
      d.memory.transactions
        .all()
        .map((t) => `${t.id} ${statusOf(t)} ${t.deliveryResultId ?? ''}`)
        .sort();
    expect(txKey(inline)).toEqual(txKey(viaTopics));
  });

  it('sends an item whose inline step threw through its stage topic, and finishes its neighbours', async () => {
    const deps = inlineDeps(engine(new Set(['PO-2'])));
    await x12SplitNode(deps).handle([{ message: await splitWork(deps, file) }], batch(deps));
    const mappingWork = deps.memory.emitter.on<StageMessage>('stage.mapping');
    expect(mappingWork).toHaveLength(1);
    const poisoned = deps.memory.transactions.all().find((t) => t.id === mappingWork[0]!.transactionId)!;
    expect(statusOf(poisoned)).toBe('processing');
    const others = deps.memory.transactions.all().filter((t) => t.direction === 'inbound' && t.id !== poisoned.id);
    expect(others.map(statusOf)).toEqual(['delivered', 'delivered']);
    // its own consumer then runs it (here with the fault gone) and the steps after it inline
    await mappingNode({ ...deps, mappings: engine(), inline: healedRegistry(deps) }).handle([{ message: mappingWork[0]! }], batch(deps));
    expect(statusOf(deps.memory.transactions.all().find((t) => t.id === poisoned.id)!)).toBe('delivered');
  });

  it('records the clocks of a first pass without reading them, and a redelivered pass rewrites the same rows at the same times', async () => {
    const deps = inlineDeps(engine());
    const ledger = deps.memory.ledger;
    const reads: number[] = [];
    const clocks = ledger.clocks.bind(ledger);
    ledger.clocks = (items, now) => {
      reads.push(items.length);
      return clocks(items, now);
    };
    const work = await splitWork(deps, file);
    await x12SplitNode(deps).handle([{ message: work }], batch(deps));
    expect(reads).toEqual([1]); // the split's own item; the steps after it are new
    const first = new Map(deps.memory.results.all().map((r) => [r.id, r.createdAt]));
    const firstTx = new Map(deps.memory.transactions.all().map((t) => [t.id, t.createdAt]));
    await x12SplitNode(deps).handle([{ message: work }], batch(deps));
    expect(reads.length).toBeGreaterThan(1); // redelivered: the clocks are read back
    expect(new Map(deps.memory.results.all().map((r) => [r.id, r.createdAt]))).toEqual(first);
    expect(new Map(deps.memory.transactions.all().map((t) => [t.id, t.createdAt]))).toEqual(firstTx);
  });

  it('runs nothing inline when the process has no inline steps (TDX_INLINE_STEPS=off)', async () => {
    const deps = memoryDeps(org, { mappings: engine() });
    await x12SplitNode(deps).handle([{ message: await splitWork(deps, file) }], batch(deps));
    expect(deps.memory.emitter.on('stage.mapping')).toHaveLength(3);
    expect(deps.memory.results.all().map((r) => r.service)).toEqual(['x12_split', 'x12_split', 'x12_split']);
  });
});

/** The registry of `deps`' stores with a healthy mapping engine. */
function healedRegistry(deps: MemoryNodeDeps): InlineRegistry {
  const inline = new InlineRegistry();
  const healed: NodeDeps = { ...deps, mappings: engine(), inline };
  for (const s of INLINE_SERVICES) inline.register(s, BUILDERS[s](healed).inline!);
  return inline;
}
