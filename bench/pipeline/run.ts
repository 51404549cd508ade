/**
 * `npm run bench:pipeline`: the whole pipeline on the single-node stack, measured as a partner
 * and the organization see it: from the HTTP submission to the moment the set's feed entry is
 * readable through `GET /platform/feed_entries` (polling partner; the entry's `createdAt` is
 * reported too) or to the webhook call's arrival (webhook partner).
 *
 * Processes (fair accounting):
 *   load generator  bench/pipeline/loadgen.ts, forked: builds the documents, submits them over
 *                   HTTP, polls the feed, runs the webhook receiver. Its CPU is reported apart
 *                   and never charged to the pipeline.
 *   orchestrator    this process: provisions the organizations and keys (Cassandra), starts
 *                   the roles, watches /proc, reads Kafka offsets. In processes mode it runs no
 *                   role and its CPU is reported apart; in the in-process modes it runs every
 *                   role (`all`) and is charged as the pipeline.
 *
 * Modes (BENCH_MODES, default `inprocess,processes`; BENCH_COUNT=1 adds `count`, run last):
 *   inprocess  every role in this process (`all`), timed
 *   processes  each role in its own process: `tdx start --role api,materializer` (the embedded
 *              ClickHouse, chDB, lives in the one process that owns its data folder, so the API
 *              and the materializer share a process), `node:<service>` each, `scheduler`; timed.
 *              BENCH_CLICKHOUSE=host runs the engine in a `clickhouse` role process instead, and
 *              the API and the materializer apart, reaching it over HTTP (CLICKHOUSE_URL).
 *              The summary line comes from this mode.
 *   count      the in-process layout again with the clients' prototypes wrapped to count the
 *              work per set (bench/pipeline/counters.ts); a counting pass, never a timing. The
 *              store ceilings run here (they replay the recorded Cassandra writes).
 *
 * Scenarios (BENCH_SCENARIOS, comma-separated, default all), sizes from the environment:
 *   single       (a) open loop: single-set 850 interchanges offered at BENCH_SINGLES_RATE (500)
 *                    a second for BENCH_SINGLES_SECONDS (40), whatever the pipeline does;
 *                    achieved offered, accepted and delivered rates, p50/p99 latency. Spread
 *                    over enough API keys that none passes the contract's 240 requests a
 *                    minute (the limit is not lifted)
 *   interchange  (b) one interchange of BENCH_SETS (20000) 850 sets
 *   linear           one interchange of BENCH_SETS/2 sets: the time ratio to (b) (2.0 is linear)
 *   idle         (d) BENCH_IDLE (50) single-set interchanges one at a time for a webhook
 *                    partner, each delivered (webhook call and feed entry) before the next,
 *                    BENCH_IDLE_PAUSE_MS (300) apart: p50/p99 to `createdAt`, to readable on
 *                    the feed and to the webhook call
 *   mix          (c) BENCH_MIX (1000) documents: 90% single-set 850s, 10% outbound 810s (mapped,
 *                    written, uploaded by SFTP) and the partner's 997 for each
 *   webhook          BENCH_WEBHOOK_SINGLES (500) single-set interchanges (BENCH_CONCURRENCY,
 *                    32, in flight) and one interchange of BENCH_WEBHOOK_SETS (BENCH_SETS/4)
 *                    sets for a webhook partner (the receiver answers 200 at once)
 *   big              a BENCH_BIG_MB (50) MB interchange of BENCH_BIG_SETS (500) 850 sets
 *   ceilings         (count mode, after `interchange`) Kafka, Cassandra and ClickHouse alone
 *
 * Before each scenario the bench waits up to BENCH_SETTLE_S (120) seconds for the 1-minute load
 * average to come down to 3 (the start-up's or the previous scenario's load lingers in it), then
 * up to as long again for the pipeline to go quiet (its processes and stores together at most a
 * quarter of a core over 3 s): work a scenario before left in flight is not charged to the next,
 * and (d) runs on an idle pipeline.
 *
 * BENCH_PROFILE=<folder>: a V8 CPU profile of this process per scenario (in-process mode);
 * BENCH_CPU_PROF_DIR=<folder>: `--cpu-prof` of the role processes named in BENCH_CPU_PROF_ROLES
 * (`;`-separated, default `node:x12_split`) in processes mode, written when they stop.
 * Summarize either with `npx tsx bench/pipeline/profile-summary.ts <file>`.
 *
 * Per scenario: sets/s sustained (first submission to the last entry readable or webhook call),
 * p50/p99 latencies, CPU seconds per 1,000 sets of each process (/proc/<pid>/stat before and
 * after) and each process's peak RSS (sampled), and the load average before and after (a loud
 * warning when the 1-minute load average is over 3 at the start). The last line:
 *   summary interchange_sets_per_s=<n> interchange_cpu_s_per_1000=<n> singles_per_s=<n>
 *           singles_p99_ms=<n> idle_p99_ms=<n> max_rss_mb=<n>
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { cpus, loadavg } from 'node:os';
import path, { posix } from 'node:path';
import { parse } from 'yaml';
import type { Admin } from 'kafkajs';
import { qualify, fromChTime } from '../../src/adapters/clickhouse/client.ts';
import { createKafka } from '../../src/adapters/kafka/client.ts';
import { createLogger } from '../../src/logger.ts';
import { NODE_SERVICES } from '../../src/domain/node-services.ts';
import type { ConfigDocument, PartnerDoc } from '../../src/domain/configuration.ts';
import { parseRoles, startService } from '../../src/main.ts';
import { Resources } from '../../src/compose.ts';
import { createApiKey, applyConfig, createOrganization } from '../../src/admin/admin-service.ts';
import { CassandraOrganizationStore } from '../../src/adapters/cassandra/organization-store.ts';
import { CassandraConfigAdminStore } from '../../src/adapters/cassandra/config-store.ts';
import { x12ImplementationEngine } from '../../src/domain/x12-implementation-engine.ts';
import { interchange, po850 } from '../../test/integration/pipeline/support.ts';
import { isolatedConfig, type Isolated } from '../../test/integration/helpers/isolated-config.ts';
import { serviceNodeFlags } from '../../test/support/service-node-flags.ts';
import { countClickHouse, installCounters, resetCounters, takeCounters, type Counts, type RecordedWrite } from './counters.ts';
import { cassandraCeiling, clickhouseCeiling, kafkaCeiling, type Ceiling } from './ceilings.ts';
import { cassandraCounts, countsPerSet } from './cassandra-counts.ts';
import { cpuSeconds, listenerPid, listenOverflows, load, pct, watch, type Usage, type Watched } from './procstat.ts';
import type { ClosedArgs, ClosedValue, FeedStats, IdleArgs, IdleValue, InterchangeArgs, InterchangeValue, MixArgs, MixValue, OpenArgs, OpenValue, SeenEntry } from './loadgen.ts';

const root = path.resolve(import.meta.dirname, '../..');
const num = (k: string, d: number): number => (process.env[k] ? Number(process.env[k]) : d);
const SINGLES_RATE = num('BENCH_SINGLES_RATE', 500);
const SINGLES_SECONDS = num('BENCH_SINGLES_SECONDS', 40);
const SINGLES = Math.max(1, Math.round(SINGLES_RATE * SINGLES_SECONDS));
const MAX_IN_FLIGHT = num('BENCH_MAX_IN_FLIGHT', 4000);
const CONCURRENCY = num('BENCH_CONCURRENCY', 32);
const SETS = num('BENCH_SETS', 20000);
const IDLE = num('BENCH_IDLE', 50);
const IDLE_PAUSE_MS = num('BENCH_IDLE_PAUSE_MS', 300);
const MIX = num('BENCH_MIX', 1000);
const WEBHOOK_SINGLES = num('BENCH_WEBHOOK_SINGLES', 500);
const WEBHOOK_SETS = num('BENCH_WEBHOOK_SETS', Math.max(1, Math.round(SETS / 4)));
const BIG_MB = num('BENCH_BIG_MB', 50);
const BIG_SETS = num('BENCH_BIG_SETS', 500);
const POLL_MS = num('BENCH_POLL_MS', 100);
const IDLE_POLL_MS = num('BENCH_IDLE_POLL_MS', 20);
const TIMEOUT_MS = num('BENCH_TIMEOUT_S', 3600) * 1000;
const LOAD_WARN = 3;
const SETTLE_S = num('BENCH_SETTLE_S', 120);
/** BENCH_CASSANDRA_COUNTS=1: print Cassandra's own counts per set after each scenario (cassandra-counts.ts). */
const CASSANDRA_COUNTS = process.env['BENCH_CASSANDRA_COUNTS'] === '1';
/** A pipeline is quiet when its processes (service and stores) use at most this many cores over QUIET_WINDOW_MS. */
const QUIET_CORES = 0.25;
const QUIET_WINDOW_MS = 3000;
const modeList = (process.env['BENCH_MODES'] ?? 'inprocess,processes').split(',').map((s) => s.trim()).filter(Boolean);
if (process.env['BENCH_COUNT'] === '1' && !modeList.includes('count')) modeList.push('count');
// the counters wrap prototypes for good: the counting pass runs after every timed mode
const MODES = [...modeList.filter((m) => m !== 'count'), ...modeList.filter((m) => m === 'count')];
for (const m of MODES) if (!['inprocess', 'processes', 'count'].includes(m)) throw new Error(`unknown mode ${m} (inprocess, processes, count)`);
const SCENARIOS = new Set((process.env['BENCH_SCENARIOS'] ?? 'single,interchange,linear,idle,mix,webhook,big,ceilings').split(',').map((s) => s.trim()));
const SECRET = `whsec_${Buffer.from('bench-pipeline-webhook-secret-32b').toString('base64')}`;
/** Requests a key is given at most in a minute: inside the contract's 240 with room for the window edges. */
const PER_KEY_PER_MINUTE = 200;
/** Read-only keys per organization for the feed poller. */
const POLL_KEYS = 12;
/**
 * Where ClickHouse runs in processes mode: `embedded` (default) inside one `api,materializer`
 * process; `host` in a `clickhouse` role process of its own, the API and the materializer each in
 * their own process reaching it over HTTP (CLICKHOUSE_URL). docs/performance.md, ninth pass,
 * compares the two.
 */
