/**
 * validation, the adapter. Inbound work carries what the split found; outbound work is
 * validated here against the partner's implementation (src/nodes/validation/outbound.ts).
 */
import { perItemNode, type NodeModule } from '../node.ts';
import type { NodeDeps } from '../ports.ts';
import { validatedInbound } from './step.ts';
import { validateOutbound } from './outbound.ts';

export function validationNode(deps: NodeDeps): NodeModule {
  return perItemNode('validation', deps, async (ctx) => (ctx.message.direction === 'inbound' ? validatedInbound(ctx) : validateOutbound(ctx, deps)));
}
