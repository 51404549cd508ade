/**
 * partner_endpoint, the adapter: inbound documents submitted through
 * `POST /platform/partners/:key/edi` (stored by the API before it answered) enter their flow
 * here. Outbound submissions (`POST /platform/partners/:key/documents`) enter outbound flows
 * through the same service (src/nodes/partner_endpoint/outbound.ts).
 */
import type { NodeDeps } from '../ports.ts';
import { perItemNode, type NodeModule } from '../node.ts';
import { receiveInbound } from './step.ts';
import { receiveOutbound } from './outbound.ts';

export function partnerEndpointNode(deps: NodeDeps): NodeModule {
  return perItemNode('partner_endpoint', deps, async (ctx) => {
    const m = ctx.message;
    const input = m.artifacts[0];
    const stored = input ? (await deps.stores.artifacts.get(m.organizationId, input.id)) !== null : false;
    return m.direction === 'outbound' ? receiveOutbound(ctx, stored) : receiveInbound(ctx, stored);
  });
}
