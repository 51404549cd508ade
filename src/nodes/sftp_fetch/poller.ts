/**
 * The SFTP poller: every `frequency` minutes, each active inbound flow whose input node is
 * `sftp_fetch` has its connection's inbound directory read, and each settled file handed to the
 * flow as a trace of its own. Run by the scheduler role (src/roles/sftp-poll-job.ts) on every
 * replica; the work is shared out by a lease per connection.
 *
 * One poll of one connection:
 * 1. the connection's lease (Cassandra lightweight transaction with a TTL, renewed while the
 *    poll runs): of several replicas exactly one polls a connection at a time;
 * 2. list the directory; a file is settled when two looks saw the same size and modification
 *    time (the last poll's listing, or a second look `stabilityIntervalMs` later); a file still
 *    changing is left for the next poll. Names starting with a dot are never taken (uploaders
 *    write those before renaming a finished file into place);
 * 3. for each settled file, in name order:
 *    - a file recorded before with this path, size and time has its content hashed (read only):
 *      the same duplicate key is the same file, found again after a crash between storing and
 *      removing it; its hand-over is finished where it stopped and it is not processed again;
 *    - otherwise its bytes are streamed into the artifact store as the input of a new trace,
 *      the file is claimed under its duplicate key (a lightweight transaction: a racing poller
 *      loses the claim), its work item is produced, and it is removed from the server (or
 *      moved to the connection's `archiveDirectory`);
 * 4. a failure (listing, reading, storing, removing) is recorded once per poll on a trace of its
 *    own (an error result and a log entry on the flow's input node), and polling goes on;
 * 5. the poll state (last poll, files fetched, last error, the listing) is saved for the next
 *    poll and `tdx sftp status`.
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { ConnectionRecord, PartnerRecord } from '../../domain/configuration.ts';
import { newId } from '../../domain/ids.ts';
import type { Micros } from '../../domain/records.ts';
import type { LeaseStore } from '../../domain/processing-ports.ts';
import { pollable, pollDue, settledFiles, sftpFileKey, sftpPollLease, type FetchedFile, type PollState, type PollTarget, type SeenFile, type SftpEntry, type SftpPollStore } from '../../domain/sftp-polling.ts';
import { isTdxError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import type { ConfigView, Emitter, ProcessingStores, SftpInbox, SftpTarget } from '../ports.ts';
import { applyEffects } from '../runtime.ts';
import { fetchedWork, foundAgain, inputArtifact, inputArtifactId, pollContext, pollFailed, type PollPlace, type SeenAgain } from './step.ts';

export interface PollerDeps {
  readonly store: SftpPollStore;
  /** Where a poll takes its connection's lease (`sftpPollLease`), so one replica polls it at a time. */
  readonly leases: LeaseStore;
  readonly inbox: SftpInbox;
  readonly config: ConfigView;
  readonly stores: ProcessingStores;
  readonly emitter: Emitter;
  readonly logger: Logger;
  /** Wall clock, micros. */
  readonly wallClock: () => Micros;
}

export interface PollerOptions {
  /** Who this replica is in leases and poll states (`<host>:<pid>`). */
  readonly owner: string;
  /** Length of one unit of a flow's `frequency` (a minute; tests shorten it). @default 60000 */
  readonly unitMs?: number;
  /** Lease time of one poll; renewed as files are handed over. @default 60000 */
  readonly leaseMs?: number;
  /** Gap between the two looks of the still-being-written check within a poll. @default 2000 */
  readonly stabilityIntervalMs?: number;
  /** Most files handed over by one poll (the rest wait for the next). @default 500 */
  readonly maxFilesPerPoll?: number;
  /** Connections polled at once by this replica. @default 4 */
  readonly concurrency?: number;
  /**
   * Crash tests only: stop this long at a point of each new file's hand-over (`claimed`: stored
   * and claimed, nothing produced; `produced`: the work item produced, the file not yet removed).
   */
  readonly pauseAt?: { readonly phase: 'claimed' | 'produced'; readonly ms: number };
}

/** What one poll did. */
export interface PollReport {
  readonly organizationId: string;
  readonly connectionId: string;
  /** `skipped`: not due, or another replica holds the lease. */
  readonly outcome: 'polled' | 'skipped';
  readonly fetched: number;
  readonly recognised: number;
  readonly left: number;
  readonly errors: readonly string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Why a file was not handed over in this poll. */
type FileOutcome = 'fetched' | 'recognised' | 'changed' | 'raced';

export class SftpPoller {
  private readonly running = new Set<string>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly unitMs: number;
  private readonly leaseMs: number;
  private readonly stabilityMs: number;
  private readonly maxFiles: number;
  private readonly concurrency: number;

