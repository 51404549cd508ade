import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ConnectionRecord, FlowRecord, PartnerRecord } from '../../../../src/domain/configuration.ts';
import type { LeaseStore } from '../../../../src/domain/processing-ports.ts';
import { sftpFileKey, sftpPollLease, type FetchedFile, type FetchedState, type PollState, type PollTarget, type SftpEntry, type SftpPollStore } from '../../../../src/domain/sftp-polling.ts';
import { TdxError } from '../../../../src/errors.ts';
import { workId } from '../../../../src/nodes/outcomes.ts';
import { SftpPoller } from '../../../../src/nodes/sftp_fetch/poller.ts';
import type { SftpInbox, SftpReadable } from '../../../../src/nodes/ports.ts';
import type { StageMessage } from '../../../../src/wire/stage.v1.ts';
import { recordingDeps } from '../fakes.ts';

const DIR = 'acme/outbox';

/** The lease store in memory: one holder per name. */
class MemoryLeases implements LeaseStore {
  readonly held = new Map<string, string>();
  hold(name: string, holder: string): Promise<boolean> {
    const had = this.held.get(name);
    if (had && had !== holder) return Promise.resolve(false);
    this.held.set(name, holder);
    return Promise.resolve(true);
  }
  release(name: string, holder: string): Promise<void> {
    if (this.held.get(name) === holder) this.held.delete(name);
    return Promise.resolve();
  }
}

class MemoryPollStore implements SftpPollStore {
  readonly files: FetchedFile[] = [];
  readonly states = new Map<string, PollState>();
  constructor(private readonly list: PollTarget[]) {}
  targets = (): Promise<PollTarget[]> => Promise.resolve(this.list);
  fetched(org: string, conn: string, path: string, size: number, mtime: number): Promise<FetchedFile[]> {
    return Promise.resolve(this.files.filter((f) => f.organizationId === org && f.connectionId === conn && f.path === path && f.size === size && f.mtime === mtime));
  }
  claim(file: FetchedFile): Promise<{ won: boolean; record: FetchedFile }> {
    const had = this.files.find((f) => f.path === file.path && f.fileKey === file.fileKey);
    if (had) return Promise.resolve({ won: false, record: had });
    this.files.push(file);
    return Promise.resolve({ won: true, record: file });
  }
  markState(file: FetchedFile, state: FetchedState): Promise<void> {
    const i = this.files.findIndex((f) => f.path === file.path && f.fileKey === file.fileKey);
    this.files[i] = { ...this.files[i]!, state };
    return Promise.resolve();
  }
  pollState = (org: string, conn: string): Promise<PollState | null> => Promise.resolve(this.states.get(`${org}|${conn}`) ?? null);
  pollStates = (): Promise<PollState[]> => Promise.resolve([...this.states.values()]);
  savePollState(s: PollState): Promise<void> {
    const prior = this.states.get(`${s.organizationId}|${s.connectionId}`);
    this.states.set(`${s.organizationId}|${s.connectionId}`, { ...s, requestedAt: prior?.requestedAt ?? null });
    return Promise.resolve();
  }
  requestPoll(org: string, conn: string, at: number): Promise<void> {
    const prior = this.states.get(`${org}|${conn}`);
    if (prior) this.states.set(`${org}|${conn}`, { ...prior, requestedAt: at });
    return Promise.resolve();
  }
}

