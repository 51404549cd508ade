/**
 * sftp_upload, the adapter: reads the stored document and the connection (with its secrets),
 * uploads through the SftpUploader (atomic: the partner never sees a half file) and hands the
 * outcome to the step. Uploads are kept in flight (../transfer.ts): a server that hangs holds
 * back no other trace on the partition, and an attempt ends at the policy's timeout. A resend
 * replaces a file of the same name still in the folder, so the partner sees it arrive again
 * (the connection's `resendReplace`, docs/transports.md).
 */
import type { NodeModule } from '../node.ts';
import { attemptTimedOut, policyFor, transferNode, withinAttempt } from '../transfer.ts';
import { deliveryAttemptOf } from '../retry.ts';
import { deliveryFailure, trackedOf } from '../outbound.ts';
import { watchAcknowledgments } from '../deadlines.ts';
import type { NodeDeps } from '../ports.ts';
import { uploadFilename, uploaded } from './step.ts';

export function sftpUploadNode(deps: NodeDeps): NodeModule {
  return transferNode(
    'sftp_upload',
    deps,
    async (ctx) => {
      const m = ctx.message;
      const org = m.organizationId;
      const document = m.artifacts[0];
      const connectionId = ctx.node?.config['connectionId'];
      const connection = typeof connectionId === 'string' ? await deps.config.connection(org, connectionId) : null;
      if (!document) return deliveryFailure(ctx, 'No document reached the upload step.', {}, []);
      if (!connection || connection.kind !== 'sftp' || !connection.host) {
        return deliveryFailure(ctx, `The SFTP connection of this flow (${typeof connectionId === 'string' ? connectionId : 'none'}) no longer exists; nothing was uploaded.`, {}, [document]);
      }
      const record = await deps.stores.artifacts.get(org, document.id);
      const filename = uploadFilename(ctx, document);
      const directory = connection.outboundDirectory ?? '.';
      const attempt = deliveryAttemptOf(m);
      const policy = policyFor(deps, connection.retry);
      if (!record) {
        return deliveryFailure(ctx, `The document ${document.filename ?? document.id} is no longer stored; nothing was uploaded.`, {}, [document]);
      }
      if (!deps.sftp) return deliveryFailure(ctx, 'SFTP uploads are not available in this process.', {}, [document]);
      const secrets = await deps.config.secrets(org, 'connection', connection.id);
      const bytes = await deps.stores.artifacts.read(record);
      const sftp = deps.sftp;
      const upload = sftp.upload(
        {
          host: connection.host,
          port: connection.port ?? 22,
          username: connection.username ?? '',
          ...(secrets['password'] ? { password: secrets['password'] } : {}),
          ...(secrets['privateKey'] ? { privateKey: secrets['privateKey'] } : {}),
          ...(secrets['passphrase'] ? { passphrase: secrets['passphrase'] } : {}),
        },
        directory,
        filename,
        bytes,
        m.resend ? { replace: connection.resendReplace ?? 'auto' } : {},
      );
      const outcome = await withinAttempt(upload, policy.attemptTimeoutMs, attemptTimedOut);
      const tracked = trackedOf(ctx);
      const e = uploaded(ctx, { document, filename, directory, host: connection.host, attempt, outcome, tracksAcknowledgment: tracked, policy, endedAt: deps.wallClock() });
      return outcome.kind === 'delivered' ? watchAcknowledgments(e, ctx, tracked) : e;
    },
    { concurrency: 16 },
  );
}