const CLICKHOUSE_LAYOUT = process.env['BENCH_CLICKHOUSE'] ?? 'embedded';
if (CLICKHOUSE_LAYOUT !== 'host' && CLICKHOUSE_LAYOUT !== 'embedded') throw new Error(`BENCH_CLICKHOUSE: host or embedded, got ${CLICKHOUSE_LAYOUT}`);
// The feed's visibility lag (about 2 s in the contract) is set to 0 so the end point is the
// pipeline's; the API rate limit stays the contract's (240 a minute per key).
const ENV = { TDX_FEED_VISIBILITY_LAG_MS: '0', TDX_LOG_VISIBILITY_LAG_MS: '500', TDX_MAX_SUBMISSION_BYTES: String(Math.max(100, BIG_MB * 2) * 1024 * 1024) };

const out = (line: string): void => console.log(line);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const keysFor = (requests: number): number => Math.max(1, Math.ceil(requests / PER_KEY_PER_MINUTE));
const warnings: string[] = [];

// ---------------------------------------------------------------------------------------------
// configuration

const demo = parse(readFileSync(path.join(root, 'deploy/demo/config.yaml'), 'utf8')) as ConfigDocument;
const envelopes = [
  { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
  { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
];
const po850Impl = { name: 'po-850', version: '1', status: 'published' as const, transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } };
const inbound850 = [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound' as const, usageIndicator: 'P' as const, implementation: 'po-850' }];

function pollingDoc(): ConfigDocument {
  return { envelopes, implementations: [po850Impl], partners: [{ key: 'GLOBEX', name: 'Globex', deliveryMethod: 'polling', generateAcknowledgments: false, trackAcknowledgments: false, envelopes: { internal: 'us', external: 'them' }, transactionSets: inbound850 }] };
}
function webhookDoc(url: string): ConfigDocument {
  return {
    envelopes,
    webhooks: [{ name: 'in', kind: 'standard', url: `${url}/in`, contentType: 'application/json', signingSecret: SECRET }],
    implementations: [po850Impl],
    partners: [{ key: 'HOOK', name: 'Hook', deliveryMethod: 'webhook', generateAcknowledgments: false, envelopes: { internal: 'us', external: 'them' }, webhooks: { inbound: 'in' }, transactionSets: inbound850 }],
  };
}
function mixDoc(dir: string): ConfigDocument {
  const s = sftpEnv();
  const invoices: PartnerDoc = {
    key: 'INV',
    name: 'Invoiced',
    deliveryMethod: 'polling',
    generateAcknowledgments: false,
    trackAcknowledgments: true,
    connection: 'inv-sftp',
    frequency: 0,
    envelopes: { internal: 'us', external: 'them' },
    transactionSets: [{ transactionSetIdentifier: '810', release: '004010', direction: 'outbound', usageIndicator: 'P', implementation: 'demo-810-outbound', mapping: 'demo-erp-to-810' }],
  };
  return {
    envelopes,
    connections: [{ name: 'inv-sftp', kind: 'sftp', host: s.host, port: s.port, username: s.username, privateKey: readFileSync(s.keyPath, 'utf8'), inboundDirectory: posix.join(dir, 'in'), outboundDirectory: dir }],
    sources: demo.sources!.filter((x) => x.name === 'erp-invoice'),
    implementations: [po850Impl, demo.implementations!.find((i) => i.name === 'demo-810-outbound')!],
    mappings: demo.mappings!.filter((m) => m.name === 'demo-erp-to-810'),
    partners: [pollingDoc().partners![0]!, invoices],
  };
}
function sftpEnv(): { host: string; port: number; username: string; keyPath: string; root: string } {
  const e = process.env;
  if (!e['SFTP_HOST'] || !e['SFTP_PRIVATE_KEY_PATH'] || !e['SFTP_ROOT']) throw new Error('the mix scenario needs SFTP_HOST, SFTP_PORT, SFTP_USERNAME, SFTP_PRIVATE_KEY_PATH and SFTP_ROOT (the native stack env)');
  return { host: e['SFTP_HOST'], port: Number(e['SFTP_PORT'] ?? 22), username: e['SFTP_USERNAME'] ?? 'root', keyPath: e['SFTP_PRIVATE_KEY_PATH'], root: e['SFTP_ROOT'] };
}

// ---------------------------------------------------------------------------------------------
// the load generator

interface LoadGen {
  readonly pid: number;
  readonly webhookUrl: string;
  run<T>(op: string, args: unknown): Promise<T>;
  stop(): Promise<void>;
}

async function startLoadGen(): Promise<LoadGen> {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_WEBHOOK_SECRET: SECRET };
  delete env['NODE_OPTIONS'];
  const child = fork(path.join(root, 'bench/pipeline/loadgen.ts'), [], { cwd: root, env, execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  let nextId = 0;
  const webhookUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the load generator did not start in 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`the load generator exited with ${code}`)));
    child.on('message', (m: { ready?: boolean; webhookUrl?: string; id?: number; ok?: boolean; value?: unknown; error?: string }) => {
      if (m.ready) {
        clearTimeout(timer);
        return resolve(m.webhookUrl!);
      }
      const w = waiting.get(m.id!);
      waiting.delete(m.id!);
      if (m.ok) w?.ok(m.value);
      else w?.fail(new Error(`load generator: ${m.error}`));
    });
  });
  child.on('exit', (code) => {
    for (const w of waiting.values()) w.fail(new Error(`the load generator exited with ${code}`));
    waiting.clear();
  });
  return {
    pid: child.pid!,
    webhookUrl,
    run: <T>(op: string, args: unknown) =>
      new Promise<T>((ok, fail) => {
        const id = ++nextId;
        waiting.set(id, { ok: ok as (v: unknown) => void, fail });
        child.send({ id, op, args });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => (clearTimeout(t), resolve()));
        child.disconnect();
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// stack

interface Tenant {
  readonly org: string;
  /** Standard keys the submissions rotate over. */
  readonly keys: readonly string[];
  /** Read-only keys the feed poller rotates over. */
  readonly pollKeys: readonly string[];
}

interface Stack {
  readonly mode: string;
  readonly iso: Isolated;
  readonly url: string;
  /** The orchestrator's own store access; ClickHouse only outside processes mode (chDB belongs to the API process there). */
  readonly reader: Resources;
  readonly procs: Watched[];
  readonly children: ChildProcess[];
  readonly admin: Admin;
  readonly tenants: Map<string, Tenant>;
  readonly gen: LoadGen;
  readonly mixDir: string;
  readonly stopService?: () => Promise<void>;
}

/** Every role process spawned: killed when the bench exits, also when it fails half-way (a role that did not start leaves the others running otherwise). */
const spawned = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Spawns `tdx <args>` with the isolated configuration; resolves with the child once `ready` says so from its stdout. */
function spawnTdx(iso: Isolated, args: string[], what: string, ready: (stdout: string) => boolean, timeoutMs = 180_000, extraEnv: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...iso.env, ...ENV, ...extraEnv, TDX_LOG_FORMAT: 'json', TDX_LOG_LEVEL: 'info' };
  delete env['NODE_OPTIONS'];
  const profDir = process.env['BENCH_CPU_PROF_DIR'];
  const profile = profDir && args[0] === 'start' && (process.env['BENCH_CPU_PROF_ROLES'] ?? 'node:x12_split').split(';').includes(args[2] ?? '') ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  // role processes run with the service's Node flags (deploy/service-node-flags), as deploy/start.sh runs them
  const flags = args[0] === 'start' ? serviceNodeFlags() : [];
  const child = spawn(process.execPath, [...flags, ...profile, 'bin/tdx.mjs', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  spawned.add(child);
  child.once('exit', () => spawned.delete(child));
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  return new Promise<ChildProcess>((resolve, reject) => {
    let buf = '';
    let done = false;
    const timer = setTimeout(() => reject(new Error(`${what} did not start in ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('exit', (code) => {
      if (!done) reject(new Error(`${what} exited with ${code}: ${err}${buf.slice(-2000)}`));
    });
    child.stdout.on('data', (d: Buffer) => {
      if (done) return;
      buf += d.toString();
      if (ready(buf)) {
        done = true;
        clearTimeout(timer);
        resolve(child);
      } else if (buf.length > 1e6) buf = buf.slice(-100_000);
    });
  });
}

/** Runs `tdx <args>` to its end; fails unless it exits with 0. */
function runTdx(iso: Isolated, args: string[]): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...iso.env, ...ENV };
  delete env['NODE_OPTIONS'];
  const child = spawn(process.execPath, ['bin/tdx.mjs', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const keep = (d: Buffer): void => void (text = (text + d.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise<void>((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tdx ${args.join(' ')} exited with ${code}: ${text}`)))));
}

/** Runs a role process until its roles have started; the API's URL when it has the API, the ClickHouse host's when it is one. */
async function startRoleProcess(iso: Isolated, roles: string, env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url?: string; clickhouseUrl?: string }> {
  const n = roles.split(',').length;
  let url: string | undefined;
  let clickhouseUrl: string | undefined;
  const child = await spawnTdx(iso, ['start', '--role', roles], roles, (text) => {
    const port = /listening on http:\/\/[^:]+:(\d+)/.exec(text)?.[1];
    if (port) url = `http://127.0.0.1:${port}`;
    const chPort = /ClickHouse \(embedded[^)]*\) on http:\/\/[^:]+:(\d+)\//.exec(text)?.[1];
    if (chPort) clickhouseUrl = `http://127.0.0.1:${chPort}`;
    return (text.match(/"role:started"/g) ?? []).length >= n;
  }, 180_000, env);
  return { child, ...(url ? { url } : {}), ...(clickhouseUrl ? { clickhouseUrl } : {}) };
}

async function startStack(mode: string): Promise<Stack> {
  const gen = await startLoadGen();
  const iso = isolatedConfig({ TDX_API_PORT: '0', ...ENV });
  // provisioning in a process of its own: the embedded ClickHouse's folder then belongs to the API
  await runTdx(iso, ['migrate']);
  const logger = createLogger({ ...iso.config, logLevel: 'silent' });
  const reader = new Resources(iso.config, logger);
  const client = await reader.cassandra();
  const orgs = new CassandraOrganizationStore(client);
  const adminStore = new CassandraConfigAdminStore(client, iso.config.secrets.keyring);
  const tenant = async (name: string, doc: ConfigDocument, keys: number): Promise<Tenant> => {
    const id = (await createOrganization(orgs, `bench ${name}`)).id;
    await applyConfig(orgs, adminStore, id, doc, x12ImplementationEngine, { author: 'bench' });
    const make = async (kind: 'standard' | 'read-only', n: number): Promise<string[]> => {
      const list: string[] = [];
      for (let i = 0; i < n; i += 16) list.push(...(await Promise.all(Array.from({ length: Math.min(16, n - i) }, async () => (await createApiKey(orgs, id, kind, `bench ${name}`)).key))));
      return list;
    };
    return { org: id, keys: await make('standard', keys), pollKeys: await make('read-only', POLL_KEYS) };
  };
  const sftpDir = `bench-${Date.now().toString(36)}`;
  const tenants = new Map<string, Tenant>();
  tenants.set('warm', await tenant('warm', pollingDoc(), 1));
  if (SCENARIOS.has('single')) tenants.set('single', await tenant('single', pollingDoc(), keysFor(Math.min(SINGLES, SINGLES_RATE * 60))));
  for (const name of ['interchange', 'linear', 'big']) if (SCENARIOS.has(name)) tenants.set(name, await tenant(name, pollingDoc(), 1));
  if (SCENARIOS.has('webhook')) tenants.set('webhook', await tenant('webhook', webhookDoc(gen.webhookUrl), keysFor(WEBHOOK_SINGLES + 1)));
  if (SCENARIOS.has('idle')) tenants.set('idle', await tenant('idle', webhookDoc(gen.webhookUrl), keysFor(IDLE)));
  if (SCENARIOS.has('mix')) {
    const sftp = sftpEnv();
    mkdirSync(path.join(sftp.root, sftpDir, 'in'), { recursive: true });
    tenants.set('mix', await tenant('mix', mixDoc(sftpDir), keysFor(MIX * 2)));
  }
  const kafka = createKafka(iso.config, logger, '-bench');
  const admin = kafka.admin();
  await admin.connect();

  const procs: Watched[] = [];
  const children: ChildProcess[] = [];
  let url = '';
  let stopService: (() => Promise<void>) | undefined;
  if (mode === 'processes') {
    let env: NodeJS.ProcessEnv = {};
    if (CLICKHOUSE_LAYOUT === 'host') {
      const host = await startRoleProcess(iso, 'clickhouse', { TDX_CLICKHOUSE_PORT: '0' });
      children.push(host.child);
      procs.push({ name: 'clickhouse', pid: host.child.pid!, kind: 'service' });
      if (!host.clickhouseUrl) throw new Error('the clickhouse role did not say where it listens');
      env = { CLICKHOUSE_URL: host.clickhouseUrl };
    }
    const roles = [...(CLICKHOUSE_LAYOUT === 'host' ? ['api', 'materializer'] : ['api,materializer']), ...NODE_SERVICES.map((n) => `node:${n}`), 'scheduler'];
    const started = await Promise.all(roles.map((r) => startRoleProcess(iso, r, env)));
    started.forEach((s, i) => {
      children.push(s.child);
      procs.push({ name: roles[i] === 'api,materializer' ? 'api+materializer' : roles[i]!, pid: s.child.pid!, kind: 'service' });
      if (s.url) url = s.url;
    });
    procs.push({ name: 'bench orchestrator', pid: process.pid, kind: 'bench' });
  } else {
    let printed = '';
    stopService = await startService(iso.config, logger, parseRoles('all'), { write: (t: string) => void (printed += t) });
    const port = /listening on http:\/\/[^:]+:(\d+)/.exec(printed)?.[1];
    url = `http://127.0.0.1:${port}`;
    procs.push({ name: 'node (all roles, and the bench orchestrator)', pid: process.pid, kind: 'service' });
    if (mode === 'count') countClickHouse((await reader.clickhouse()).client);
  }
  if (!url) throw new Error('the API did not say where it listens');
  procs.push({ name: 'load generator', pid: gen.pid, kind: 'bench' });
  const port = (v: string | undefined, d: number): number => Number((v ?? '').split(',')[0]!.split(':').pop() || d);
  const stores: [string, number | undefined][] = [
    ['kafka', listenerPid(port(process.env['KAFKA_BROKERS'], 9092))],
    ['cassandra', listenerPid(port(process.env['CASSANDRA_CONTACT_POINTS'], 9042))],
    ['schema registry', listenerPid(Number(/:(\d+)/.exec(process.env['SCHEMA_REGISTRY_URL'] ?? '')?.[1] ?? 8081))],
  ];
  for (const [name, pid] of stores) if (pid) procs.push({ name, pid, kind: 'store' });
  return { mode, iso, url, reader, procs, children, admin, tenants, gen, mixDir: sftpDir, ...(stopService ? { stopService } : {}) };
}

async function stopStack(s: Stack): Promise<void> {
  await s.gen.stop();
  await Promise.all(
    s.children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const t = setTimeout(() => c.kill('SIGKILL'), 15_000);
          c.once('exit', () => (clearTimeout(t), resolve()));
          c.kill('SIGTERM');
        }),
    ),
  );
  await s.stopService?.();
  await s.admin.disconnect();
  await s.reader.close();
  await s.iso.cleanup();
  if (SCENARIOS.has('mix')) rmSync(path.join(sftpEnv().root, s.mixDir), { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// observation

/** Messages in the run's topics (sum of high-water marks), by topic without prefix. */
async function topicOffsets(s: Stack): Promise<Map<string, number>> {
  const prefix = s.iso.config.kafka.topicPrefix;
  const names = (await s.admin.listTopics()).filter((t) => t.startsWith(prefix) && !t.includes('bench.ceiling'));
  const m = new Map<string, number>();
  for (const t of names) {
    const offs = await s.admin.fetchTopicOffsets(t);
    m.set(t.slice(prefix.length), offs.reduce((n, o) => n + Number(o.high), 0));
  }
  return m;
}

interface Figures {
  readonly label: string;
  readonly sets: number;
  /** First submission to the last end point (entry readable, or webhook call). */
  readonly seconds: number;
  /** Per set, submission to its end point (ms). */
  readonly latencies: readonly number[];
  /** What `latencies` measure up to. */
  readonly endPoint: string;
  /** Per set, submission to its feed entry's `createdAt` (ms), when the end point is not that. */
  readonly createdLatencies?: readonly number[];
  readonly extra?: string;
  /** Values for the summary line. */
  readonly summary?: Record<string, number>;
}

interface Measured extends Figures {
  readonly name: string;
  /** Wall time the processes were watched (the scenario and the settling second after it). */
  readonly wallSeconds: number;
  readonly usage: Usage[];
  readonly counts?: Counts;
  readonly writes?: RecordedWrite[];
  readonly kafka: Map<string, number>;
}

function loadCheck(mode: string, name: string): void {
  const l1 = loadavg()[0]!;
  if (l1 <= LOAD_WARN) return;
  const w = `WARNING: [${mode}] ${name} started with a 1-minute load average of ${l1.toFixed(2)} (over ${LOAD_WARN}): something else is using the machine; these figures are not the pipeline's own`;
  warnings.push(w);
  out(`\n${'!'.repeat(100)}\n!!! ${w}\n${'!'.repeat(100)}`);
}

/** Waits up to BENCH_SETTLE_S for the 1-minute load average to come down to LOAD_WARN (the previous scenario's, or the start-up's, load lingers in it), then as long again at most for the pipeline's processes and stores to go quiet. */
async function settle(s: Stack): Promise<void> {
  const t0 = Date.now();
  while (loadavg()[0]! > LOAD_WARN && Date.now() - t0 < SETTLE_S * 1000) await sleep(2000);
  if (Date.now() - t0 > 1000) out(`  (waited ${Math.round((Date.now() - t0) / 1000)} s for the load average to settle)`);
  // work a scenario before left in flight (an open loop offered more than the pipeline took,
  // ClickHouse merges, compaction) is not charged to the next one
  const q0 = Date.now();
  const pipeline = s.procs.filter((p) => p.kind !== 'bench');
  const busy = (): number => pipeline.reduce((sum, p) => sum + (cpuSeconds(p.pid) ?? 0), 0);
  let cores = Infinity;
  while (Date.now() - q0 < SETTLE_S * 1000) {
    const before = busy();
    await sleep(QUIET_WINDOW_MS);
    cores = (busy() - before) / (QUIET_WINDOW_MS / 1000);
    if (cores <= QUIET_CORES) break;
  }
  if (Date.now() - q0 > QUIET_WINDOW_MS + 500) out(`  (waited ${Math.round((Date.now() - q0) / 1000)} s for the pipeline to go quiet: ${cores.toFixed(2)} cores busy over the last ${QUIET_WINDOW_MS / 1000} s)`);
}

/** Runs one scenario with the processes watched, the load printed and (count mode) the work counted. */
async function measure(s: Stack, name: string, run: () => Promise<Figures>): Promise<Measured> {
  await settle(s);
  out(`\n[${s.mode}] ${name}: load average before ${load()}`);
  loadCheck(s.mode, name);
  const before = await topicOffsets(s);
  const counting = s.mode === 'count';
  if (counting) resetCounters(name === 'interchange');
  const cassandra = CASSANDRA_COUNTS ? { client: await s.reader.cassandra(), keyspace: s.iso.config.cassandra.keyspace } : undefined;
  const cassandraBefore = cassandra ? await cassandraCounts(cassandra.client, cassandra.keyspace) : undefined;
  const overflowsBefore = listenOverflows();
  const w = watch(s.procs);
  const watchedFrom = performance.now();
  const profiling = s.mode === 'inprocess' && process.env['BENCH_PROFILE'] ? await startProfile() : undefined;
  let fig: Figures;
  try {
    fig = await run();
  } finally {
    // settle: the last feed entry is written before the materializer's other inserts finish
    await sleep(1000);
  }
  const usage = w.stop();
  const wallSeconds = (performance.now() - watchedFrom) / 1000;
  if (profiling) out(`  CPU profile of this process during the scenario: ${await profiling(`${s.mode}-${name}`)}`);
  const taken = counting ? takeCounters() : undefined;
  const after = await topicOffsets(s);
  const kafka = new Map<string, number>();
  for (const [t, n] of after) if (n - (before.get(t) ?? 0) > 0) kafka.set(t, n - (before.get(t) ?? 0));
  const m: Measured = { ...fig, name, wallSeconds, usage, kafka, ...(taken ? { counts: taken.counts, writes: taken.writes } : {}) };
  report(s, m);
  const overflowsAfter = listenOverflows();
  if (overflowsBefore !== undefined && overflowsAfter !== undefined && overflowsAfter > overflowsBefore)
    out(`  connections dropped by a full accept queue (the kernel's ListenOverflows, every listening socket): ${overflowsAfter - overflowsBefore}`);
  if (cassandra && cassandraBefore) out(`  Cassandra's own counts per set (reads, writes and scans by table, tasks by thread pool): ${countsPerSet(cassandraBefore, await cassandraCounts(cassandra.client, cassandra.keyspace), m.sets)}`);
  out(`[${s.mode}] ${name}: load average after ${load()}`);
  return m;
}

/** Starts the V8 profiler of this process (BENCH_PROFILE: the folder); the function stops it and writes the profile. */
async function startProfile(): Promise<(name: string) => Promise<string>> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object): Promise<unknown> => new Promise((ok, fail) => session.post(method, params ?? {}, (err, r) => (err ? fail(err) : ok(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 1000 });
  await post('Profiler.start');
  return async (name) => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    session.disconnect();
    const dir = process.env['BENCH_PROFILE']!;
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    return file;
  };
}

const results: { mode: string; m: Measured }[] = [];
const ms = (v: number): string => `${Math.round(v)} ms`;

/** CPU seconds of the pipeline: every service and store process, never the load generator or (processes mode) the orchestrator. */
const pipelineCpu = (m: Measured): number => m.usage.filter((u) => u.kind !== 'bench').reduce((n, u) => n + u.cpuSeconds, 0);

function report(s: Stack, m: Measured): void {
  results.push({ mode: s.mode, m });
  const per = (cpu: number): string => ((cpu / Math.max(1, m.sets)) * 1000).toFixed(2);
  if (s.mode === 'count') out(`  ${m.label} (counting pass: the counters slow the pipeline, so its times are not measurements)`);
  else {
    out(`  ${m.label}: ${(m.sets / m.seconds).toFixed(1)} sets/s (${m.sets} sets in ${m.seconds.toFixed(2)} s, end point: ${m.endPoint})`);
    out(`  latency to ${m.endPoint}: p50 ${ms(pct(m.latencies, 50))}, p99 ${ms(pct(m.latencies, 99))}, max ${ms(Math.max(...m.latencies))}`);
    if (m.createdLatencies) out(`  latency to the entry's createdAt: p50 ${ms(pct(m.createdLatencies, 50))}, p99 ${ms(pct(m.createdLatencies, 99))}, max ${ms(Math.max(...m.createdLatencies))}`);
  }
  if (m.extra) out(`  ${m.extra}`);
  const byKind = (k: Watched['kind']): Usage[] => m.usage.filter((u) => u.kind === k);
  out(`  CPU s per 1,000 sets and peak RSS: ${m.usage.map((u) => `${u.name} ${per(u.cpuSeconds)} s ${Math.round(u.peakRssMb)} MB`).join('; ')}`);
  const node = byKind('service').reduce((n, u) => n + u.cpuSeconds, 0);
  const all = pipelineCpu(m);
  const bench = byKind('bench').reduce((n, u) => n + u.cpuSeconds, 0);
  out(`  CPU seconds per 1,000 sets, pipeline (Node processes ${per(node)} s + stores) ${per(all)} s, ${(all / m.wallSeconds).toFixed(2)} cores busy on average over ${m.wallSeconds.toFixed(1)} s; not charged: ${byKind('bench').map((u) => `${u.name} ${per(u.cpuSeconds)} s`).join(', ')} (${(bench / m.wallSeconds).toFixed(2)} cores)`);
  const over = byKind('service').filter((u) => u.peakRssMb > 512);
  out(`  peak RSS over 512 MB: ${over.length === 0 ? 'none of the Node processes' : over.map((u) => `${u.name} ${Math.round(u.peakRssMb)} MB`).join(', ')}`);
  const msgs = [...m.kafka.values()].reduce((a, b) => a + b, 0);
  out(`  Kafka messages per set ${(msgs / Math.max(1, m.sets)).toFixed(2)} (${[...m.kafka].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${n}`).join(', ')})`);
  const c = m.counts;
  if (c) {
    const f = (v: number): string => (v / Math.max(1, m.sets)).toFixed(2);
    out(
      `  per set: Cassandra statements ${f(c.cassandraStatements)} (writes ${f(c.cassandraWrites)}, batches ${f(c.cassandraBatches)}), Kafka records sent ${f(c.kafkaRecords)} in ${f(c.kafkaProduceRequests)} produce requests, Avro encodes ${f(c.avroEncodes)} decodes ${f(c.avroDecodes)}, ClickHouse inserts ${f(c.clickhouseInserts)} (${f(c.clickhouseRows)} rows) queries ${f(c.clickhouseQueries)}, JSON.parse ${f(c.jsonParses)} JSON.stringify ${f(c.jsonStringifies)} (ClickHouse queries and JSON calls include the API answering the load generator's feed polls)`,
    );
    out(`  ClickHouse inserts by table (in all, not per set): ${[...c.clickhouseByTable].sort((a, b) => b[1].rows - a[1].rows).map(([t, v]) => `${t} ${v.inserts} inserts, ${v.rows} rows (${(v.rows / Math.max(1, v.inserts)).toFixed(0)} an insert)`).join('; ')}`);
    out(`  Kafka requests per set by API: ${[...c.kafkaRequests].sort((a, b) => b[1] - a[1]).map(([q, n]) => `${q} ${f(n)}`).join('; ')}`);
    out(`  Cassandra statements per set by statement: ${[...c.byStatement].sort((a, b) => b[1] - a[1]).map(([q, n]) => `${q} ${f(n)}`).join('; ')}`);
  }
}