/** A remote directory in memory; `grow` makes a file grow at each listing (a writer at work). */
class MemoryInbox implements SftpInbox {
  readonly files = new Map<string, { bytes: Buffer; mtime: number }>();
  readonly removed: string[] = [];
  readonly renamed: [string, string][] = [];
  growing = new Set<string>();
  failList: TdxError | null = null;
  put(name: string, text: string, mtime = 1_780_000_000): void {
    this.files.set(posix.join(DIR, name), { bytes: Buffer.from(text), mtime });
  }
  list(_t: unknown, dir: string): Promise<SftpEntry[]> {
    if (this.failList) return Promise.reject(this.failList);
    for (const path of this.growing) {
      const f = this.files.get(path)!;
      this.files.set(path, { bytes: Buffer.concat([f.bytes, Buffer.from('~')]), mtime: f.mtime + 1 });
    }
    const out: SftpEntry[] = [];
    for (const [path, f] of this.files) if (posix.dirname(path) === dir) out.push({ name: posix.basename(path), path, size: f.bytes.length, mtime: f.mtime, isFile: true, isDirectory: false });
    return Promise.resolve(out.sort((a, b) => a.name.localeCompare(b.name)));
  }
  openRead(_t: unknown, path: string): Promise<SftpReadable> {
    const f = this.files.get(path);
    if (!f) return Promise.reject(new TdxError('sftp_not_found', `no ${path}`));
    const stream = new PassThrough();
    stream.end(f.bytes);
    return Promise.resolve({ size: f.bytes.length, mtime: f.mtime, stream });
  }
  remove(_t: unknown, path: string): Promise<void> {
    this.files.delete(path);
    this.removed.push(path);
    return Promise.resolve();
  }
  rename(_t: unknown, from: string, to: string): Promise<void> {
    if (this.files.has(to)) return Promise.reject(new TdxError('sftp_target_exists', `${to} exists`));
    this.files.set(to, this.files.get(from)!);
    this.files.delete(from);
    this.renamed.push([from, to]);
    return Promise.resolve();
  }
  mkdirs = (): Promise<void> => Promise.resolve();
}

const flow = {
  id: 'flow-1',
  partnerId: 'p1',
  direction: 'inbound',
  status: 'active',
  current: true,
  frequency: 5,
  versionNumber: 3,
  nodes: [{ id: 'flow-1.n1', name: 'Fetch from SFTP', kind: 'input', service: 'sftp_fetch', config: { connectionId: 'c1' } }],
  connections: [],
} as unknown as FlowRecord;
const target: PollTarget = { organizationId: 'org', flow, nodeId: 'flow-1.n1', connectionId: 'c1' };

function setup(conn: Partial<ConnectionRecord> = {}) {
  let now = 1_780_000_000_000_000;
  const connection = { id: 'c1', name: 'acme-sftp', kind: 'sftp', host: 'sftp.example', port: 22, username: 'acme', inboundDirectory: DIR, outboundDirectory: null, tags: [], as2: null, provisioned: true, ...conn } as unknown as ConnectionRecord;
  const partner = { id: 'p1', key: 'ACME', webhooks: { inbound: null, outbound: null, error: null } } as unknown as PartnerRecord;
  const r = recordingDeps({ connection: () => Promise.resolve(connection), partner: () => Promise.resolve(partner), secrets: () => Promise.resolve({ password: 'pw' }) }, () => now);
  const store = new MemoryPollStore([target]);
  const leases = new MemoryLeases();
  const inbox = new MemoryInbox();
  const poller = new SftpPoller({ store, leases, inbox, config: r.deps.config, stores: r.deps.stores, emitter: r.deps.emitter, logger: r.deps.logger, wallClock: r.deps.wallClock }, { owner: 'me', stabilityIntervalMs: 1, unitMs: 1000 });
  const stage = (): StageMessage[] => r.produced.filter((m) => m.topic === 'stage.sftp_fetch').map((m) => m.value as StageMessage);
  return { r, store, leases, inbox, poller, stage, advance: (ms: number) => (now += ms * 1000) };
}