  constructor(
    private readonly deps: PollerDeps,
    private readonly opts: PollerOptions,
  ) {
    this.unitMs = opts.unitMs ?? 60_000;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.stabilityMs = opts.stabilityIntervalMs ?? 2_000;
    this.maxFiles = opts.maxFilesPerPoll ?? 500;
    this.concurrency = opts.concurrency ?? 4;
  }

  /**
   * One pass over every polled connection: starts a poll of each connection not being polled by
   * this replica (at most `concurrency` at once; the others wait for a later tick) and returns
   * the polls it started. A poll does nothing when the connection is not due or another
   * replica holds its lease. A long poll never holds back the other connections' schedules.
   */
  async tick(): Promise<Promise<PollReport | null>[]> {
    const [targets, states] = await Promise.all([this.deps.store.targets(), this.deps.store.pollStates()]);
    const stateOf = new Map(states.map((s) => [`${s.organizationId}|${s.connectionId}`, s]));
    const nowMs = this.deps.wallClock() / 1000;
    const due = new Map<string, PollTarget>();
    for (const t of targets) {
      const key = `${t.organizationId}|${t.connectionId}`;
      // one poll per connection, whichever flows share it
      if (due.has(key) || this.running.has(key)) continue;
      if (pollDue(stateOf.get(key) ?? null, t.flow.frequency, nowMs, this.unitMs)) due.set(key, t);
    }
    // the longest waiting first, so a connection never starves behind others
    const order = [...due.entries()].sort(([a], [b]) => (stateOf.get(a)?.lastPollAt ?? 0) - (stateOf.get(b)?.lastPollAt ?? 0));
    const started: Promise<PollReport | null>[] = [];
    for (const [, t] of order) {
      if (this.running.size >= this.concurrency) break;
      const run = this.poll(t).catch((err: unknown) => {
        // a store outage: this connection waits for the next tick
        this.deps.logger.warn({ event: 'sftp:poll:failed', organizationId: t.organizationId, connectionId: t.connectionId, err }, 'SFTP poll could not run');
        return null;
      });
      this.inFlight.add(run);
      void run.finally(() => this.inFlight.delete(run));
      started.push(run);
    }
    return started;
  }

  /** Waits for the polls in progress (at shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /** Polls one connection if it is due and this replica gets its lease. */
  async poll(target: PollTarget, opts: { force?: boolean } = {}): Promise<PollReport> {
    const key = `${target.organizationId}|${target.connectionId}`;
    const skipped: PollReport = { organizationId: target.organizationId, connectionId: target.connectionId, outcome: 'skipped', fetched: 0, recognised: 0, left: 0, errors: [] };
    if (this.running.has(key)) return skipped;
    this.running.add(key);
    try {
      const { store } = this.deps;
      const org = target.organizationId;
      const nowMs = () => this.deps.wallClock() / 1000;
      if (!opts.force && !pollDue(await store.pollState(org, target.connectionId), target.flow.frequency, nowMs(), this.unitMs)) return skipped;
      const lease = sftpPollLease(org, target.connectionId);
      if (!(await this.deps.leases.hold(lease, this.opts.owner, this.leaseMs / 1000))) return skipped;
      try {
        // another replica may have polled between our look and our lease
        const state = await store.pollState(org, target.connectionId);
        if (!opts.force && !pollDue(state, target.flow.frequency, nowMs(), this.unitMs)) return skipped;
        return await this.pollLeased(target, state);
      } finally {
        await this.deps.leases.release(lease, this.opts.owner).catch(() => undefined);
      }
    } finally {
      this.running.delete(key);
    }
  }

