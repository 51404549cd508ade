/**
 * SFTP polling across processes: the scheduler runs as real child processes (`tdx start --role
 * scheduler`) while this process runs the API, the materializer and the steps a polled file
 * passes through.
 *
 * - SIGKILL of the scheduler between storing a fetched file and removing it (held there with
 *   TDX_SFTP_FETCH_PAUSE: once before its work item was produced, once after): after a restart
 *   the file is recognised and processed exactly once, and gone from the directory.
 * - Two scheduler processes polling one connection while files keep arriving: every file is
 *   fetched once (one transaction per file, the fetch counts of both processes adding up to the
 *   number of files), and both processes did poll it (the lease moves between them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeService } from '../../../src/domain/node-services.ts';
import type { ConfigDocument, PartnerDoc } from '../../../src/domain/configuration.ts';
import { CassandraSftpPollStore } from '../../../src/adapters/cassandra/sftp-poll-store.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { kafkaQuiet } from '../helpers/quiet.ts';
import { reusableSftp, sftpSettings, type SftpSession } from '../helpers/sftp.ts';
import { uniqueId } from '../helpers/env.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const base = uniqueId('procs');
const crashDir = posix.join(base, 'crash');
const twoDir = posix.join(base, 'two');

let p: Pipeline;
let polls: CassandraSftpPollStore;
const children: ChildProcess[] = [];

const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));
/** The test's own looks at the server, over one session. */
const remote = reusableSftp();
const sftp = <T>(fn: (s: SftpSession['sftp']) => Promise<T>): Promise<T> => remote.use(fn);
const list = (d: string): Promise<string[]> => sftp(async (c) => (await call<{ filename: string }[]>((cb) => c.readdir(d, cb))).map((e) => e.filename).sort());
async function drop(d: string, name: string, text: string): Promise<void> {
  await sftp(async (c) => {
    await call<void>((cb) => c.writeFile(posix.join(d, `.${name}.part`), text, cb));
    await call<void>((cb) => c.rename(posix.join(d, `.${name}.part`), posix.join(d, name), cb));
  });
}

/** The steps of a polled file's 850 to a polling partner without acknowledgments. */
const POLLED_850_STEPS: readonly NodeService[] = ['sftp_fetch', 'x12_split', 'mapping', 'validation', 'feed'];

const POLL_ENV = { TDX_SFTP_POLL_TICK_MS: '200', TDX_SFTP_POLL_UNIT_MS: '1000', TDX_SFTP_STABILITY_INTERVAL_MS: '300', TDX_SFTP_POLL_LEASE_MS: '3000' };

interface Scheduler {
  readonly child: ChildProcess;
  /** Parsed JSON log lines so far. */
  readonly events: Record<string, unknown>[];
  /** Resolves once a log line with this event appears. */
  waitFor(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

function startScheduler(extra: Record<string, string> = {}): Scheduler {
  const env: NodeJS.ProcessEnv = { ...process.env, ...p.iso.env, ...POLL_ENV, TDX_LOG_FORMAT: 'json', TDX_LOG_LEVEL: 'info', ...extra };
  delete env['NODE_OPTIONS'];
  const child = spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', 'scheduler'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const events: Record<string, unknown>[] = [];
  let buffer = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const l of lines) {
      try {
        events.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        /* not a log line */
      }
    }
  });
  child.stderr.resume();
  return {
    child,
    events,
    waitFor: (event, timeoutMs = 90_000) => eventually(() => events.find((e) => e['event'] === event), timeoutMs, `${event} from scheduler ${child.pid}`),
  };
}

async function kill(s: Scheduler, signal: NodeJS.Signals): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  s.child.kill(signal);
  await exited;
}

function partner(key: string, conn: string): PartnerDoc {
  return {
    key,
    name: `${key} Inc`,
    deliveryMethod: 'polling',
    connection: conn,
    frequency: 1,
    // no 997s: these connections have no outbound directory
    generateAcknowledgments: false,
    envelopes: { internal: 'us', external: 'them' },
    transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
  };
}