describe('SftpPoller', () => {
  it('hands a settled file over: stored, one work item with sftp.* params, removed, counted', async () => {
    const s = setup();
    s.inbox.put('PO-1.edi', 'ISA*one~');
    s.inbox.put('.PO-2.edi.part', 'ISA*hidden, still being uploaded~');
    const report = await s.poller.poll(target);
    expect(report).toMatchObject({ outcome: 'polled', fetched: 1, errors: [] });
    const [work] = s.stage();
    expect(s.stage()).toHaveLength(1);
    expect(work!.params).toEqual({ 'sftp.filename': 'PO-1.edi', 'sftp.path': 'acme/outbox/PO-1.edi', 'sftp.host': 'sftp.example', 'sftp.directory': DIR, 'sftp.fetchedAt': '2026-05-28T20:26:40.000000Z' });
    expect(work).toMatchObject({ service: 'sftp_fetch', flowId: 'flow-1', flowVersion: 3, nodeId: 'flow-1.n1', partnerKey: 'ACME', id: workId(work!.traceGuid, 'flow-1.n1', null, 1) });
    const artifact = s.r.artifacts.rows.get(work!.artifacts[0]!.id)!;
    expect(s.r.artifacts.blobs.get(artifact.blobId)!.toString()).toBe('ISA*one~');
    expect(artifact).toMatchObject({ usage: 'input', filename: 'PO-1.edi', traceGuid: work!.traceGuid });
    expect(s.inbox.removed).toEqual(['acme/outbox/PO-1.edi']);
    expect([...s.inbox.files.keys()]).toEqual(['acme/outbox/.PO-2.edi.part']);
    expect(s.store.files.map((f) => f.state)).toEqual(['removed']);
    expect(s.store.states.get('org|c1')).toMatchObject({ filesFetched: 1, lastPollFiles: 1, lastPollOk: true, polls: 1, polledBy: 'me', connectionName: 'acme-sftp', partnerKey: 'ACME' });
    expect(s.leases.held.size).toBe(0);
  });

  it('leaves a file whose size changes between two looks for a later poll', async () => {
    const s = setup();
    s.inbox.put('BIG.edi', 'ISA*');
    s.inbox.growing.add('acme/outbox/BIG.edi');
    expect(await s.poller.poll(target)).toMatchObject({ fetched: 0, left: 1 });
    expect(s.stage()).toEqual([]);
    s.inbox.growing.clear();
    s.advance(5 * 60_000);
    // the writer stopped: this poll's look equals the last poll's, so it goes at once
    expect(await s.poller.poll(target)).toMatchObject({ fetched: 1, left: 0 });
    expect(s.r.artifacts.blobs.get(s.stage()[0]!.artifacts[0]!.id)!.toString()).toBe('ISA*~~');
  });

  it.each([
    ['stored', 1, 'info'],
    ['produced', 0, 'warn'],
    ['removed', 0, 'warn'],
  ] as const)('a file found again in state %s is recognised: %i work item(s), no new trace, removed', async (state, items, level) => {
    const s = setup();
    s.inbox.put('PO-1.edi', 'ISA*one~');
    const sha = createHash('sha256').update('ISA*one~').digest('hex');
    const path = 'acme/outbox/PO-1.edi';
    const earlier: FetchedFile = { organizationId: 'org', connectionId: 'c1', path, size: 8, mtime: 1_780_000_000, fileKey: sftpFileKey('c1', { path, size: 8, mtime: 1_780_000_000, sha256: sha }), sha256: sha, traceGuid: 'trace-earlier', artifactId: 'art-earlier', filename: 'PO-1.edi', directory: DIR, host: 'sftp.example', fetchedAt: 1, flowId: 'flow-1', flowVersion: 3, nodeId: 'flow-1.n1', partnerKey: 'ACME', state };
    s.store.files.push(earlier);
    expect(await s.poller.poll(target)).toMatchObject({ fetched: 0, recognised: 1 });
    expect(s.stage().map((m) => m.traceGuid)).toEqual(items ? ['trace-earlier'] : []);
    expect(s.stage().map((m) => m.id)).toEqual(items ? [workId('trace-earlier', 'flow-1.n1', null, 1)] : []);
    expect(s.r.artifacts.rows.size).toBe(0);
    expect(s.inbox.removed).toEqual([path]);
    expect(s.store.files.map((f) => f.state)).toEqual(['removed']);
    const logs = s.r.produced.filter((m) => m.topic === 'events.records').flatMap((m) => (m.value as { logs: { traceGuid: string; level: string; message: string }[] }).logs);
    expect(logs).toEqual([expect.objectContaining({ traceGuid: 'trace-earlier', level })]);
    expect(logs[0]!.message).toContain('acme/outbox/PO-1.edi');
  });

  it('another content under the same path, size and time is a new file', async () => {
    const s = setup();
    s.inbox.put('PO-1.edi', 'ISA*two~');
    const path = 'acme/outbox/PO-1.edi';
    s.store.files.push({ organizationId: 'org', connectionId: 'c1', path, size: 8, mtime: 1_780_000_000, fileKey: 'other-content', sha256: 'x', traceGuid: 'trace-earlier', artifactId: 'a', filename: 'PO-1.edi', directory: DIR, host: 'h', fetchedAt: 1, flowId: 'flow-1', flowVersion: 3, nodeId: 'flow-1.n1', partnerKey: 'ACME', state: 'removed' });
    expect(await s.poller.poll(target)).toMatchObject({ fetched: 1 });
    expect(s.stage()[0]!.traceGuid).not.toBe('trace-earlier');
  });

  it('a failed poll: one error result on a trace of its own, the state says so, the lease is given back', async () => {
    const s = setup();
    s.inbox.failList = new TdxError('sftp_not_found', 'SFTP listing of directory "acme/outbox" on acme@sftp.example:22 failed: no such file or directory');
    const report = await s.poller.poll(target);
    expect(report.errors).toEqual([s.inbox.failList.message]);
    const results = s.r.results;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ status: 'error', service: 'sftp_fetch', nodeName: 'Fetch from SFTP', partnerKey: 'ACME' });
    expect(results[0]!.detail.errorMessage).toBe(`Polling sftp.example:acme/outbox failed: ${s.inbox.failList.message}`);
    expect(results[0]!.detail.sftp).toEqual({ host: 'sftp.example', directory: DIR });
    expect(s.r.produced.filter((m) => m.topic === 'events.records').flatMap((m) => (m.value as { logs: { level: string }[] }).logs.map((l) => l.level))).toEqual(['error']);
    expect(s.store.states.get('org|c1')).toMatchObject({ lastPollOk: false, lastError: s.inbox.failList.message, polls: 1 });
    expect(s.leases.held.size).toBe(0);
    // a second poll: a second trace
    s.advance(5 * 60_000);
    await s.poller.poll(target);
    expect(new Set(s.r.results.map((x) => x.traceGuid)).size).toBe(2);
  });

  it('polls only when due (frequency), when asked, and when it holds the lease', async () => {
    const s = setup();
    // frequency 5, a unit of 1 s here
    expect((await s.poller.poll(target)).outcome).toBe('polled');
    s.advance(4_000);
    expect((await s.poller.poll(target)).outcome).toBe('skipped');
    s.advance(1_000);
    expect((await s.poller.poll(target)).outcome).toBe('polled');
    s.advance(1_000);
    await s.store.requestPoll('org', 'c1', s.advance(0));
    s.advance(1);
    expect((await s.poller.poll(target)).outcome).toBe('polled');
    s.advance(10_000);
    s.leases.held.set(sftpPollLease('org', 'c1'), 'another-replica');
    expect((await s.poller.poll(target)).outcome).toBe('skipped');
  });

  it('archives into the connection folder, under another name when the name is taken', async () => {
    const s = setup({ archiveDirectory: 'acme/archive' });
    s.inbox.files.set('acme/archive/PO-1.edi', { bytes: Buffer.from('older'), mtime: 1 });
    s.inbox.put('PO-1.edi', 'ISA*one~');
    await s.poller.poll(target);
    const trace = s.stage()[0]!.traceGuid;
    expect(s.inbox.renamed).toEqual([['acme/outbox/PO-1.edi', `acme/archive/PO-1.edi.${trace}`]]);
    expect(s.inbox.removed).toEqual([]);
  });
});
