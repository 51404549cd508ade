/**
 * `npm run bench:pipeline`: the whole pipeline on the single-node stack, measured as a partner
 * and the organization see it: from the HTTP submission to the document's feed entry (polling
 * partner) or webhook call (webhook partner).
 *
 * Modes (BENCH_MODES, default both):
 *   inprocess  every role in this process (`all`); also counts the work per set (Cassandra
 *              statements, Kafka records and produce requests, Avro passes, ClickHouse inserts,
 *              JSON calls) by wrapping the clients' prototypes (bench/pipeline/counters.ts)
 *   processes  each role in its own process (`tdx start --role node:<service>`, `scheduler`);
 *              the API and the materializer share this process, because the embedded ClickHouse
 *              (chDB) lives in the one process that owns its data folder
 *
 * Scenarios (BENCH_SCENARIOS, comma-separated, default all), sizes from the environment:
 *   single       (a) BENCH_SINGLES (2000) single-set 850 interchanges, BENCH_CONCURRENCY (32)
 *                    submissions in flight: interchanges/s accepted by the endpoint, and sets/s
 *   interchange  (b) one interchange of BENCH_SETS (20000) 850 sets
 *   linear           one interchange of BENCH_SETS/2 sets: the time ratio to (b) (2.0 is linear)
 *   mix          (c) BENCH_MIX (1000) documents: 90% single-set 850s, 10% outbound 810s (mapped,
 *                    written, uploaded by SFTP) and the partner's 997 for each
 *   webhook          (a) and (b) again for a webhook partner (a local receiver that answers 200
 *                    at once), sizes BENCH_WEBHOOK_SINGLES (BENCH_SINGLES/4) and
 *                    BENCH_WEBHOOK_SETS (BENCH_SETS/4)
 *   big              a BENCH_BIG_MB (50) MB interchange of BENCH_BIG_SETS (500) 850 sets
 *   ceilings         (in-process mode, after `interchange`) Kafka, Cassandra and ClickHouse alone
 *
 * BENCH_PROFILE=<folder>: a V8 CPU profile of this process per scenario (in-process mode);
 * summarize it with `npx tsx bench/pipeline/profile-summary.ts <file>`.
 *
 * Per scenario: sets/s sustained (first submission to last feed entry or webhook call, printed
 * as `<n> sets/s`), p50/p99 of each set's submission-to-entry latency, CPU seconds per 1,000 sets
 * of each process (this one, the role processes, Kafka, Cassandra; /proc/<pid>/stat before and
 * after) and each process's peak RSS (sampled), and the load average before and after: the
 * machine is shared, so figures from a loaded machine are lower than the pipeline's own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import path, { posix } from 'node:path';
import { parse } from 'yaml';
import type { Admin } from 'kafkajs';
import { interchange, po850, startPipeline, type Pipeline, type SetSpec, type Tenant } from '../../test/integration/pipeline/support.ts';
import { qualify, fromChTime } from '../../src/adapters/clickhouse/client.ts';
import { createKafka } from '../../src/adapters/kafka/client.ts';
import { createLogger } from '../../src/logger.ts';
import { NODE_SERVICES } from '../../src/domain/node-services.ts';
import type { ConfigDocument, PartnerDoc } from '../../src/domain/configuration.ts';
import type { SegmentToWrite } from '../../src/x12/index.ts';
import { startReceiver, type Receiver } from '../../test/integration/helpers/webhook-receiver.ts';
import { countClickHouse, installCounters, resetCounters, takeCounters, type Counts, type RecordedWrite } from './counters.ts';
import { cassandraCeiling, clickhouseCeiling, kafkaCeiling, type Ceiling } from './ceilings.ts';
import { listenerPid, load, watch, type Usage, type Watched } from './procstat.ts';

const root = path.resolve(import.meta.dirname, '../..');
const num = (k: string, d: number): number => (process.env[k] ? Number(process.env[k]) : d);
const SINGLES = num('BENCH_SINGLES', 2000);
const CONCURRENCY = num('BENCH_CONCURRENCY', 32);
const SETS = num('BENCH_SETS', 20000);
const MIX = num('BENCH_MIX', 1000);
const WEBHOOK_SINGLES = num('BENCH_WEBHOOK_SINGLES', Math.max(1, Math.round(SINGLES / 4)));
const WEBHOOK_SETS = num('BENCH_WEBHOOK_SETS', Math.max(1, Math.round(SETS / 4)));
const BIG_MB = num('BENCH_BIG_MB', 50);
const BIG_SETS = num('BENCH_BIG_SETS', 500);
const TIMEOUT_MS = num('BENCH_TIMEOUT_S', 3600) * 1000;
const MODES = (process.env['BENCH_MODES'] ?? 'inprocess,processes').split(',').map((s) => s.trim());
const SCENARIOS = new Set((process.env['BENCH_SCENARIOS'] ?? 'single,interchange,linear,mix,webhook,big,ceilings').split(',').map((s) => s.trim()));
const SECRET = `whsec_${Buffer.from('bench-pipeline-webhook-secret-32b').toString('base64')}`;
// The contract's 240 requests a minute per key would hold (a) at 4 interchanges/s: the bench lifts it.
const ENV = { TDX_FEED_VISIBILITY_LAG_MS: '0', TDX_RATE_LIMIT_PER_MINUTE: '1000000', TDX_MAX_SUBMISSION_BYTES: String(Math.max(100, BIG_MB * 2) * 1024 * 1024) };

const out = (line: string): void => console.log(line);
function pct(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

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
// documents

let control = 100;
const single850 = (n: number): string => interchange({ control: ++control, groups: [{ sets: [po850(`A-${n}`)] }] });
function bigInterchange(sets: number, linesPerSet: number, tag: string): string {
  return interchange({ control: ++control, groups: [{ sets: Array.from({ length: sets }, (_, i): SetSpec => po850(`${tag}-${i}`, linesPerSet)) }] });
}
function invoice(n: number): Record<string, unknown> {
  return { invoiceNumber: `INV-${n}`, invoiceDate: '2026-03-05', orderNumber: `PO-${n}`, total: 25, lines: [{ sku: 'WIDGET-1', quantity: 10, unitPrice: 2.5 }] };
}
/** The partner's 997 accepting every set of one of our 810 groups. */
function ack997(group: string, sets: readonly string[]): string {
  const segments: SegmentToWrite[] = [{ id: 'AK1', elements: ['IN', group] }];
  for (const s of sets) segments.push({ id: 'AK2', elements: ['810', s] }, { id: 'AK5', elements: ['A'] });
  segments.push({ id: 'AK9', elements: ['A', String(sets.length), String(sets.length), String(sets.length)] });
  return interchange({ control: ++control, groups: [{ sets: [{ id: '997', segments }] }] });
}

