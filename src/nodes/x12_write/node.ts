/**
 * x12_write, the adapter. For a batch of work items: loads each item's setting, envelopes,
 * implementation and validated documents and prepares its interchange (the step); then takes
 * the control numbers of every prepared interchange of a partner at once (one compare-and-set
 * per sequence and batch: many documents for one partner do not contend number by number, and
 * the numbers are unique across replicas); writes each interchange, notes its sets for the
 * reconciliation of the partner's 997 (before the effects, so a 997 never arrives for a set
 * that cannot be found), and writes the effects.
 */
import type { NodeModule, WorkItem, BatchContext } from '../node.ts';
import { contextOf } from '../node.ts';
import type { NodeDeps } from '../ports.ts';
import { applyEffects } from '../runtime.ts';
import { mapLimit } from '../../domain/concurrency.ts';
import { failure } from '../outcomes.ts';
import { effects, mergeEffects, type StepContext } from '../step.ts';
import { unwrittenOf } from '../outbound-load.ts';
import { groupScope, interchangeScope } from '../x12-rules.ts';
import { numberOwners, prepareWrite, setScope, writeOutbound, type WriteInput, type WritePlan } from './step.ts';

const CONCURRENCY = 16;

async function inputOf(deps: NodeDeps, ctx: StepContext): Promise<WriteInput> {
  const m = ctx.message;
  const org = m.organizationId;
  const unwritten = await unwrittenOf(deps, ctx);
  const rec = unwritten.setting ? await deps.config.implementation(org, unwritten.setting.implementationId) : null;
  const implementation = rec ? { name: rec.name, model: await deps.config.implementationModel(org, rec.id) } : null;
  const pointer = m.artifacts.find((a) => a.id === m.params['outputArtifactId']) ?? m.artifacts[0];
  const stored = pointer ? await deps.stores.artifacts.get(org, pointer.id) : null;
  let documents: WriteInput['documents'];
  if (!stored) documents = { ok: false, message: `(${pointer?.filename ?? pointer?.id ?? 'none'}) is no longer stored` };
  else {
    try {
      const value = JSON.parse((await deps.stores.artifacts.read(stored)).toString('utf8')) as unknown;
      documents = { ok: true, value: Array.isArray(value) ? value : [value] };
    } catch (err) {
      documents = { ok: false, message: `is not JSON (${err instanceof Error ? err.message : String(err)})` };
    }
  }
  const flag = ctx.node?.config['trackAcknowledgments'];
  const tracked = typeof flag === 'boolean' ? flag : (ctx.partner?.trackAcknowledgments ?? false);
  return { unwritten, implementation, documents, tracked };
}

export function x12WriteNode(deps: NodeDeps): NodeModule {
  return {
    service: 'x12_write',
    async handle(items: readonly WorkItem[], batch: BatchContext) {
      const clocks = await deps.ledger.clocks(
        items.map((i) => i.message),
        deps.wallClock(),
      );
      const all = effects();
      const prepared = await mapLimit(items, CONCURRENCY, async (item) => {
        const ctx = await contextOf(deps, item.message, clocks.get(item.message.id) ?? deps.wallClock());
        return { ctx, prepared: prepareWrite(ctx, await inputOf(deps, ctx)) };
      });
      const plans: { ctx: StepContext; plan: WritePlan }[] = [];
      for (const p of prepared) {
        if (p.prepared.ok) plans.push({ ctx: p.ctx, plan: p.prepared.plan });
        else mergeEffects(all, p.prepared.effects);
      }
      // numbers per partner, in batch order
      const byPartner = new Map<string, { org: string; partnerId: string; plans: { ctx: StepContext; plan: WritePlan }[] }>();
      for (const p of plans) {
        const partnerId = p.ctx.partner!.id;
        const k = `${p.ctx.message.organizationId}|${partnerId}`;
        let g = byPartner.get(k);
        if (!g) byPartner.set(k, (g = { org: p.ctx.message.organizationId, partnerId, plans: [] }));
        g.plans.push(p);
      }
      for (const g of byPartner.values()) {
        const owners = g.plans.map((p) => numberOwners(p.ctx.message.traceGuid, p.plan.sets.length));
        const envelopeOwners = owners.map((o) => o.envelope);
        const [isa, gs, st] = await Promise.all([
          deps.stores.controlNumbers.takeMany(g.org, interchangeScope(g.partnerId), envelopeOwners),
          deps.stores.controlNumbers.takeMany(g.org, groupScope(g.partnerId), envelopeOwners),
          deps.stores.controlNumbers.takeMany(g.org, setScope(g.partnerId), owners.flatMap((o) => o.sets)),
        ]);
        const written = g.plans.map((p, i) => {
          const o = owners[i]!;
          return writeOutbound(p.ctx, p.plan, { interchange: isa.get(o.envelope)!, group: gs.get(o.envelope)!, sets: o.sets.map((s) => st.get(s)!) });
        });
        for (const w of written) mergeEffects(all, w);
      }
      await applyEffects(deps.stores, deps.emitter, all, deps.wallClock());
      await batch.heartbeat();
    },
    async giveUp(items, err, attempts) {
      const clocks = await deps.ledger.clocks(
        items.map((i) => i.message),
        deps.wallClock(),
      );
      const all = effects();
      for (const item of items) {
        const ctx = await contextOf(deps, item.message, clocks.get(item.message.id) ?? deps.wallClock());
        mergeEffects(
          all,
          failure(ctx, {
            transactionId: null,
            message: `Writing the EDI failed after ${attempts} attempt${attempts === 1 ? '' : 's'} and was set aside for operators: ${err instanceof Error ? err.message : String(err)}`,
            direction: 'outbound',
            at: ctx.now,
          }),
        );
      }
      await applyEffects(deps.stores, deps.emitter, all, deps.wallClock());
    },
  };
}