// ---------------------------------------------------------------------------------------------
// scenarios

const feedLine = (f: FeedStats): string => `${f.requests} feed requests${f.failures ? ` (${f.failures} failed and retried, ${f.refused} of them refused with 429)` : ''}`;
const tenantOf = (s: Stack, name: string): Tenant => s.tenants.get(name)!;
const successes = (entries: readonly SeenEntry[]): SeenEntry[] => entries.filter((e) => e.status === 'success');

async function interchangeRun(s: Stack, label: string, name: string, sets: number, lines = 3, tag = 'B'): Promise<Figures> {
  const t = tenantOf(s, name);
  const args: InterchangeArgs = { url: s.url, key: t.keys[0]!, pollKeys: t.pollKeys, pollMs: POLL_MS, partner: 'GLOBEX', sets, lines, tag, timeoutMs: TIMEOUT_MS };
  const v = await s.gen.run<InterchangeValue>('interchange', args);
  const ok = successes(v.entries);
  const last = Math.max(...ok.map((e) => e.readableAt));
  const lastCreated = Math.max(...ok.map((e) => e.createdAt));
  const seconds = (last - v.t0) / 1000;
  const errors = v.entries.length - ok.length;
  return {
    label,
    sets: ok.length,
    seconds,
    latencies: ok.map((e) => e.readableAt - v.t0),
    endPoint: 'the entry readable on GET /platform/feed_entries',
    createdLatencies: ok.map((e) => e.createdAt - v.t0),
    extra: `${(v.bytes / 1e6).toFixed(2)} MB, accepted in ${v.acceptedMs} ms; last createdAt ${((lastCreated - v.t0) / 1000).toFixed(2)} s after submission (${(ok.length / ((lastCreated - v.t0) / 1000)).toFixed(1)} sets/s to createdAt); ${feedLine(v.feed)}${errors ? `; ${errors} ERROR entries` : ''}${
      s.mode === 'processes' ? '' : `\n  ${await stageTimeline(s, t.org, v.t0)}`
    }`,
    summary: { sets_per_s: ok.length / seconds },
  };
}