// ---------------------------------------------------------------------------------------------
// observation

interface Stack {
  readonly p: Pipeline;
  readonly mode: string;
  readonly procs: Watched[];
  readonly children: ChildProcess[];
  readonly admin: Admin;
  readonly tenants: Map<string, Tenant>;
  readonly receiver: Receiver;
  readonly mixDir: string;
}

async function count(p: Pipeline, sql: string, org: string): Promise<number> {
  const ch = await p.reader.clickhouse();
  const rs = await ch.client.query({ query: sql.replaceAll('{db}', ch.database), query_params: { org }, format: 'JSONEachRow' });
  const [row] = await rs.json<{ n: string }>();
  return Number(row?.n ?? 0);
}
const feedCount = (p: Pipeline, org: string): Promise<number> => count(p, `SELECT count() AS n FROM {db}.feed_entries FINAL WHERE org_id = {org:String} AND status = 'success'`, org);

async function feedTimes(p: Pipeline, org: string): Promise<{ trace: string; at: number }[]> {
  const ch = await p.reader.clickhouse();
  const rs = await ch.client.query({
    query: `SELECT trace_guid, created_at FROM ${qualify(ch.database, 'feed_entries')} FINAL WHERE org_id = {org:String} AND status = 'success'`,
    query_params: { org },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ trace_guid: string; created_at: string }>()).map((r) => ({ trace: r.trace_guid, at: fromChTime(r.created_at) / 1000 }));
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = TIMEOUT_MS, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Messages in the run's topics (sum of high-water marks), by topic without prefix. */
async function topicOffsets(s: Stack): Promise<Map<string, number>> {
  const prefix = s.p.iso.config.kafka.topicPrefix;
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
  readonly seconds: number;
  readonly latencies: readonly number[];
  readonly extra?: string;
}

interface Measured extends Figures {
  readonly usage: Usage[];
  readonly counts?: Counts;
  readonly writes?: RecordedWrite[];
  readonly kafka: Map<string, number>;
}

/** Runs one scenario with the processes watched, the load printed and the work counted. */
async function measure(s: Stack, name: string, run: () => Promise<Figures>): Promise<Measured> {
  out(`\n[${s.mode}] ${name}: load average before ${load()}`);
  const before = await topicOffsets(s);
  const inprocess = s.mode === 'inprocess';
  if (inprocess) resetCounters(name === 'interchange');
  const w = watch(s.procs);
  const profiling = inprocess && process.env['BENCH_PROFILE'] ? await startProfile() : undefined;
  let fig: Figures;
  try {
    fig = await run();
  } finally {
    // settle: the last feed entry is written before the materializer's other inserts finish
    await sleep(1000);
  }
  const usage = w.stop();
  if (profiling) out(`  CPU profile of this process during the scenario: ${await profiling(`${s.mode}-${name}`)}`);
  const taken = inprocess ? takeCounters() : undefined;
  const after = await topicOffsets(s);
  const kafka = new Map<string, number>();
  for (const [t, n] of after) if (n - (before.get(t) ?? 0) > 0) kafka.set(t, n - (before.get(t) ?? 0));
  const m: Measured = { ...fig, usage, kafka, ...(taken ? { counts: taken.counts, writes: taken.writes } : {}) };
  report(s, m);
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

function report(s: Stack, m: Measured): void {
  results.push({ mode: s.mode, m });
  const rate = m.sets / m.seconds;
  out(`[${s.mode}] ${m.label}: ${rate.toFixed(1)} sets/s (${m.sets} sets in ${m.seconds.toFixed(1)} s)${m.extra ? `; ${m.extra}` : ''}`);
  if (m.latencies.length > 0) out(`  latency submission to entry per set: p50 ${Math.round(pct(m.latencies, 50))} ms, p99 ${Math.round(pct(m.latencies, 99))} ms`);
  const per = (v: number): string => ((1000 * v) / m.sets).toFixed(2);
  out(`  CPU seconds per 1,000 sets / peak RSS: ${m.usage.map((u) => `${u.name} ${per(u.cpuSeconds)} s / ${Math.round(u.peakRssMb)} MB`).join('; ')}`);
  const node = m.usage.filter((u) => u.name !== 'kafka' && u.name !== 'cassandra').reduce((n, u) => n + u.cpuSeconds, 0);
  const all = m.usage.reduce((n, u) => n + u.cpuSeconds, 0);
  out(`  CPU seconds per 1,000 sets, Node processes together ${per(node)} s, everything ${per(all)} s (${(all / m.seconds).toFixed(2)} cores busy on average)`);
  const over = m.usage.filter((u) => u.peakRssMb > 512 && u.name !== 'kafka' && u.name !== 'cassandra');
  out(`  peak RSS over 512 MB: ${over.length === 0 ? 'none of the Node processes' : over.map((u) => `${u.name} ${Math.round(u.peakRssMb)} MB`).join(', ')}`);
  const msgs = [...m.kafka.values()].reduce((a, b) => a + b, 0);
  out(`  Kafka messages per set ${(msgs / m.sets).toFixed(2)} (${[...m.kafka].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${n}`).join(', ')})`);
  const c = m.counts;
  if (c) {
    const f = (v: number): string => (v / m.sets).toFixed(2);
    out(
      `  per set: Cassandra statements ${f(c.cassandraStatements)} (writes ${f(c.cassandraWrites)}, batches ${f(c.cassandraBatches)}), Kafka records sent ${f(c.kafkaRecords)} in ${f(c.kafkaProduceRequests)} produce requests, Avro encodes ${f(c.avroEncodes)} decodes ${f(c.avroDecodes)}, ClickHouse inserts ${f(c.clickhouseInserts)} (${f(c.clickhouseRows)} rows) queries ${f(c.clickhouseQueries)}, JSON.parse ${f(c.jsonParses)} JSON.stringify ${f(c.jsonStringifies)} (ClickHouse queries and JSON calls include the bench's own polling)`,
    );
    out(`  Kafka requests per set by API: ${[...c.kafkaRequests].sort((a, b) => b[1] - a[1]).map(([q, n]) => `${q} ${f(n)}`).join('; ')}`);
    out(`  Cassandra statements per set by statement: ${[...c.byStatement].sort((a, b) => b[1] - a[1]).map(([q, n]) => `${q} ${f(n)}`).join('; ')}`);
  }
}

