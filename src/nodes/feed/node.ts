/**
 * feed (polling delivery): the document is placed on the feed. The feed entry itself is
 * written by the feed sequencer from the success result this step records.
 */
import { deliveredDocument, deliveredInbound } from '../delivery.ts';
import { failure } from '../outcomes.ts';
import { perItemNode, type NodeModule } from '../node.ts';
import type { NodeDeps } from '../ports.ts';

export function feedNode(deps: NodeDeps): NodeModule {
  return perItemNode('feed', deps, (ctx) => {
    const doc = deliveredDocument(ctx);
    if (!doc) {
      return Promise.resolve(failure(ctx, { transactionId: ctx.message.transactionId, message: 'No document reached the feed delivery step.', direction: 'inbound', at: ctx.now }));
    }
    return Promise.resolve(deliveredInbound(ctx, doc, { direction: 'outbound', at: ctx.now }));
  });
}