async function openSingles(s: Stack): Promise<Figures> {
  const t = tenantOf(s, 'single');
  const args: OpenArgs = { url: s.url, keys: t.keys, pollKeys: t.pollKeys, pollMs: POLL_MS, partner: 'GLOBEX', rate: SINGLES_RATE, count: SINGLES, maxInFlight: MAX_IN_FLIGHT, timeoutMs: TIMEOUT_MS };
  const v = await s.gen.run<OpenValue>('open', args);
  const subs = v.submissions;
  const t0 = Math.min(...subs.map((x) => x.sentAt));
  const acc = subs.filter((x) => x.trace);
  const sentAt = new Map(acc.map((x) => [x.trace!, x.sentAt]));
  const ok = successes(v.entries).filter((e) => sentAt.has(e.trace));
  const refused = subs.filter((x) => x.status === 429).length;
  const failed = subs.length - acc.length - refused;
  const lastAnswer = Math.max(...acc.map((x) => x.answeredAt));
  const last = Math.max(...ok.map((e) => e.readableAt));
  const seconds = (last - t0) / 1000;
  const delivered = ok.length / seconds;
  const lat = ok.map((e) => e.readableAt - sentAt.get(e.trace)!);
  const created = ok.map((e) => e.createdAt - sentAt.get(e.trace)!);
  const offered = (v.submissions.length / Math.max(0.001, (v.lastSendAt - v.firstSendAt) / 1000)).toFixed(1);
  const perKey = Math.ceil(Math.min(SINGLES, SINGLES_RATE * 60) / t.keys.length);
  return {
    label: `(a) open loop, single-set 850 interchanges offered at ${SINGLES_RATE}/s for ${SINGLES_SECONDS} s (${SINGLES}), polling partner`,
    sets: ok.length,
    seconds,
    latencies: lat,
    endPoint: 'the entry readable on GET /platform/feed_entries',
    createdLatencies: created,
    extra: [
      `offered ${offered}/s achieved (${v.submissions.length} sent${v.skipped ? `, ${v.skipped} not sent: ${MAX_IN_FLIGHT} submissions were outstanding` : ''}); accepted (202) ${acc.length} = ${(acc.length / ((lastAnswer - t0) / 1000)).toFixed(1)}/s; refused 429 ${refused}; failed ${failed}${v.errors.length ? ` (${v.errors.join(' | ')})` : ''}`,
      `delivered ${ok.length} = ${delivered.toFixed(1)}/s (first due submission to last entry readable); latencies from each submission's due time (open loop)`,
      `API keys: ${t.keys.length} standard keys in rotation, at most ${perKey} submissions each per minute, inside the contract's 240 requests a minute per key (the limit is not lifted); feed polled with ${t.pollKeys.length} read-only keys: ${feedLine(v.feed)}`,
    ].join('\n  '),
    summary: { singles_per_s: delivered, singles_p99_ms: pct(created, 99) },
  };
}