  private async pollLeased(target: PollTarget, state: PollState | null): Promise<PollReport> {
    const { config, store, logger } = this.deps;
    const org = target.organizationId;
    const startedAt = this.deps.wallClock();
    const [connection, partner] = await Promise.all([config.connection(org, target.connectionId), config.partner(org, target.flow.partnerId)]);
    const directory = connection?.inboundDirectory ?? '.';
    const place: PollPlace = { organizationId: org, flow: target.flow, nodeId: target.nodeId, partner, host: connection?.host ?? '', directory };
    const errors: string[] = [];
    let seen: SeenFile[] = [...(state?.seen ?? [])];
    let fetched = 0;
    let recognised = 0;
    let left = 0;
    let leaseAt = Date.now();
    const log = logger.child({ organizationId: org, connectionId: target.connectionId, partnerKey: partner?.key });
    if (!connection || connection.kind !== 'sftp' || !connection.host) {
      errors.push(`the flow's SFTP connection (${target.connectionId}) no longer exists or has no host`);
    } else {
      const secrets = await config.secrets(org, 'connection', connection.id);
      const ep: SftpTarget = {
        host: connection.host,
        port: connection.port ?? 22,
        username: connection.username ?? '',
        ...(secrets['password'] ? { password: secrets['password'] } : {}),
        ...(secrets['privateKey'] ? { privateKey: secrets['privateKey'] } : {}),
        ...(secrets['passphrase'] ? { passphrase: secrets['passphrase'] } : {}),
      };
      try {
        const look1 = pollable(await this.deps.inbox.list(ep, directory));
        let ready = settledFiles(seen, look1).ready;
        seen = look1.map(seenOf);
        if (ready.length < look1.length && this.stabilityMs > 0) {
          await sleep(this.stabilityMs);
          const look2 = pollable(await this.deps.inbox.list(ep, directory));
          ready = settledFiles(look1, look2).ready;
          seen = look2.map(seenOf);
          left = look2.length - ready.length;
        } else {
          left = look1.length - ready.length;
        }
        if (ready.length > this.maxFiles) {
          left += ready.length - this.maxFiles;
          ready = ready.slice(0, this.maxFiles);
        }
        for (const entry of ready) {
          if (Date.now() - leaseAt > this.leaseMs / 3) {
            if (!(await this.deps.leases.hold(sftpPollLease(org, connection.id), this.opts.owner, this.leaseMs / 1000))) {
              log.warn({ event: 'sftp:poll:lease-lost' }, 'SFTP poll lease lost; the rest waits for the next poll');
              break;
            }
            leaseAt = Date.now();
          }
          try {
            const outcome = await this.fetchOne(place, connection, partner, ep, entry);
            if (outcome === 'fetched') fetched++;
            else if (outcome === 'recognised') recognised++;
            else left++;
          } catch (err) {
            errors.push(messageOf(err));
            // the session is gone or the login refused: the other files would fail the same way
            if (isTdxError(err) && (err.code === 'sftp_unreachable' || err.code === 'sftp_auth_failed')) break;
            if (!isTdxError(err) || !err.code.startsWith('sftp_')) throw err;
          }
        }
      } catch (err) {
        if (isTdxError(err) && err.code.startsWith('sftp_')) errors.push(messageOf(err));
        else throw err;
      }
    }
    const endedAt = this.deps.wallClock();
    if (errors.length > 0) {
      const trace = newId();
      await applyEffects(this.deps.stores, this.deps.emitter, pollFailed(pollContext(place, trace, startedAt), errors), endedAt);
      log.warn({ event: 'sftp:poll:error', traceGuid: trace, errors }, 'SFTP poll failed');
    }
    await store.savePollState({
      organizationId: org,
      connectionId: target.connectionId,
      connectionName: connection?.name ?? '',
      partnerKey: partner?.key ?? '',
      host: connection ? `${connection.host ?? ''}:${connection.port ?? 22}` : '',
      directory,
      frequency: target.flow.frequency,
      lastPollAt: startedAt,
      lastPollEndedAt: endedAt,
      lastPollOk: errors.length === 0,
      lastPollFiles: fetched,
      filesFetched: (state?.filesFetched ?? 0) + fetched,
      polls: (state?.polls ?? 0) + 1,
      lastError: errors.length > 0 ? errors.join(' | ').slice(0, 2000) : (state?.lastError ?? null),
      lastErrorAt: errors.length > 0 ? endedAt : (state?.lastErrorAt ?? null),
      polledBy: this.opts.owner,
      requestedAt: state?.requestedAt ?? null,
      seen: seen.slice(0, 5000),
    });
    log.info({ event: 'sftp:poll:done', fetched, recognised, left, errors: errors.length, ms: Math.round((endedAt - startedAt) / 1000) }, 'SFTP poll done');
    return { organizationId: org, connectionId: target.connectionId, outcome: 'polled', fetched, recognised, left, errors };
  }

