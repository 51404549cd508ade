/**
 * sftp_fetch, the adapter of the input node of flows fed by an SFTP connection. The scheduler's
 * poller stores each fetched file and produces its work item (with `sftp.*` params for
 * `detail.sftp`); an interchange submitted through the partner endpoint enters the same node.
 * Recording the receipt is the input step every input service shares.
 */
import type { NodeDeps } from '../ports.ts';
import { perItemNode, type NodeModule } from '../node.ts';
import { receiveInbound } from '../input-step.ts';

export function sftpFetchNode(deps: NodeDeps): NodeModule {
  return perItemNode('sftp_fetch', deps, async (ctx) => {
    const m = ctx.message;
    const input = m.artifacts[0];
    const stored = input ? (await deps.stores.artifacts.get(m.organizationId, input.id)) !== null : false;
    return receiveInbound(ctx, stored);
  });
}