async function idleRun(s: Stack): Promise<Figures> {
  const t = tenantOf(s, 'idle');
  const args: IdleArgs = { url: s.url, key: t.keys[0]!, pollKeys: t.pollKeys, pollMs: IDLE_POLL_MS, partner: 'HOOK', count: IDLE, pauseMs: IDLE_PAUSE_MS, webhookPath: '/in', timeoutMs: TIMEOUT_MS };
  const t0 = Date.now();
  const v = await s.gen.run<IdleValue>('idle', args);
  const created = v.items.map((i) => i.createdAt - i.sentAt);
  const readable = v.items.map((i) => i.readableAt - i.sentAt);
  const hook = v.items.map((i) => i.webhookAt - i.sentAt).filter((x) => Number.isFinite(x));
  const line = (what: string, xs: readonly number[]): string => `${what} p50 ${ms(pct(xs, 50))}, p99 ${ms(pct(xs, 99))}, max ${ms(Math.max(...xs))}`;
  return {
    label: `(d) ${IDLE} single-set 850 interchanges one at a time on an idle pipeline (${IDLE_PAUSE_MS} ms apart), webhook partner`,
    sets: v.items.length,
    seconds: (Date.now() - t0) / 1000,
    latencies: hook,
    endPoint: 'the webhook call',
    createdLatencies: created,
    extra: `${line('to createdAt', created)}; ${line('to readable on the feed', readable)} (polled every ${IDLE_POLL_MS} ms at most); ${line('to the webhook call', hook)}`,
    summary: { idle_p99_ms: pct(created, 99) },
  };
}

