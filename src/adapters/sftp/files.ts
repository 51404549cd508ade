/**
 * Helpers around remote files: the content hash of a stream, and (from the domain, where the
 * poller uses them too) the listing entry, "is this file still being written" over two
 * listings, and the duplicate key of a fetched file.
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

export { settledFiles, temporaryUploadName, isTemporaryUploadName, sftpFileKey, type SftpEntry, type SettledFiles, type SftpFileIdentity } from '../../domain/sftp-polling.ts';

/** SHA-256 of bytes, lowercase hexadecimal. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A pass-through stream that hashes (SHA-256) and counts what flows through it. */
export class Sha256Tap extends Transform {
  private readonly hash = createHash('sha256');
  private count = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    this.count += chunk.length;
    done(null, chunk);
  }

  /** Bytes seen so far. */
  get bytes(): number {
    return this.count;
  }

  /** The hexadecimal digest; call once, after the stream ended. */
  digest(): string {
    return this.hash.digest('hex');
  }
}
