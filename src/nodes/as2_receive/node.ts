/**
 * as2_receive, the adapter of the input node of flows fed by an AS2 connection: the AS2
 * endpoint stores each received payload and produces its work item (with `as2.*` params); an
 * interchange submitted through the partner endpoint enters the same node.
 */
import type { NodeDeps } from '../ports.ts';
import { perItemNode, type NodeModule } from '../node.ts';
import { receiveInbound } from '../partner_endpoint/step.ts';

export function as2ReceiveNode(deps: NodeDeps): NodeModule {
  return perItemNode('as2_receive', deps, async (ctx) => {
    const m = ctx.message;
    const input = m.artifacts[0];
    const stored = input ? (await deps.stores.artifacts.get(m.organizationId, input.id)) !== null : false;
    return receiveInbound(ctx, stored);
  });
}