async function webhookRun(s: Stack, label: string, count: number, sets?: number): Promise<Figures> {
  const t = tenantOf(s, 'webhook');
  const args: ClosedArgs = { url: s.url, keys: t.keys, partner: 'HOOK', count, concurrency: CONCURRENCY, webhookPath: '/in', timeoutMs: TIMEOUT_MS, ...(sets ? { sets } : {}) };
  const v = await s.gen.run<ClosedValue>('closed', args);
  const last = Math.max(...v.calls.map((c) => c.at));
  return {
    label,
    sets: v.calls.length,
    seconds: (last - v.t0) / 1000,
    latencies: v.calls.map((c) => c.at - (v.started[c.trace] ?? v.t0)),
    endPoint: 'the webhook call',
    ...(sets ? {} : { extra: `closed loop, ${CONCURRENCY} submissions in flight over ${t.keys.length} keys` }),
  };
}

async function mixRun(s: Stack): Promise<Figures> {
  const t = tenantOf(s, 'mix');
  const args: MixArgs = { url: s.url, keys: t.keys, pollKeys: t.pollKeys, pollMs: POLL_MS, count: MIX, concurrency: CONCURRENCY, sftpDir: path.join(sftpEnv().root, s.mixDir), timeoutMs: TIMEOUT_MS };
  const v = await s.gen.run<MixValue>('mix', args);
  const ok = successes(v.entries).filter((e) => v.started[e.trace] !== undefined);
  return {
    label: `mix of ${v.n850} single-set 850s, ${v.n810} outbound 810s and ${v.acks} partner 997s`,
    sets: v.n850 + v.n810 + v.acks,
    seconds: (v.endAt - v.t0) / 1000,
    latencies: ok.map((e) => e.readableAt - v.started[e.trace]!),
    endPoint: 'every 850 entry readable and every 810 acknowledged (latencies: the 850s)',
    createdLatencies: ok.map((e) => e.createdAt - v.started[e.trace]!),
  };
}