beforeAll(async () => {
  await sftp(async (c) => {
    for (const d of [base, crashDir, twoDir]) await call<void>((cb) => c.mkdir(d, cb));
  });
  const s = sftpSettings();
  const credentials = s.privateKeyPath ? { privateKey: readFileSync(s.privateKeyPath, 'utf8') } : { password: s.password ?? '' };
  const doc: ConfigDocument = {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    connections: [
      { name: 'crash-sftp', kind: 'sftp', host: s.host, port: s.port, username: s.username, ...credentials, inboundDirectory: crashDir },
      { name: 'two-sftp', kind: 'sftp', host: s.host, port: s.port, username: s.username, ...credentials, inboundDirectory: twoDir },
    ],
    implementations: [{ name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: [partner('CRASH', 'crash-sftp'), partner('TWO', 'two-sftp')],
  };
  // the schedulers are the child processes; this process runs the API (the connections' ids),
  // the materializer (ClickHouse, read below) and the steps a polled 850 delivered by polling
  // passes through, and no consumer for steps these partners never reach
  const roles = ['api', 'materializer', ...POLLED_850_STEPS.map((n) => `node:${n}`)].join(',');
  p = await startPipeline(doc, { roles, env: POLL_ENV, sharedKeyspace: true });
  polls = new CassandraSftpPollStore(await p.reader.cassandra());
}, 240_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await p?.stop();
  await sftp(async (c) => {
    for (const d of [crashDir, twoDir]) {
      for (const f of await list(d).catch(() => [])) await call<void>((cb) => c.unlink(posix.join(d, f), cb)).catch(() => undefined);
      await call<void>((cb) => c.rmdir(d, cb)).catch(() => undefined);
    }
    await call<void>((cb) => c.rmdir(base, cb)).catch(() => undefined);
  }).catch(() => undefined);
  await remote.close();
});

/** Inbound transactions per purchase order number, as the pipeline recorded them (ClickHouse projection). */
async function transactionsByPo(partnerKey: string): Promise<Map<string, number>> {
  const ch = await p.reader.clickhouse();
  const rs = await ch.client.query({
    query: `SELECT reference, count(DISTINCT id) AS n FROM ${ch.database}.transactions WHERE org_id = {org:String} AND partner_key = {key:String} AND direction = 'inbound' GROUP BY reference`,
    query_params: { org: p.org, key: partnerKey },
    format: 'JSONEachRow',
  });
  return new Map((await rs.json<{ reference: string; n: string | number }>()).map((r) => [r.reference, Number(r.n)]));
}

const crashConnection = async (): Promise<string> => ((await p.api('/platform/connections')).body['connections'] as { id: string; name: string }[]).find((c) => c.name === 'crash-sftp')!.id;

describe('SIGKILL of the scheduler between storing and removing a fetched file', () => {
  it.each([
    ['claimed', 'before its work item was produced', 'PO-CRASH-1', 'handed over once'],
    ['produced', 'after its work item was produced', 'PO-CRASH-2', 'not processed again'],
  ] as const)('held at %s (%s): after a restart the file is processed exactly once', async (phase, _when, po, logged) => {
    const name = `${po}.edi`;
    const first = startScheduler({ TDX_SFTP_FETCH_PAUSE: `${phase}:120000` });
    let second: Scheduler | undefined;
    try {
    await drop(crashDir, name, interchange({ control: phase === 'claimed' ? 8101 : 8102, groups: [{ sets: [po850(po)] }] }));
    const paused = await first.waitFor('sftp:fetch:paused');
    expect(paused['path']).toBe(posix.join(crashDir, name));
    await kill(first, 'SIGKILL');
    // stored (and, at `produced`, handed to the pipeline), but still on the server
    expect(await list(crashDir)).toEqual([name]);
    const conn = await crashConnection();
    const stat = await sftp(async (c) => call<{ size: number; mtime: number }>((cb) => c.stat(posix.join(crashDir, name), cb)));
    const [row] = await polls.fetched(p.org, conn, posix.join(crashDir, name), stat.size, stat.mtime);
    expect(row).toMatchObject({ state: phase === 'claimed' ? 'stored' : 'produced', traceGuid: paused['traceGuid'] });

    second = startScheduler();
    await eventually(async () => ((await list(crashDir)).length === 0 ? true : undefined), 90_000, 'the file to be removed after the restart');
    const txs = await p.settled(row!.traceGuid, 1);
    expect(txs.map((t) => t.reference)).toEqual([po]);
    // exactly one transaction for the file, however often it was seen: the file is gone from the
    // server, so no later poll takes it again, and a second work item produced for it before
    // would have been handled (and its transaction projected) once the pipeline's Kafka work is done
    await kafkaQuiet(p.iso.config);
    const counts = await eventually(async () => {
      const m = await transactionsByPo('CRASH');
      return m.get(po) !== undefined ? m : undefined;
    }, 30_000, 'the transaction projection');
    expect(counts.get(po)).toBe(1);
    const [after] = await polls.fetched(p.org, conn, posix.join(crashDir, name), stat.size, stat.mtime);
    expect(after).toMatchObject({ state: 'removed', traceGuid: row!.traceGuid });
    // the restart says on the file's trace what it did
    const ch = await p.reader.clickhouse();
    const logs = await eventually(async () => {
      const rs = await ch.client.query({ query: `SELECT message FROM ${ch.database}.logs WHERE org_id = {org:String} AND trace_guid = {t:String}`, query_params: { org: p.org, t: row!.traceGuid }, format: 'JSONEachRow' });
      const found = (await rs.json<{ message: string }>()).filter((l) => l.message.includes(name) && l.message.includes(logged));
      return found.length > 0 ? found : undefined;
    }, 30_000, 'the log entry of the restart');
    expect(logs).toHaveLength(1);
    } finally {
      await kill(first, 'SIGKILL');
      if (second) await kill(second, 'SIGTERM');
    }
  }, 240_000);
});

describe('two scheduler processes polling one connection', () => {
  it('fetch every file once', async () => {
    // A poll releases its lease when it ends, so the lease moves between the two whatever its
    // length; a lease shorter than a poll on a loaded machine would instead let both poll at
    // once, and the poll state's running count is only kept by the lease holder.
    const a = startScheduler({ TDX_SFTP_POLL_LEASE_MS: '30000' });
    const b = startScheduler({ TDX_SFTP_POLL_LEASE_MS: '30000' });
    try {
    await Promise.all([a.waitFor('scheduler:job:started'), b.waitFor('scheduler:job:started')]);
    const files = 30;
    for (let i = 1; i <= files; i++) {
      await drop(twoDir, `PO-TWO-${i}.edi`, interchange({ control: 8200 + i, groups: [{ sets: [po850(`PO-TWO-${i}`)] }] }));
      await new Promise((r) => setTimeout(r, 150));
    }
    await eventually(async () => ((await list(twoDir)).length === 0 ? true : undefined), 120_000, 'every file to be taken');
    const counts = await eventually(async () => {
      const m = await transactionsByPo('TWO');
      return m.size >= files ? m : undefined;
    }, 60_000, 'every transaction');
    // every file is gone from the server: a file fetched twice would be projected twice by now
    await kafkaQuiet(p.iso.config);
    const settled = await transactionsByPo('TWO');
    expect(settled.size).toBe(files);
    expect([...settled.values()].every((n) => n === 1)).toBe(true);
    expect(counts.size).toBe(files);
    const two = ((await p.api('/platform/connections')).body['connections'] as { id: string; name: string }[]).find((c) => c.name === 'two-sftp')!.id;
    const fetchedBy = (s: Scheduler): number => s.events.filter((e) => e['event'] === 'sftp:poll:done' && e['connectionId'] === two).reduce((n, e) => n + Number(e['fetched']), 0);
    const pollsBy = (s: Scheduler): number => s.events.filter((e) => e['event'] === 'sftp:poll:done' && e['connectionId'] === two).length;
    console.log(`two schedulers: process A fetched ${fetchedBy(a)} in ${pollsBy(a)} polls, process B ${fetchedBy(b)} in ${pollsBy(b)} polls`);
    expect(fetchedBy(a) + fetchedBy(b)).toBe(files);
    // Both replicas run the polling job (awaited above) and contend for each poll's lease; which
    // one wins is up to timing, and one replica may win every time. What must hold is that the
    // files were fetched once between them, over several polls.
    expect(pollsBy(a) + pollsBy(b)).toBeGreaterThan(1);
    const state = await polls.pollState(p.org, two);
    expect(state!.filesFetched).toBe(files);
    } finally {
      await Promise.all([kill(a, 'SIGTERM'), kill(b, 'SIGTERM')]);
    }
  }, 240_000);
});