  /** Hands one settled file over (or finishes the hand-over of one found again). */
  private async fetchOne(place: PollPlace, connection: ConnectionRecord, partner: PartnerRecord | null, ep: SftpTarget, entry: SftpEntry): Promise<FileOutcome> {
    const { store, inbox } = this.deps;
    const org = place.organizationId;
    const known = await store.fetched(org, connection.id, entry.path, entry.size, entry.mtime);
    if (known.length > 0) {
      const remote = await this.hashRemote(ep, entry.path);
      if (!remote || remote.size !== entry.size || remote.mtime !== entry.mtime) return 'changed';
      const key = sftpFileKey(connection.id, { path: entry.path, size: entry.size, mtime: entry.mtime, sha256: remote.sha256 });
      const record = known.find((k) => k.fileKey === key);
      if (record) {
        await this.finish(record, connection, ep, record.state === 'stored' ? 'handed_over' : record.state === 'produced' ? 'removed' : 'reappeared');
        return 'recognised';
      }
    }
    const node = place.flow.nodes.find((n) => n.id === place.nodeId);
    const traceGuid = newId();
    const fetchedAt = this.deps.wallClock();
    const handle = await inbox.openRead(ep, entry.path);
    if (handle.size !== entry.size || handle.mtime !== entry.mtime) {
      handle.stream.destroy();
      return 'changed';
    }
    const draft = { organizationId: org, traceGuid, nodeId: place.nodeId, filename: entry.name, fetchedAt };
    const stored = await this.deps.stores.artifacts.putStream(inputArtifact(draft, node?.name ?? 'Fetch from SFTP'), handle.stream);
    // grown while it was read (a writer that paused longer than the settle check): next poll
    if (stored.size !== entry.size) return 'changed';
    const file: FetchedFile = {
      organizationId: org,
      connectionId: connection.id,
      path: entry.path,
      size: entry.size,
      mtime: entry.mtime,
      fileKey: sftpFileKey(connection.id, { path: entry.path, size: entry.size, mtime: entry.mtime, sha256: stored.sha256 }),
      sha256: stored.sha256,
      traceGuid,
      artifactId: inputArtifactId(traceGuid, place.nodeId),
      filename: entry.name,
      directory: place.directory,
      host: connection.host ?? '',
      fetchedAt,
      flowId: place.flow.id,
      flowVersion: place.flow.versionNumber,
      nodeId: place.nodeId,
      partnerKey: partner?.key ?? '',
      state: 'stored',
    };
    const claim = await store.claim(file);
    // another poller claimed the same file at the same moment: it hands it over
    if (!claim.won) return 'raced';
    await this.pause('claimed', file);
    await this.finish(file, connection, ep, null);
    return 'fetched';
  }

  /** Produces the work item unless that was done, then removes (or archives) the file. */
  private async finish(file: FetchedFile, connection: ConnectionRecord, ep: SftpTarget, again: SeenAgain | null): Promise<void> {
    const { store, emitter } = this.deps;
    if (file.state === 'stored') {
      await emitter.produce([fetchedWork(file)]);
      await store.markState(file, 'produced');
      this.deps.logger.debug({ event: 'sftp:fetch:produced', traceGuid: file.traceGuid, path: file.path });
      await this.pause('produced', file);
    }
    const archivedTo = await this.takeAway(connection, ep, file);
    await store.markState(file, 'removed');
    if (again) {
      const now = this.deps.wallClock();
      await applyEffects(this.deps.stores, emitter, foundAgain(file, again, archivedTo, now, 'Fetch from SFTP'), now);
    }
  }

  /** Removes the fetched file, or moves it into the connection's archive folder; returns where it went. */
  private async takeAway(connection: ConnectionRecord, ep: SftpTarget, file: FetchedFile): Promise<string | null> {
    const archive = connection.archiveDirectory ?? null;
    if (!archive) {
      await this.deps.inbox.remove(ep, file.path);
      return null;
    }
    const plain = posix.join(archive, file.filename);
    const unique = posix.join(archive, `${file.filename}.${file.traceGuid}`);
    for (const to of [plain, unique]) {
      try {
        await this.deps.inbox.rename(ep, file.path, to);
        return to;
      } catch (err) {
        if (isTdxError(err) && err.code === 'sftp_target_exists') continue;
        if (isTdxError(err) && err.code === 'sftp_not_found') {
          await this.deps.inbox.mkdirs(ep, archive);
          await this.deps.inbox.rename(ep, file.path, to);
          return to;
        }
        throw err;
      }
    }
    throw new Error(`could not archive ${file.path}: ${unique} exists`);
  }

  /** Reads a remote file only to hash it (a file recorded before, whose content decides). */
  private async hashRemote(ep: SftpTarget, path: string): Promise<{ size: number; mtime: number; sha256: string } | null> {
    const handle = await this.deps.inbox.openRead(ep, path);
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of handle.stream) {
      hash.update(chunk);
      size += chunk.length;
    }
    return size === handle.size ? { size, mtime: handle.mtime, sha256: hash.digest('hex') } : null;
  }

  private async pause(phase: 'claimed' | 'produced', file: FetchedFile): Promise<void> {
    const p = this.opts.pauseAt;
    if (!p || p.phase !== phase) return;
    this.deps.logger.warn({ event: 'sftp:fetch:paused', phase, traceGuid: file.traceGuid, path: file.path, ms: p.ms }, 'SFTP hand-over paused (TDX_SFTP_FETCH_PAUSE)');
    await sleep(p.ms);
  }
}

function seenOf(e: SftpEntry): SeenFile {
  return { name: e.name, size: e.size, mtime: e.mtime };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