/**
 * When each stage took its work up: the step clocks of the trace's results by service (a
 * batch's items share the clock of the batch's start), and the feed entries' times, in seconds
 * after the submission started. A stage whose start lags the one before it by much is where
 * the sets wait. In-process modes only (processes mode: the embedded ClickHouse belongs to the
 * API process).
 */
async function stageTimeline(s: Stack, org: string, t0: number): Promise<string> {
  const ch = await s.reader.clickhouse();
  const q = async (table: string, by: string): Promise<{ k: string; n: string; a: string; m: string; z: string }[]> =>
    (
      await ch.client.query({
        query: `SELECT ${by} AS k, count() AS n, min(created_at) AS a, quantileExact(0.5)(created_at) AS m, max(created_at) AS z FROM ${qualify(ch.database, table)} FINAL WHERE org_id = {org:String} GROUP BY k ORDER BY a`,
        query_params: { org },
        format: 'JSONEachRow',
      })
    ).json();
  const rows = [...(await q('results', 'service')), ...(await q('feed_entries', "'feed entries'"))];
  const sec = (v: string): string => ((fromChTime(v) / 1000 - t0) / 1000).toFixed(1);
  return `stages (s after submission: first, median, last step clock): ${rows.map((r) => `${r.k} ${r.n}: ${sec(r.a)}, ${sec(r.m)}, ${sec(r.z)}`).join('; ')}`;
}

/**
 * The stores alone, and the ceiling they put on the pipeline: the three share the two cores,
 * so a set costs the sum of its per-set times in each, and the ceiling is 1 / (1/kafka +
 * 1/cassandra + 1/clickhouse) sets/s, not the slowest store alone.
 */
