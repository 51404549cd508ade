/**
 * sandbox_sink, the adapter: the step's effects (its results, the receipt of what the sink
 * received for the organization's sandbox keys, acknowledgment deadlines of tracked outbound
 * documents) over the connection's name.
 */
import { perItemNode, type NodeModule } from '../node.ts';
import type { NodeDeps } from '../ports.ts';
import { sinkDelivery } from './step.ts';

export function sandboxSinkNode(deps: NodeDeps): NodeModule {
  return perItemNode('sandbox_sink', deps, async (ctx, deps) => {
    const connectionId = ctx.node?.config['connectionId'];
    const connection = typeof connectionId === 'string' ? await deps.config.connection(ctx.message.organizationId, connectionId) : null;
    return sinkDelivery(ctx, connection?.name ?? null);
  });
}
