/**
 * SFTP polling of partners' inbound directories, the pure part: remote directory entries, the
 * "still being written" check over two looks, the duplicate key of a fetched file, when a
 * connection is due, and the ports of the stores the poller keeps its state in (leases, fetched
 * files, poll state). The poller itself is src/nodes/sftp_fetch/poller.ts; the Cassandra stores
 * are src/adapters/cassandra/sftp-poll-store.ts. docs/pipeline.md ("SFTP polling") describes it.
 */
import { createHash } from 'node:crypto';
import type { FlowRecord } from './configuration.ts';
import type { Micros } from './records.ts';

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
export function settledFiles(earlier: readonly (Pick<SftpEntry, 'name' | 'size' | 'mtime'> & { readonly isFile?: boolean })[], later: readonly SftpEntry[]): SettledFiles {
  const before = new Map(earlier.filter((e) => e.isFile !== false).map((e) => [e.name, e]));
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

/**
 * Files the poller takes from a listing: regular files whose name does not start with a dot.
 * Hidden names are what uploaders (this service included) write before renaming a finished
 * file into place, so they are never fetched half-written.
 */
export function pollable(entries: readonly SftpEntry[]): SftpEntry[] {
  return entries.filter((e) => e.isFile && !e.name.startsWith('.'));
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

// --- polling targets and their schedule --------------------------------------------------------

/** An inbound flow whose input node polls an SFTP connection. */
export interface PollTarget {
  readonly organizationId: string;
  readonly flow: FlowRecord;
  /** The flow's `sftp_fetch` input node. */
  readonly nodeId: string;
  readonly connectionId: string;
}

/**
 * The polling target of a flow: its current, active, inbound version whose input node is
 * `sftp_fetch` with a connection, polled every `frequency` minutes (0 pauses it); else null.
 */
export function pollTargetOf(organizationId: string, flow: FlowRecord): PollTarget | null {
  if (!flow.current || flow.status !== 'active' || flow.direction !== 'inbound' || flow.frequency <= 0) return null;
  const input = flow.nodes[0];
  if (!input || input.service !== 'sftp_fetch') return null;
  const connectionId = input.config['connectionId'];
  if (typeof connectionId !== 'string' || connectionId === '') return null;
  return { organizationId, flow, nodeId: input.id, connectionId };
}

/**
 * Whether a connection is due for a poll at `nowMs`: never polled, a poll asked for since the
 * last one (`tdx sftp poll`), or `frequency` units (minutes; `unitMs` is 60000 outside tests)
 * since the last poll began.
 */
export function pollDue(state: Pick<PollState, 'lastPollAt' | 'requestedAt'> | null, frequency: number, nowMs: number, unitMs = 60_000): boolean {
  if (frequency <= 0) return false;
  if (!state || state.lastPollAt === null) return true;
  if (state.requestedAt !== null && state.requestedAt > state.lastPollAt) return true;
  return nowMs * 1000 - state.lastPollAt >= frequency * unitMs * 1000;
}

// --- stores ------------------------------------------------------------------------------------

/** Where a fetched file is in its hand-over: stored (and claimed), its work item produced, removed (or archived) from the server. */
export type FetchedState = 'stored' | 'produced' | 'removed';

/** The record of one fetched file, keyed by connection and identity (the duplicate key). */
export interface FetchedFile {
  readonly organizationId: string;
  readonly connectionId: string;
  readonly path: string;
  readonly size: number;
  readonly mtime: number;
  /** `sftpFileKey` of the file. */
  readonly fileKey: string;
  readonly sha256: string;
  readonly traceGuid: string;
  readonly artifactId: string;
  readonly filename: string;
  readonly directory: string;
  readonly host: string;
  readonly fetchedAt: Micros;
  readonly flowId: string;
  readonly flowVersion: number;
  readonly nodeId: string;
  readonly partnerKey: string;
  readonly state: FetchedState;
}

/** A remote file as the last poll saw it (for the still-being-written check across polls). */
export interface SeenFile {
  readonly name: string;
  readonly size: number;
  readonly mtime: number;
}

/** What `tdx sftp status` shows of one connection. */
export interface PollState {
  readonly organizationId: string;
  readonly connectionId: string;
  readonly connectionName: string;
  readonly partnerKey: string;
  readonly host: string;
  readonly directory: string;
  readonly frequency: number;
  /** When the last poll began (micros), null before the first. */
  readonly lastPollAt: Micros | null;
  /** When the last poll ended. */
  readonly lastPollEndedAt: Micros | null;
  readonly lastPollOk: boolean | null;
  /** Files handed to the pipeline by the last poll. */
  readonly lastPollFiles: number;
  /** Files handed to the pipeline since the first poll. */
  readonly filesFetched: number;
  readonly polls: number;
  readonly lastError: string | null;
  readonly lastErrorAt: Micros | null;
  /** The replica that ran the last poll (`<host>:<pid>`). */
  readonly polledBy: string | null;
  /** When a poll was last asked for out of schedule (`tdx sftp poll`). */
  readonly requestedAt: Micros | null;
  /** The regular files of the last listing. */
  readonly seen: readonly SeenFile[];
}

/** The name of a connection's poll lease in the lease store (one per organization and connection). */
export const sftpPollLease = (organizationId: string, connectionId: string): string => `sftp-poll/${organizationId}/${connectionId}`;

/** The poller's records (Cassandra: tables of migration 0110). */
export interface SftpPollStore {
  /** Every flow version of every organization that polls a connection (current, active, inbound, sftp_fetch input, frequency above 0). */
  targets(): Promise<PollTarget[]>;
  /** Files recorded for a path with this size and modification time (their content may differ). */
  fetched(organizationId: string, connectionId: string, path: string, size: number, mtime: number): Promise<FetchedFile[]>;
  /**
   * Records a fetched file unless its key is recorded already (a lightweight transaction): returns
   * the record that holds the key, with `won` true when it is `file`.
   */
  claim(file: FetchedFile): Promise<{ readonly won: boolean; readonly record: FetchedFile }>;
  /** Moves a fetched file to a later state. */
  markState(file: FetchedFile, state: FetchedState): Promise<void>;
  pollState(organizationId: string, connectionId: string): Promise<PollState | null>;
  /** Every poll state (of one organization when given). */
  pollStates(organizationId?: string): Promise<PollState[]>;
  savePollState(state: PollState): Promise<void>;
  /** Asks for a poll out of schedule: the next tick of any replica polls the connection. */
  requestPoll(organizationId: string, connectionId: string, at: Micros): Promise<void>;
}
