/**
 * as2_send, the adapter: reads the stored document and the partner's AS2 connection (with its
 * key and certificates), sends it through the AS2 transport with this transmission's
 * Message-ID, and hands the report to the step. In async MDN mode the transport records the
 * receipt awaited (with this work item) before posting; the receipt or its deadline completes
 * the delivery later (receipts.ts). Sends are kept in flight (../transfer.ts): a partner that
 * hangs holds back no other trace on the partition, and an attempt ends at the policy's timeout.
 */
import type { NodeModule } from '../node.ts';
import { deliveryAttemptOf } from '../retry.ts';
import { policyFor, transferNode, withinAttempt } from '../transfer.ts';
import { deliveryFailure, trackedOf } from '../outbound.ts';
import { watchAcknowledgments } from '../deadlines.ts';
import type { NodeDeps } from '../ports.ts';
import { uploadFilename } from '../outbound-files.ts';
import { as2Sent, messageIdOf, timedOutReport } from './step.ts';

export function as2SendNode(deps: NodeDeps): NodeModule {
  return transferNode(
    'as2_send',
    deps,
    async (ctx) => {
      const m = ctx.message;
      const org = m.organizationId;
      const document = m.artifacts[0];
      const connectionId = ctx.node?.config['connectionId'];
      const connection = typeof connectionId === 'string' ? await deps.config.connection(org, connectionId) : null;
      if (!document) return deliveryFailure(ctx, 'No document reached the AS2 send step.', {}, []);
      if (!connection || connection.kind !== 'as2' || !connection.as2) {
        return deliveryFailure(ctx, `The AS2 connection of this flow (${typeof connectionId === 'string' ? connectionId : 'none'}) no longer exists; nothing was sent.`, {}, [document]);
      }
      const record = await deps.stores.artifacts.get(org, document.id);
      if (!record) return deliveryFailure(ctx, `The document ${document.filename ?? document.id} is no longer stored; nothing was sent.`, {}, [document]);
      if (!deps.as2) return deliveryFailure(ctx, 'AS2 transmissions are not available in this process.', {}, [document]);
      const filename = uploadFilename(ctx, document);
      const attempt = deliveryAttemptOf(m);
      const policy = policyFor(deps, connection.retry);
      const messageId = messageIdOf(ctx, connection.as2.localId);
      const [secrets, payload] = await Promise.all([deps.config.secrets(org, 'connection', connection.id), deps.stores.artifacts.read(record)]);
      const sending = deps.as2.send({ organizationId: org, connection, secrets, payload, filename, messageId, work: m });
      const report = await withinAttempt(sending, policy.attemptTimeoutMs, (ms) => timedOutReport(connection, messageId, ms));
      const tracked = trackedOf(ctx);
      const e = as2Sent(ctx, { document, filename, attempt, messageId, report, tracked, policy, endedAt: deps.wallClock() });
      return report.status === 'processed' ? watchAcknowledgments(e, ctx, tracked) : e;
    },
    { concurrency: 16 },
  );
}