// ---------------------------------------------------------------------------------------------
// stack

async function startStack(mode: string): Promise<Stack> {
  const sftpDir = `bench-${Date.now().toString(36)}`;
  const p = await startPipeline(pollingDoc(), { env: ENV, ...(mode === 'processes' ? { roles: 'api,materializer' } : {}) });
  if (mode === 'inprocess') countClickHouse((await p.reader.clickhouse()).client);
  const receiver = await startReceiver(SECRET);
  receiver.script('/in', [200]);
  const tenants = new Map<string, Tenant>();
  for (const name of ['single', 'interchange', 'linear', 'big']) tenants.set(name, await p.tenant(`bench ${name}`, pollingDoc()));
  tenants.set('webhook', await p.tenant('bench webhook', webhookDoc(receiver.url)));
  if (SCENARIOS.has('mix')) {
    const sftp = sftpEnv();
    mkdirSync(path.join(sftp.root, sftpDir, 'in'), { recursive: true });
    tenants.set('mix', await p.tenant('bench mix', mixDoc(sftpDir)));
  }
  const kafka = createKafka(p.iso.config, createLogger({ ...p.iso.config, logLevel: 'silent' }), '-bench');
  const admin = kafka.admin();
  await admin.connect();

  const procs: Watched[] = [{ name: mode === 'processes' ? 'api+materializer' : 'node (all roles)', pid: process.pid }];
  const children: ChildProcess[] = [];
  if (mode === 'processes') {
    const roles = [...NODE_SERVICES.map((n) => `node:${n}`), 'scheduler'];
    await Promise.all(
      roles.map(async (role) => {
        const env: NodeJS.ProcessEnv = { ...process.env, ...p.iso.env, ...ENV, TDX_LOG_FORMAT: 'json', TDX_LOG_LEVEL: 'info' };
        delete env['NODE_OPTIONS'];
        const args = [...(process.env['BENCH_CPU_PROF_DIR'] && role === 'node:x12_split' ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF_DIR']}`] : []), 'bin/tdx.mjs', 'start', '--role', role];
        const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        child.stderr.resume();
        await new Promise<void>((resolve, reject) => {
          let buf = '';
          const timer = setTimeout(() => reject(new Error(`${role} did not start in 180 s`)), 180_000);
          child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
          child.stdout.on('data', (d: Buffer) => {
            buf += d.toString();
            if (buf.includes('"role:started"')) {
              clearTimeout(timer);
              buf = '';
              resolve();
            } else if (buf.length > 1e6) buf = buf.slice(-1000);
          });
        });
        procs.push({ name: role, pid: child.pid! });
      }),
    );
  }
  const kafkaPid = listenerPid(Number((process.env['KAFKA_BROKERS'] ?? '127.0.0.1:9092').split(',')[0]!.split(':')[1]));
  const cassandraPid = listenerPid(Number((process.env['CASSANDRA_CONTACT_POINTS'] ?? '127.0.0.1:9042').split(',')[0]!.split(':')[1] ?? 9042));
  if (kafkaPid) procs.push({ name: 'kafka', pid: kafkaPid });
  if (cassandraPid) procs.push({ name: 'cassandra', pid: cassandraPid });
  return { p, mode, procs, children, admin, tenants, receiver, mixDir: sftpDir };
}

async function stopStack(s: Stack): Promise<void> {
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
  await s.admin.disconnect();
  await s.receiver.close();
  await s.p.stop();
  if (SCENARIOS.has('mix')) rmSync(path.join(sftpEnv().root, s.mixDir), { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// scenarios

/** Submits `n` bodies with `concurrency` in flight; submission start time per trace. */
async function submitMany(n: number, concurrency: number, submitOne: (i: number) => Promise<string>): Promise<{ started: Map<string, number>; acceptedSeconds: number }> {
  const started = new Map<string, number>();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < n) {
        const i = next++;
        const at = Date.now();
        started.set(await submitOne(i), at);
      }
    }),
  );
  return { started, acceptedSeconds: (performance.now() - t0) / 1000 };
}

async function accepted(r: Promise<{ status: number; body: Record<string, unknown> }>): Promise<string> {
  const res = await r;
  if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body['traceGuid'] as string;
}

async function polledSingles(s: Stack, label: string, tenantName: string, n: number): Promise<Figures> {
  const t = s.tenants.get(tenantName)!;
  const docs = Array.from({ length: n }, (_, i) => single850(i));
  const t0 = Date.now();
  const { started, acceptedSeconds } = await submitMany(n, CONCURRENCY, (i) => accepted(t.submitEdi('GLOBEX', docs[i]!)));
  await waitUntil(`${n} feed entries`, async () => (await feedCount(s.p, t.org)) >= n);
  const entries = await feedTimes(s.p, t.org);
  const last = Math.max(...entries.map((e) => e.at));
  return {
    label,
    sets: n,
    seconds: (last - t0) / 1000,
    latencies: entries.map((e) => e.at - (started.get(e.trace) ?? t0)),
    extra: `endpoint accepted ${(n / acceptedSeconds).toFixed(1)} interchanges/s (${CONCURRENCY} in flight)`,
  };
}

async function polledInterchange(s: Stack, label: string, tenantName: string, sets: number, lines = 3, tag = 'B'): Promise<Figures> {
  const t = s.tenants.get(tenantName)!;
  const edi = bigInterchange(sets, lines, tag);
  const t0 = Date.now();
  await accepted(t.submitEdi('GLOBEX', edi));
  const acceptedMs = Date.now() - t0;
  await waitUntil(`${sets} feed entries`, async () => (await feedCount(s.p, t.org)) >= sets, TIMEOUT_MS, 500);
  const entries = await feedTimes(s.p, t.org);
  const last = Math.max(...entries.map((e) => e.at));
  return { label, sets, seconds: (last - t0) / 1000, latencies: entries.map((e) => e.at - t0), extra: `${(Buffer.byteLength(edi) / 1e6).toFixed(2)} MB, accepted in ${acceptedMs} ms\n  ${await stageTimeline(s.p, t.org, t0)}` };
}

/**
 * When each stage took its work up: the step clocks of the trace's results by service (a
 * batch's items share the clock of the batch's start), and the feed entries' times, in seconds
 * after the submission started. A stage whose start lags the one before it by much is where
 * the sets wait.
 */
async function stageTimeline(p: Pipeline, org: string, t0: number): Promise<string> {
  const ch = await p.reader.clickhouse();
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

async function webhookRun(s: Stack, label: string, n: number, singles: boolean): Promise<Figures> {
  const t = s.tenants.get('webhook')!;
  const before = s.receiver.callsTo('/in').length;
  const t0 = Date.now();
  let started: Map<string, number>;
  if (singles) {
    const docs = Array.from({ length: n }, (_, i) => single850(i));
    started = (await submitMany(n, CONCURRENCY, (i) => accepted(t.submitEdi('HOOK', docs[i]!)))).started;
  } else {
    const trace = await accepted(t.submitEdi('HOOK', bigInterchange(n, 3, 'W')));
    started = new Map([[trace, t0]]);
  }
  await waitUntil(`${n} webhook calls`, () => Promise.resolve(s.receiver.callsTo('/in').length - before >= n));
  const calls = s.receiver.callsTo('/in').slice(before).filter((c) => c.payload);
  const last = Math.max(...calls.map((c) => c.at));
  return { label, sets: n, seconds: (last - t0) / 1000, latencies: calls.map((c) => c.at - (started.get(String(c.payload!['traceGuid'])) ?? t0)) };
}

async function mixRun(s: Stack): Promise<Figures> {
  const t = s.tenants.get('mix')!;
  const sftp = sftpEnv();
  const dir = path.join(sftp.root, s.mixDir);
  const n810 = Math.round(MIX / 10);
  const n850 = MIX - n810;
  const docs = Array.from({ length: MIX }, (_, i) => (i % 10 === 9 ? undefined : single850(i)));
  const t0 = Date.now();
  const { started } = await submitMany(MIX, CONCURRENCY, (i) =>
    docs[i] ? accepted(t.submitEdi('GLOBEX', docs[i])) : accepted(t.api(`/platform/partners/INV/documents`, { method: 'POST', body: JSON.stringify({ transactionSetIdentifier: '810', document: invoice(i) }), headers: { 'content-type': 'application/json' } })),
  );
  // the partner answers each uploaded 810 interchange with a 997 as soon as it sees it
  const answered = new Set<string>();
  let acks = 0;
  const accepted810 = `SELECT count() AS n FROM {db}.transactions FINAL WHERE org_id = {org:String} AND direction = 'outbound' AND acknowledgment_status = 'accepted'`;
  await waitUntil(`${n810} accepted 810s and ${n850} feed entries`, async () => {
    for (const f of readdirSync(dir)) {
      if (answered.has(f) || f.startsWith('.') || f === 'in') continue;
      const text = readFileSync(path.join(dir, f), 'utf8');
      const gs = /GS\*[^~\n]*/.exec(text)?.[0].split('*');
      const sts = [...text.matchAll(/ST\*810\*(\d+)/g)].map((m) => m[1]!);
      if (!gs || sts.length === 0) continue;
      answered.add(f);
      acks++;
      void accepted(t.submitEdi('INV', ack997(gs[6]!, sts)));
    }
    return (await feedCount(s.p, t.org)) >= n850 && (await count(s.p, accepted810, t.org)) >= n810;
  });
  const entries = await feedTimes(s.p, t.org);
  return {
    label: `mix of ${n850} single-set 850s, ${n810} outbound 810s and ${acks} partner 997s`,
    sets: n850 + n810 + acks,
    seconds: (Date.now() - t0) / 1000,
    latencies: entries.map((e) => e.at - (started.get(e.trace) ?? t0)),
    extra: 'end = every 850 in the feed and every 810 acknowledged (polled every 250 ms); latencies are the 850s',
  };
}

async function ceilings(s: Stack, b: Measured): Promise<void> {
  out(`\n[${s.mode}] ceilings for the ${b.sets}-set interchange: load average before ${load()}`);
  const cfg = s.p.iso.config;
  const msgs = [...b.kafka.values()].reduce((a, v) => a + v, 0);
  const bytes = b.counts && b.counts.kafkaRecords > 0 ? kafkaBytes() / b.counts.kafkaRecords : 400;
  const kafka = createKafka(cfg, createLogger({ ...cfg, logLevel: 'silent' }), '-bench-ceiling');
  const list: Ceiling[] = [];
  list.push(await kafkaCeiling(kafka, cfg, msgs, bytes, 1));
  list.push(await cassandraCeiling(await s.p.reader.cassandra(), b.writes ?? []));
  list.push(await clickhouseCeiling(await s.p.reader.clickhouse(), s.tenants.get('interchange')!.org, cfg.materializer.maxBatchRows));
  const pipeline = b.sets / b.seconds;
  let slowest = Infinity;
  for (const c of list) {
    const setsPerSecond = b.sets / c.seconds;
    slowest = Math.min(slowest, setsPerSecond);
    out(`  ${c.what}: ${c.seconds.toFixed(2)} s, ${Math.round(c.units / c.seconds)}/s = ${setsPerSecond.toFixed(0)} sets/s`);
  }
  out(`  pipeline ${pipeline.toFixed(1)} sets/s = ${((100 * pipeline) / slowest).toFixed(1)}% of the slowest ceiling (${slowest.toFixed(0)} sets/s)`);
  out(`  load average after ${load()}`);
}
let kafkaBytesSeen = 0;
const kafkaBytes = (): number => kafkaBytesSeen;

// ---------------------------------------------------------------------------------------------

out(`bench:pipeline on ${(await import('node:os')).cpus().length} cores, load average ${load()} (1, 5, 15 min); the machine is shared, so these are floors, not the pipeline's own figures`);
out(`sizes: singles ${SINGLES} (${CONCURRENCY} in flight), interchange ${SETS} sets, mix ${MIX}, webhook ${WEBHOOK_SINGLES} singles / ${WEBHOOK_SETS} sets, big ${BIG_MB} MB in ${BIG_SETS} sets; modes ${MODES.join(', ')}; scenarios ${[...SCENARIOS].join(', ')}`);
if (MODES.includes('inprocess')) {
  installCounters();
  const { BatchingProducer } = await import('../../src/adapters/kafka/client.ts');
  const P = BatchingProducer.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const send = P['send']!;
  P['send'] = function (this: unknown, ...args: unknown[]) {
    for (const r of args[0] as { value: Buffer }[]) kafkaBytesSeen += r.value.length;
    return send.apply(this, args);
  };
}

for (const mode of MODES) {
  const s = await startStack(mode);
  try {
    // warm-up: connections, prepared statements, compiled plans
    await accepted(s.p.submitEdi('GLOBEX', single850(0)));
    await waitUntil('the warm-up feed entry', async () => (await feedCount(s.p, s.p.org)) >= 1, 120_000);

    if (SCENARIOS.has('single')) {
      await measure(s, 'single', () => polledSingles(s, `(a) ${SINGLES} single-set 850 interchanges, polling partner`, 'single', SINGLES));
    }
    let b: Measured | undefined;
    if (SCENARIOS.has('interchange')) {
      kafkaBytesSeen = 0;
      b = await measure(s, 'interchange', () => polledInterchange(s, `(b) one interchange of ${SETS} 850 sets, polling partner`, 'interchange', SETS));
    }
    if (SCENARIOS.has('linear')) {
      const half = Math.max(1, Math.round(SETS / 2));
      const h = await measure(s, 'linear', () => polledInterchange(s, `one interchange of ${half} 850 sets, polling partner`, 'linear', half, 3, 'L'));
      if (b) out(`  linearity: ${b.sets} sets took ${(b.seconds / h.seconds).toFixed(2)} times as long as ${h.sets} (2.00 = linear)`);
    }
    if (SCENARIOS.has('ceilings') && b && mode === 'inprocess') await ceilings(s, b);
    if (SCENARIOS.has('mix')) await measure(s, 'mix', () => mixRun(s));
    if (SCENARIOS.has('webhook')) {
      await measure(s, 'webhook-single', () => webhookRun(s, `(a) ${WEBHOOK_SINGLES} single-set 850 interchanges, webhook partner`, WEBHOOK_SINGLES, true));
      await measure(s, 'webhook-interchange', () => webhookRun(s, `(b) one interchange of ${WEBHOOK_SETS} 850 sets, webhook partner`, WEBHOOK_SETS, false));
    }
    if (SCENARIOS.has('big')) {
      // enough PO1 lines per set to make the file BIG_MB (a line's size measured on a sample)
      const perLine = (Buffer.byteLength(bigInterchange(1, 101, 'G')) - Buffer.byteLength(bigInterchange(1, 1, 'G'))) / 100;
      const lines = Math.max(1, Math.ceil((BIG_MB * 1e6) / BIG_SETS / perLine));
      await measure(s, 'big', () => polledInterchange(s, `a ${BIG_MB} MB interchange (${BIG_SETS} sets of ${lines} lines), polling partner`, 'big', BIG_SETS, lines, 'G'));
    }
  } finally {
    await stopStack(s);
  }
}
out(`\nload average at the end ${load()}`);
process.exit(0);
