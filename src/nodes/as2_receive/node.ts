/**
 * as2_receive, the adapter of the input node of flows fed by an AS2 connection: the AS2
 * endpoint (`POST /as2/:connectionId`) stores each received payload and produces its work item
 * (with `as2.*` params, copied into the input result's `detail.as2`); an interchange submitted
 * through the partner endpoint enters the same node. Work items with `purpose: as2_mdn` carry
 * an asynchronous receipt the endpoint hands over for posting (step.ts).
 */
import type { NodeDeps } from '../ports.ts';
import { perItemNode, type NodeModule } from '../node.ts';
import { receiveInbound } from '../input-step.ts';
import { effects } from '../step.ts';
import { AS2_MDN_PURPOSE, receiptPosted } from './step.ts';

export function as2ReceiveNode(deps: NodeDeps): NodeModule {
  return perItemNode('as2_receive', deps, async (ctx) => {
    const m = ctx.message;
    if (m.params['purpose'] === AS2_MDN_PURPOSE) {
      const url = m.params['mdn.url'] ?? '';
      const attempt = Number(m.params['deliveryAttempt'] ?? '1') || 1;
      if (!deps.as2) throw new Error('AS2 transmissions are not available in this process');
      if (!url) return effects();
      const headers = JSON.parse(m.params['mdn.headers'] ?? '{}') as Record<string, string>;
      const body = Buffer.from(m.params['mdn.body'] ?? '', 'base64');
      const outcome = await deps.as2.postReceipt({ url, headers, body });
      return receiptPosted(ctx, { url, messageId: m.params['as2.messageId'] ?? '', attempt, outcome, ...(deps.retry ? { policy: deps.retry } : {}) });
    }
    const input = m.artifacts[0];
    const stored = input ? (await deps.stores.artifacts.get(m.organizationId, input.id)) !== null : false;
    return receiveInbound(ctx, stored);
  });
}
