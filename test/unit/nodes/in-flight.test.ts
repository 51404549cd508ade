import { describe, expect, it } from 'vitest';
import { inFlightNode } from '../../../src/nodes/in-flight.ts';
import type { BatchContext, WorkItem } from '../../../src/nodes/node.ts';
import { result } from '../../../src/nodes/outcomes.ts';
import { effects, type Effects, type StepContext } from '../../../src/nodes/step.ts';
import type { StageMessage } from '../../../src/wire/stage.v1.ts';
import { deferred, recordingDeps } from './fakes.ts';

const batch: BatchContext = { logger: recordingDeps().deps.logger, heartbeat: () => Promise.resolve() };

function item(id: string): WorkItem {
  const message: StageMessage = {
    id,
    traceGuid: `trace-${id}`,
    organizationId: 'org',
    service: 'webhook',
    flowId: null,
    flowVersion: null,
    nodeId: 'n',
    direction: 'inbound',
    partnerKey: 'ACME',
    transactionId: null,
    inputResultId: null,
    artifacts: [],
    usageIndicator: null,
    resend: false,
    attempt: 1,
    createdAt: 0,
    params: {},
  };
  return { message };
}

/** A handler whose calls the test finishes one by one; counts calls per item. */
function controlled() {
  const gates = new Map<string, ReturnType<typeof deferred>>();
  const calls = new Map<string, number>();
  const gate = (id: string) => {
    if (!gates.has(id)) gates.set(id, deferred());
    return gates.get(id)!;
  };
  const handler = async (ctx: StepContext): Promise<Effects> => {
    const id = ctx.message.id;
    calls.set(id, (calls.get(id) ?? 0) + 1);
    await gate(id).promise;
    const e = effects();
    e.results.push(result(ctx, { id: `result-${id}`, transactionId: null, status: 'success', direction: 'outbound', createdAt: ctx.now }));
    return e;
  };
  return { handler, calls, finish: (id: string) => gate(id).resolve(undefined) };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('inFlightNode', () => {
  it('a slow item holds back neither the items behind it nor their effects; offsets pass only what is done', async () => {
    const r = recordingDeps();
    const h = controlled();
    const node = inFlightNode('webhook', r.deps, h.handler, { budgetMs: 30 });
    h.finish('B');
    // A is slow: the batch comes back unfinished, B's effects are written already
    expect(await node.handle([item('A'), item('B')], batch)).toEqual({ processed: 0, pauseUntil: 0 });
    expect(r.results.map((x) => x.id)).toEqual(['result-B']);
    // the next fetch brings A and B again with C: nothing is started twice
    h.finish('C');
    expect(await node.handle([item('A'), item('B'), item('C')], batch)).toEqual({ processed: 0, pauseUntil: 0 });
    expect(r.results.map((x) => x.id).sort()).toEqual(['result-B', 'result-C']);
    h.finish('A');
    await tick();
    expect(await node.handle([item('A'), item('B'), item('C')], batch)).toBeUndefined();
    expect([...h.calls.values()]).toEqual([1, 1, 1]);
    expect(r.results).toHaveLength(3);
  });

  it('passes the offsets of the leading items that are done', async () => {
    const r = recordingDeps();
    const h = controlled();
    const node = inFlightNode('webhook', r.deps, h.handler, { budgetMs: 30 });
    h.finish('A');
    h.finish('C');
    expect(await node.handle([item('A'), item('B'), item('C')], batch)).toEqual({ processed: 1, pauseUntil: 0 });
  });

  it('runs at most `concurrency` calls at once; the rest wait for a slot', async () => {
    const r = recordingDeps();
    const h = controlled();
    const node = inFlightNode('webhook', r.deps, h.handler, { budgetMs: 20, concurrency: 2 });
    await node.handle([item('A'), item('B'), item('C')], batch);
    expect([...h.calls.keys()]).toEqual(['A', 'B']);
    h.finish('A');
    await tick();
    expect([...h.calls.keys()]).toEqual(['A', 'B', 'C']);
  });

  it('a write that failed is written again on the retry, without calling again', async () => {
    const r = recordingDeps();
    const h = controlled();
    const node = inFlightNode('webhook', r.deps, h.handler, { budgetMs: 50 });
    h.finish('A');
    r.failResultWrites(1);
    await expect(node.handle([item('A')], batch)).rejects.toThrow('store unavailable');
    expect(await node.handle([item('A')], batch)).toBeUndefined();
    expect(h.calls.get('A')).toBe(1);
    expect(r.results.map((x) => x.id)).toEqual(['result-A']);
  });

  it('close waits for calls still running', async () => {
    const r = recordingDeps();
    const h = controlled();
    const node = inFlightNode('webhook', r.deps, h.handler, { budgetMs: 10 });
    await node.handle([item('A')], batch);
    let closed = false;
    const closing = node.close!().then(() => (closed = true));
    await tick();
    expect(closed).toBe(false);
    h.finish('A');
    await closing;
    expect(r.results.map((x) => x.id)).toEqual(['result-A']);
  });
});
