/**
 * The nodes' `SftpUploader` port over `SftpClient`: one upload attempt, its failure classified
 * (an unreachable server may pass; a refused login, a missing directory or a different file
 * under the same name will not). The retry itself is the node's, through the delay topics.
 */
import { isTdxError } from '../../errors.ts';
import type { SftpTarget, SftpUploader, TransferOutcome } from '../../nodes/ports.ts';
import type { SftpClient } from './sftp-client.ts';

export class ClientSftpUploader implements SftpUploader {
  constructor(private readonly client: SftpClient) {}

  async upload(target: SftpTarget, directory: string, filename: string, bytes: Buffer): Promise<TransferOutcome> {
    try {
      await this.client.upload(target, directory, filename, bytes);
      return { ok: true };
    } catch (err) {
      if (isTdxError(err)) return { ok: false, retryable: err.retriable, message: err.message };
      return { ok: false, retryable: false, message: err instanceof Error ? err.message : String(err) };
    }
  }
}
