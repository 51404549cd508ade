/**
 * The nodes' `SftpUploader` port over `SftpClient`: one upload attempt, its outcome in the one
 * transfer outcome type (an unreachable server may pass: `retryable`; a refused login, a missing
 * directory or a different file under the same name will not: `final`). The retry itself is the
 * node's, through the delay topics.
 */
import { isTdxError } from '../../errors.ts';
import type { SftpTarget, SftpUploadOptions, SftpUploader, TransferOutcome } from '../../nodes/ports.ts';
import type { SftpClient } from './sftp-client.ts';

export class ClientSftpUploader implements SftpUploader {
  constructor(private readonly client: SftpClient) {}

  async upload(target: SftpTarget, directory: string, filename: string, bytes: Buffer, options: SftpUploadOptions = {}): Promise<TransferOutcome> {
    try {
      await this.client.upload(target, directory, filename, bytes, options.replace ? { replace: options.replace } : {});
      return { kind: 'delivered' };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { kind: isTdxError(err) && err.retriable ? 'retryable' : 'final', reason };
    }
  }
}
