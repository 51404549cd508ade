/**
 * Pure helpers around remote files: the listing entry, "is this file still being written"
 * over two listings, the content hash and the duplicate key of a fetched file.
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** One entry of a remote directory listing. */
export interface SftpEntry {
  /** File name, without directory. */
  readonly name: string;
  /** Directory and name joined (relative to the login folder unless the directory was absolute). */
  readonly path: string;
  readonly size: number;
  /** Modification time, Unix seconds (SFTP version 3 carries whole seconds). */
  readonly mtime: number;
  /** A regular file (not a directory, link, device...). */
  readonly isFile: boolean;
  readonly isDirectory: boolean;
}

/** What two listings of one directory say about its regular files. */
export interface SettledFiles {
  /** Files present in both listings with the same size and modification time: safe to fetch. */
  readonly ready: SftpEntry[];
  /** Files new in the later listing, or whose size or modification time changed: leave them for the next look. */
  readonly changing: SftpEntry[];
}

/**
 * Compares two listings of one directory taken some time apart (within one poll, or across two
 * polls). A file whose size or modification time moved between them is still being written; one
 * seen only in the later listing has not been seen still yet. Entries that are not regular
 * files are ignored, and so are files that vanished.
 */
export function settledFiles(earlier: readonly SftpEntry[], later: readonly SftpEntry[]): SettledFiles {
  const before = new Map(earlier.filter((e) => e.isFile).map((e) => [e.name, e]));
  const ready: SftpEntry[] = [];
  const changing: SftpEntry[] = [];
  for (const e of later) {
    if (!e.isFile) continue;
    const b = before.get(e.name);
    if (b && b.size === e.size && b.mtime === e.mtime) ready.push(e);
    else changing.push(e);
  }
  return { ready, changing };
}

const TEMP_SUFFIX = '.tdx-part';

/** Name of the temporary file an upload writes before renaming it into place. */
export function temporaryUploadName(filename: string, random: string): string {
  return `.${filename}.${random}${TEMP_SUFFIX}`;
}

/**
 * True for a name an upload of this service writes before its rename (`.<name>.<random>.tdx-part`).
 * A poller of a directory that this service also uploads into skips them.
 */
export function isTemporaryUploadName(name: string): boolean {
  return name.startsWith('.') && name.endsWith(TEMP_SUFFIX);
}

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

/** What identifies one fetched file: where it was, its size, time and content. */
export interface SftpFileIdentity {
  readonly path: string;
  readonly size: number;
  readonly mtime: number;
  readonly sha256: string;
}

/**
 * The duplicate key of a fetched file: SHA-256 of (connection id, path, size, mtime, content
 * hash). A file fetched again after a crash between storing and removing it has the same key,
 * so the second fetch is recognised; a new file with the same name and other content does not.
 * Stored: a change of derivation makes every file look new once.
 */
export function sftpFileKey(connectionId: string, f: SftpFileIdentity): string {
  return createHash('sha256').update(['sftp-file', connectionId, f.path, String(f.size), String(f.mtime), f.sha256].join('\u0000')).digest('hex');
}
