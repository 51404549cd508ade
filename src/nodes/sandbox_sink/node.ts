/**
 * sandbox_sink, the adapter: records the receipt of what the sink received for the
 * organization's sandbox keys (SandboxReceiptStore; before the results are written, so a result
 * a sandbox key can see is always readable by it), notes acknowledgment deadlines of tracked outbound documents, and writes the
 * effects.
 */
import { perItemNode, type NodeModule } from '../node.ts';
import type { NodeDeps } from '../ports.ts';
import { trackedOf } from '../outbound.ts';
import { watchAcknowledgments } from '../deadlines.ts';
import { sinkDelivery } from './step.ts';

export function sandboxSinkNode(deps: NodeDeps): NodeModule {
  return perItemNode('sandbox_sink', deps, async (ctx, deps) => {
    const m = ctx.message;
    const connectionId = ctx.node?.config['connectionId'];
    const connection = typeof connectionId === 'string' ? await deps.config.connection(m.organizationId, connectionId) : null;
    const out = sinkDelivery(ctx, connection?.name ?? null);
    const delivered = out.effects.results.some((r) => r.status === 'success');
    if (delivered) {
      await deps.stores.sandboxReceipts?.record({ organizationId: m.organizationId, ...out.receipt, receivedAt: ctx.now });
      if (m.direction === 'outbound') watchAcknowledgments(out.effects, ctx, trackedOf(ctx));
    }
    return out.effects;
  });
}