async function ceilings(s: Stack, b: Measured): Promise<void> {
  await settle(s);
  out(`\n[${s.mode}] ceilings for the ${b.sets}-set interchange: load average before ${load()}`);
  loadCheck(s.mode, 'ceilings');
  const cfg = s.iso.config;
  const msgs = [...b.kafka.values()].reduce((a, v) => a + v, 0);
  const bytes = b.counts && b.counts.kafkaRecords > 0 ? kafkaBytesSeen / b.counts.kafkaRecords : 400;
  const kafka = createKafka(cfg, createLogger({ ...cfg, logLevel: 'silent' }), '-bench-ceiling');
  const list: Ceiling[] = [];
  list.push(await kafkaCeiling(kafka, cfg, msgs, bytes, 1));
  list.push(await cassandraCeiling(await s.reader.cassandra(), b.writes ?? []));
  list.push(await clickhouseCeiling(await s.reader.clickhouse(), tenantOf(s, 'interchange').org, cfg.materializer.maxBatchRows));
  let perSet = 0;
  for (const c of list) {
    const setsPerSecond = b.sets / c.seconds;
    perSet += c.seconds / b.sets;
    out(`  ${c.what}: ${c.seconds.toFixed(2)} s, ${Math.round(c.units / c.seconds)}/s = ${setsPerSecond.toFixed(0)} sets/s alone`);
  }
  const ceiling = 1 / perSet;
  const timed = results.find((r) => r.m.name === 'interchange' && r.mode === 'processes') ?? results.find((r) => r.m.name === 'interchange' && r.mode === 'inprocess');
  out(`  ceiling on the shared cores: 1 / (${list.map((c) => `1/${(b.sets / c.seconds).toFixed(0)}`).join(' + ')}) = ${ceiling.toFixed(0)} sets/s (${(perSet * 1e6).toFixed(0)} µs of store time per set)`);
  if (timed) out(`  the timed (b) of ${timed.mode} mode: ${(timed.m.sets / timed.m.seconds).toFixed(1)} sets/s = ${((100 * timed.m.sets) / timed.m.seconds / ceiling).toFixed(1)}% of that ceiling`);
  out(`  load average after ${load()}`);
}
let kafkaBytesSeen = 0;

async function installCounting(): Promise<void> {
  installCounters();
  const { BatchingProducer } = await import('../../src/adapters/kafka/client.ts');
  const P = BatchingProducer.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const send = P['send']!;
  P['send'] = function (this: unknown, ...args: unknown[]) {
    for (const r of args[0] as { value: Buffer }[]) kafkaBytesSeen += r.value.length;
    return send.apply(this, args);
  };
}

// ---------------------------------------------------------------------------------------------

out(`bench:pipeline on ${cpus().length} cores, load average ${load()} (1, 5, 15 min); run it with nothing else on the machine: a loaded machine gives lower figures than the pipeline's own`);
out(
  `sizes: singles ${SINGLES_RATE}/s for ${SINGLES_SECONDS} s (${SINGLES}), interchange ${SETS} sets, idle ${IDLE}, mix ${MIX}, webhook ${WEBHOOK_SINGLES} singles / ${WEBHOOK_SETS} sets, big ${BIG_MB} MB in ${BIG_SETS} sets; modes ${MODES.join(', ')}; scenarios ${[...SCENARIOS].join(', ')}`,
);
out(`load generation (documents, HTTP submissions, feed polling, webhook receiver) runs in its own process, reported apart; API rate limit as in the contract (240 a minute per key), feed visibility lag 0`);

for (const mode of MODES) {
  if (mode === 'count') await installCounting();
  const s = await startStack(mode);
  try {
    // warm-up: connections, prepared statements, compiled plans
    const warm = tenantOf(s, 'warm');
    const warmMs = await s.gen.run<number>('warm', { url: s.url, key: warm.keys[0]!, pollKeys: warm.pollKeys, timeoutMs: 120_000 });
    out(`\n[${mode}] warm-up interchange readable on the feed after ${warmMs} ms; processes: ${s.procs.map((p) => `${p.name} (${p.pid})`).join(', ')}`);

    if (SCENARIOS.has('single')) await measure(s, 'single', () => openSingles(s));
    let b: Measured | undefined;
    if (SCENARIOS.has('interchange')) {
      kafkaBytesSeen = 0;
      b = await measure(s, 'interchange', () => interchangeRun(s, `(b) one interchange of ${SETS} 850 sets, polling partner`, 'interchange', SETS));
    }
    if (SCENARIOS.has('linear')) {
      const half = Math.max(1, Math.round(SETS / 2));
      const h = await measure(s, 'linear', () => interchangeRun(s, `one interchange of ${half} 850 sets, polling partner`, 'linear', half, 3, 'L'));
      if (b && mode !== 'count') out(`  linearity: ${b.sets} sets took ${(b.seconds / h.seconds).toFixed(2)} times as long as ${h.sets} (2.00 = linear)`);
    }
    if (SCENARIOS.has('ceilings') && b && mode === 'count') await ceilings(s, b);
    if (SCENARIOS.has('idle')) await measure(s, 'idle', () => idleRun(s));
    if (SCENARIOS.has('mix')) await measure(s, 'mix', () => mixRun(s));
    if (SCENARIOS.has('webhook')) {
      await measure(s, 'webhook-single', () => webhookRun(s, `${WEBHOOK_SINGLES} single-set 850 interchanges, webhook partner`, WEBHOOK_SINGLES));
      await measure(s, 'webhook-interchange', () => webhookRun(s, `one interchange of ${WEBHOOK_SETS} 850 sets, webhook partner`, 1, WEBHOOK_SETS));
    }
    if (SCENARIOS.has('big')) {
      // enough PO1 lines per set to make the file BIG_MB (a line's size measured on a sample)
      const sample = (lines: number): number => Buffer.byteLength(interchange({ control: 1, groups: [{ sets: [po850('G-0', lines)] }] }));
      const lines = Math.max(1, Math.ceil((BIG_MB * 1e6) / BIG_SETS / ((sample(101) - sample(1)) / 100)));
      await measure(s, 'big', () => interchangeRun(s, `a ${BIG_MB} MB interchange (${BIG_SETS} sets of ${lines} lines), polling partner`, 'big', BIG_SETS, lines, 'G'));
    }
  } finally {
    await stopStack(s);
  }
}
out(`\nload average at the end ${load()}`);
for (const w of warnings) out(`!!! ${w}`);

// the summary line, from the processes mode
const proc = results.filter((r) => r.mode === 'processes');
const pick = (name: string): Measured | undefined => proc.find((r) => r.m.name === name)?.m;
const b = pick('interchange');
const a = pick('single');
const d = pick('idle');
const maxRss = Math.max(0, ...proc.flatMap((r) => r.m.usage.filter((u) => u.kind === 'service').map((u) => u.peakRssMb)));
const missing = [...(b ? [] : ['interchange']), ...(a ? [] : ['single']), ...(d ? [] : ['idle'])];
if (missing.length > 0) out(`(the processes mode did not run ${missing.join(', ')}: their summary values are 0)`);
const n = (v: number | undefined, digits: number): string => (v === undefined || !Number.isFinite(v) ? '0' : v.toFixed(digits));
out(
  `summary interchange_sets_per_s=${n(b?.summary?.['sets_per_s'], 1)} interchange_cpu_s_per_1000=${n(b ? (pipelineCpu(b) / Math.max(1, b.sets)) * 1000 : undefined, 2)} singles_per_s=${n(a?.summary?.['singles_per_s'], 1)} singles_p99_ms=${n(a?.summary?.['singles_p99_ms'], 0)} idle_p99_ms=${n(d?.summary?.['idle_p99_ms'], 0)} max_rss_mb=${n(maxRss, 0)}`,
);
process.exit(0);
