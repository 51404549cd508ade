/**
 * The chaos run: the service as separate processes on the real stack, fed with N transaction
 * sets of every kind while a random process is killed with SIGKILL K times (and started again
 * each time), then checked for loss and duplication from every side (docs/reliability.md).
 *
 * Processes (each `bin/tdx.mjs start --role ...`, supervised by ./processes.ts):
 *   api+materializer (they share the embedded ClickHouse, whose folder one process owns),
 *   scheduler, and the node services in four groups.
 * Outside the service, in this process: the submitters (./client.ts), the organization's webhook
 * receiver that fails at random (./partners.ts), the partner that answers every 810 interchange
 * with a 997, and a reader of the public feed topic (./observe.ts).
 *
 * Isolation: its own topic prefix, consumer groups, keyspace, ClickHouse folder and SFTP folders
 * (test/integration/helpers), so it runs beside other tests on the shared stack.
 *
 * With `brokerRestarts` (CHAOS_STORE_RESTARTS) the service and this process use a private Kafka
 * broker (./private-stores.ts) instead of the shared one, and the run stops it (SIGKILL) and
 * starts it again on the same data that many times while it feeds, timing how long the service
 * takes to accept a submission again.
 *
 * With `cluster` (`npm run chaos:cluster`, test/chaos/cluster.test.ts) the service and this process
 * use the 3-broker, 3-node cluster of deploy/cluster.sh; no service process is killed, but at a
 * quarter of the feeding the run SIGKILLs the broker leading the partner endpoint's stage
 * partition, at half a Cassandra node, at three quarters a broker and a Cassandra node together,
 * restarting each after a few seconds, and counts the seconds in which a submission was answered
 * 503 (`unavailableS`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import type { Admin } from 'kafkajs';
import { applyConfig, createApiKey, createOrganization } from '../../src/admin/admin-service.ts';
import { CassandraConfigAdminStore } from '../../src/adapters/cassandra/config-store.ts';
import { CassandraOrganizationStore } from '../../src/adapters/cassandra/organization-store.ts';
import { qualify } from '../../src/adapters/clickhouse/client.ts';
import type { ConfigDocument } from '../../src/domain/configuration.ts';
import { feedEntryId } from '../../src/domain/ids.ts';
import { statusOf, type StoredTransaction } from '../../src/domain/records.ts';
import { x12ImplementationEngine } from '../../src/domain/x12-implementation-engine.ts';
import { createLogger } from '../../src/logger.ts';
import { Resources } from '../../src/compose.ts';
import { readInterchanges } from '../../src/x12/index.ts';
import { uniqueId } from '../integration/helpers/env.ts';
import { isolatedConfig } from '../integration/helpers/isolated-config.ts';
import { apiClient, type Attempt } from './client.ts';
import { FeedTopic } from './observe.ts';
import { SftpSide, startFlakyReceiver } from './partners.ts';
import { ack997, configuration, populate, seeded, type Item } from './population.ts';
import { freePort, startPrivateKafka, type PrivateKafka } from './private-stores.ts';
import { supervise, type Supervised } from './processes.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ChaosOptions {
  /** Transaction sets fed. @default 10000 */
  readonly sets?: number;
  /** SIGKILLs during the run. @default 20 */
  readonly kills?: number;
  /** @default a random seed (printed) */
  readonly seed?: number;
  /** Submissions in flight at once. @default 4 */
  readonly concurrency?: number;
  /** Longest wait for the pipeline to settle after the last submission. @default 900000 */
  readonly settleTimeoutMs?: number;
  /**
   * Restarts of a private Kafka broker during the feeding (SIGKILL, then started again on its
   * data); 0 runs on the shared broker. @default 0
   */
  readonly brokerRestarts?: number;
  /** A multi-node cluster (deploy/cluster.sh) whose nodes the run kills and restarts. */
  readonly cluster?: ClusterNodes;
  /** Folder for the processes' logs. @default a folder under the run's data folder */
  readonly logDir?: string;
  /** Progress lines. */
  readonly say?: (line: string) => void;
}

/** The nodes of deploy/cluster.sh, as the run sees them. */
export interface ClusterNodes {
  /** The service's settings for the cluster (`deploy/cluster.sh env`). */
  readonly env: Record<string, string>;
  /** SIGKILL of one node (`kafka1`..`kafka3`, `cassandra1`..`cassandra3`). */
  kill(node: string): Promise<void>;
  /** Starts it again on its data; resolves once it serves. */
  start(node: string): Promise<void>;
}

/** One SIGKILL of cluster nodes (one, or a broker and a Cassandra node at once). */
export interface NodeKillRecord {
  readonly nodes: readonly string[];
  /** Seconds into the run. */
  readonly atS: number;
  /** From the SIGKILL until every killed node served again. */
  readonly downMs: number;
}

export interface KillRecord {
  readonly process: string;
  /** Seconds into the run. */
  readonly atS: number;
  /** From the SIGKILL until the restarted process had every role started again. */
  readonly recoverMs: number;
}

export interface BrokerRestartRecord {
  /** Seconds into the run. */
  readonly atS: number;
  /** From the SIGKILL until the broker served clients again. */
  readonly downMs: number;
  /** From the broker serving again until the API accepted a submission again. */
  readonly recoverMs: number;
}

export interface ChaosReport {
  readonly seed: number;
  readonly sets: number;
  readonly submissions: number;
  readonly documents: Record<string, number>;
  readonly kills: KillRecord[];
  readonly brokerRestarts: BrokerRestartRecord[];
  /** Cluster nodes killed (cluster runs). */
  readonly nodeKills: NodeKillRecord[];
  /** Seconds (of the run's clock) in which a submission was answered 503. */
  readonly unavailableS: number;
  /** Every start after the first (after kills, and after exits nobody asked for). */
  readonly restarts: number;
  readonly unplannedExits: number;
  /** Submissions sent again after an answer that may have been accepted. */
  readonly ambiguousSubmissions: number;
  readonly webhookCalls: { total: number; failedOnPurpose: number; distinctIds: number };
  readonly acks997Sent: number;
  readonly acks997Received: number;
  readonly feedEntries: number;
  readonly lost: number;
  readonly duplicated: number;
  /** Every failed check, one line each (empty when the run is clean). */
  readonly failures: string[];
  readonly seconds: { feed: number; settle: number; total: number };
  readonly logDir: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` over `items` with at most `n` at once. */
async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** The text of each of `names` in `dir`, read eight at a time. */
async function readAll(sftp: SftpSide, dir: string, names: readonly string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  await pool(names, 8, async (name) => void texts.set(name, await sftp.read(path.posix.join(dir, name))));
  return texts;
}

/** Messages of a consumer group not yet committed, over every topic it committed on. */
async function groupLag(admin: Admin, groupId: string): Promise<bigint> {
  const committed = await admin.fetchOffsets({ groupId });
  let lag = 0n;
  for (const t of committed) {
    const ends = new Map((await admin.fetchTopicOffsets(t.topic)).map((p) => [p.partition, BigInt(p.high)]));
    for (const p of t.partitions) {
      const o = BigInt(p.offset);
      const end = ends.get(p.partition) ?? 0n;
      lag += o < 0n ? end : end - o;
    }
  }
  return lag;
}

function migrate(env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const e: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete e['NODE_OPTIONS'];
    const c = spawn(process.execPath, ['bin/tdx.mjs', 'migrate'], { cwd: ROOT, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (out += d.toString()));
    c.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tdx migrate exited ${code}: ${out.slice(-2000)}`))));
  });
}

export async function runChaos(opts: ChaosOptions = {}): Promise<ChaosReport> {
  const say = opts.say ?? ((l: string) => void process.stdout.write(`${l}\n`));
  const sets = opts.sets ?? 10_000;
  const killsWanted = opts.kills ?? 20;
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const random = seeded(seed);
  const t0 = Date.now();
  const since = (): number => Math.round((Date.now() - t0) / 100) / 10;
  const failures: string[] = [];
  let lost = 0;
  let duplicated = 0;
  const fail = (kind: 'lost' | 'duplicated' | 'other', line: string, n = 1): void => {
    if (kind === 'lost') lost += n;
    if (kind === 'duplicated') duplicated += n;
    if (failures.length < 200) failures.push(`${kind}: ${line}`);
  };

  const port = await freePort();
  const restartsWanted = opts.brokerRestarts ?? 0;
  let broker: PrivateKafka | undefined;
  let brokerDir: string | undefined;
  if (restartsWanted > 0) {
    brokerDir = mkdtempSync(path.join(tmpdir(), 'tdx-chaos-kafka-'));
    const started = Date.now();
    broker = await startPrivateKafka({ dir: brokerDir });
    say(`chaos: private Kafka broker ${broker.env['KAFKA_BROKERS']} ready after ${((Date.now() - started) / 1000).toFixed(1)} s (log ${broker.kafka.logFile})`);
  }
  const iso = isolatedConfig({
    ...(broker ? broker.env : {}),
    ...(opts.cluster ? opts.cluster.env : {}),
    TDX_API_PORT: String(port),
    TDX_FEED_VISIBILITY_LAG_MS: '500',
    TDX_LOG_VISIBILITY_LAG_MS: '500',
    TDX_LOG_LEVEL: 'info',
    TDX_LOG_FORMAT: 'json',
    // the transfers' retries within the settle time: the default schedule spreads them over an
    // hour (docs/transports.md); this one keeps its shape, six attempts, in 15.5 s
    TDX_RETRY_DELAYS_SECONDS: '0.5,1,2,4,8',
    // a killed process's consumers leave their groups when their session lapses: until then the
    // restarted process cannot join (its start waits for that) and their partitions wait. The
    // broker's shortest session (6 s) rather than the tests' 10 s: each kill is over 4 s sooner
    KAFKA_SESSION_TIMEOUT_MS: '6000',
  });
  const logDir = opts.logDir ?? path.join(iso.config.dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  say(`chaos: seed ${seed}, ${sets} sets, ${killsWanted} kills${restartsWanted ? `, ${restartsWanted} broker restarts` : ''}; logs in ${logDir}`);

  const sftp = new SftpSide();
  const base = uniqueId('chaos');
  const dirs = { pollIn: sftp.path(base, 'poll-in'), pollOut: sftp.path(base, 'poll-out'), outIn: sftp.path(base, 'out-in'), outOut: sftp.path(base, 'out-out') };
  await sftp.mkdirs(sftp.path(base), dirs.pollIn, dirs.pollOut, dirs.outIn, dirs.outOut);

  const secret = `whsec_${Buffer.from(uniqueId('s').padEnd(32, 'x')).toString('base64')}`;
  const receiver = await startFlakyReceiver(secret, { p500: 0.1, pReset: 0.05, random });
  const reader = new Resources(iso.config, createLogger({ ...iso.config, logLevel: 'silent' }));
  const procs: Supervised[] = [];
  let feedTopic: FeedTopic | undefined;
  let admin: Admin | undefined;
  try {
    // the migrations are idempotent: a shared Cassandra busy with other work may time out once
    for (let i = 1; ; i++) {
      try {
        await migrate(iso.env);
        break;
      } catch (err) {
        if (i >= 3) throw err;
        say(`chaos: migrate failed (${(err as Error).message.split('\n').at(-1) ?? ''}); again`);
        await sleep(5_000);
      }
    }
    const demo = parse(readFileSync(path.join(ROOT, 'deploy/demo/config.yaml'), 'utf8')) as ConfigDocument;
    const cql = await reader.cassandra();
    const orgs = new CassandraOrganizationStore(cql);
    // the set-up rides out a passing store error (a cluster's node still opening its connections)
    const settingUp = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
      for (let i = 1; ; i++) {
        try {
          return await fn();
        } catch (err) {
          if (i >= 5 || !(err instanceof Error && 'retriable' in err && err.retriable === true)) throw err;
          say(`chaos: ${what} failed (${err.message}); again`);
          await sleep(2_000);
        }
      }
    };
    const org = (await settingUp('creating the organization', () => createOrganization(orgs, 'Chaos run'))).id;
    const doc = configuration({ webhookUrl: receiver.url, secret, sftp: sftp.connectionFields(), dirs, demo });
    await settingUp('applying the configuration', () => applyConfig(orgs, new CassandraConfigAdminStore(cql, iso.config.secrets.keyring), org, doc, x12ImplementationEngine, { author: 'chaos' }));
    const { key } = await settingUp('creating a key', () => createApiKey(orgs, org, 'standard', 'chaos'));
    const stores = await reader.stores();

    // the service, as separate processes
    const supOpts = {
      env: { ...iso.env },
      logDir,
      restartDelayMs: 1000,
      onUnplannedExit: (name: string, code: number | null, signal: string | null) => say(`chaos: ${name} exited by itself (${code ?? signal}) at ${since()} s; started again`),
    };
    const spec = (name: string, roles: string[]) => supervise({ name, roles: roles.join(','), expect: roles }, supOpts);
    procs.push(
      spec('api+materializer', ['api', 'materializer']),
      spec('scheduler', ['scheduler']),
      spec('ingest', ['node:partner_endpoint', 'node:sftp_fetch', 'node:x12_split']),
      spec('transform', ['node:mapping', 'node:validation']),
      spec('deliver', ['node:webhook', 'node:feed']),
      spec('outbound', ['node:x12_write', 'node:ack_generate', 'node:sftp_upload']),
    );
    await Promise.all(procs.map((p) => p.start(240_000)));
    say(`chaos: ${procs.length} processes up after ${since()} s`);

    const kafka = await reader.kafka();
    admin = kafka.admin();
    await admin.connect();
    feedTopic = new FeedTopic(kafka, await reader.wire(), `${iso.config.kafka.groupPrefix}chaos.feed`);
    await feedTopic.reader.start();

    const api = apiClient(`http://127.0.0.1:${port}`, key, { requestTimeoutMs: 30_000 });
    const population = populate(sets, random);
    say(`chaos: ${population.items.length} submissions: ${Object.entries(population.counts).map(([k, v]) => `${v} ${k}`).join(', ')}`);

    // feeding
    const accepted = new Map<string, { item: Item; trace: string; attempts: Attempt[] }>();
    let ambiguous = 0;
    const acceptedAt: number[] = [];
    // the seconds in which a submission was answered 503 (a store or broker the API needs was down)
    const unavailable = new Set<number>();
    const note503 = (attempts: readonly Attempt[]): void => {
      for (const a of attempts) if (a.status === 503) unavailable.add(Math.floor((a.at - t0) / 1000));
    };
    const feedStarted = Date.now();
    const feeder = pool(population.items, opts.concurrency ?? 4, async (item) => {
      const [p, body, type] = item.kind === 'inbound' ? [`/platform/partners/${item.partner}/edi`, item.edi, 'application/edi-x12'] : [`/platform/partners/OUT/documents`, item.body, 'application/json'];
      const r = await api.submitUntilAccepted(p, body, type);
      const amb = r.attempts.filter((a) => a.outcome === 'ambiguous').length;
      ambiguous += amb;
      note503(r.attempts);
      accepted.set(item.id, { item, trace: r.traceGuid, attempts: r.attempts });
      acceptedAt.push(Date.now());
      if (accepted.size % 500 === 0) say(`chaos: ${accepted.size} submissions accepted (${since()} s)`);
    });

    // the partner OUT answers each interchange it receives with a 997 (every set accepted)
    const answered = new Set<string>();
    const ackTraces: string[] = [];
    let ackIcn = 500_000;
    let responding = true;
    const outFiles = new Map<string, string>();
    const responder = (async () => {
      while (responding) {
        try {
          const files = (await sftp.list(dirs.outOut)).filter((f) => !f.name.startsWith('.') && !answered.has(f.name));
          for (const f of files) {
            const text = await sftp.read(path.posix.join(dirs.outOut, f.name));
            outFiles.set(f.name, text);
            const ic = readInterchanges(text).interchanges[0];
            const g = ic?.groups[0];
            if (!g) continue;
            const edi = ack997({ icn: ++ackIcn, group: g.header.controlNumber, sets: g.sets.map((s) => s.set.controlNumber) });
            const r = await api.submitUntilAccepted('/platform/partners/OUT/edi', edi, 'application/edi-x12');
            ambiguous += r.attempts.filter((a) => a.outcome === 'ambiguous').length;
            note503(r.attempts);
            ackTraces.push(r.traceGuid);
            answered.add(f.name);
          }
        } catch (err) {
          say(`chaos: 997 responder: ${(err as Error).message}`);
        }
        await sleep(1500);
      }
    })();

    // the killer: one process at a time, SIGKILL, started again at once, timed until it is back
    const kills: KillRecord[] = [];
    const gapMs = Math.max(2_000, Math.round((sets * 20) / Math.max(1, killsWanted)));
    let killing = true;
    const killer = (async () => {
      await sleep(Math.min(gapMs, 3_000));
      while (killing && kills.length < killsWanted) {
        const victim = procs[Math.floor(random() * procs.length)]!;
        const at = Date.now();
        await victim.kill();
        await sleep(Math.floor(random() * 1000));
        try {
          await victim.start(240_000);
        } catch (err) {
          fail('other', `${victim.spec.name} did not come back after a kill: ${(err as Error).message}`);
        }
        const rec = { process: victim.spec.name, atS: Math.round((at - t0) / 100) / 10, recoverMs: Date.now() - at };
        kills.push(rec);
        say(`chaos: kill ${kills.length}/${killsWanted}: ${rec.process} at ${rec.atS} s, back after ${(rec.recoverMs / 1000).toFixed(1)} s`);
        await sleep(gapMs * (0.5 + random()));
      }
    })();

    // the broker: SIGKILL at even points of the feeding, started again on its data after a pause,
    // timed until it serves and until the API accepts a submission again
    const brokerRestarts: BrokerRestartRecord[] = [];
    const restarter = (async () => {
      if (!broker) return;
      for (let i = 1; i <= restartsWanted; i++) {
        const due = Math.ceil((population.items.length * i) / (restartsWanted + 1));
        while (accepted.size < due) await sleep(200);
        const at = Date.now();
        await broker.kafka.stop('SIGKILL');
        say(`chaos: broker restart ${i}/${restartsWanted}: SIGKILL at ${since()} s`);
        await sleep(2_000 + Math.floor(random() * 3_000));
        await broker.kafka.start();
        const back = Date.now();
        const seen = acceptedAt.length;
        let recoverMs = -1;
        while (recoverMs < 0 && accepted.size < population.items.length) {
          const later = acceptedAt.slice(seen).find((t) => t >= back);
          if (later !== undefined) recoverMs = later - back;
          else await sleep(100);
        }
        const rec = { atS: Math.round((at - t0) / 100) / 10, downMs: back - at, recoverMs };
        brokerRestarts.push(rec);
        say(`chaos: broker restart ${i}/${restartsWanted}: down ${(rec.downMs / 1000).toFixed(1)} s, a submission accepted again ${recoverMs < 0 ? 'never (feeding ended)' : `${(recoverMs / 1000).toFixed(1)} s after it was back`}`);
      }
    })();

    // the cluster: a broker (the partner endpoint's partition leader), later a Cassandra node, then
    // one of each at once, SIGKILLed at even points of the feeding and started again on their data
    const nodeKills: NodeKillRecord[] = [];
    const nodeKiller = (async () => {
      const cluster = opts.cluster;
      if (!cluster) return;
      const leader = async (): Promise<string> => {
        try {
          const meta = await admin!.fetchTopicMetadata({ topics: [`${iso.config.kafka.topicPrefix}stage.partner_endpoint`] });
          const id = meta.topics[0]?.partitions.find((p) => p.partitionId === 0)?.leader;
          if (id !== undefined && id >= 1 && id <= 3) return `kafka${id}`;
        } catch (err) {
          say(`chaos: partition leader unknown (${(err as Error).message}); a random broker`);
        }
        return `kafka${1 + Math.floor(random() * 3)}`;
      };
      const plan: (() => Promise<string[]>)[] = [async () => [await leader()], () => Promise.resolve([`cassandra${1 + Math.floor(random() * 3)}`]), async () => [await leader(), `cassandra${1 + Math.floor(random() * 3)}`]];
      for (let i = 0; i < plan.length; i++) {
        const due = Math.ceil((population.items.length * (i + 1)) / (plan.length + 1));
        while (accepted.size < due) await sleep(200);
        const nodes = await plan[i]!();
        const at = Date.now();
        await Promise.all(nodes.map((n) => cluster.kill(n)));
        say(`chaos: SIGKILL ${nodes.join(' and ')} at ${since()} s`);
        await sleep(5_000 + Math.floor(random() * 3_000));
        const back = await Promise.allSettled(nodes.map((n) => cluster.start(n)));
        for (const [j, r] of back.entries()) if (r.status === 'rejected') fail('other', `${nodes[j]} did not come back after its SIGKILL: ${String((r.reason as Error).message).slice(0, 600)}`);
        const rec = { nodes, atS: Math.round((at - t0) / 100) / 10, downMs: Date.now() - at };
        nodeKills.push(rec);
        say(`chaos: ${nodes.join(' and ')} serving again ${(rec.downMs / 1000).toFixed(1)} s after the kill (${accepted.size} submissions accepted)`);
      }
    })();

    await feeder;
    await restarter;
    await nodeKiller;
    if (brokerRestarts.length < restartsWanted) fail('other', `only ${brokerRestarts.length} of ${restartsWanted} broker restarts were done`);
    const feedS = (Date.now() - feedStarted) / 1000;
    say(`chaos: every submission accepted after ${feedS.toFixed(1)} s (${ambiguous} sent again after no answer)`);

    // settling: every trace's transactions have left `processing`, OUT's 810s are acknowledged,
    // every POLL interchange has its 997 uploaded
    const settleStarted = Date.now();
    const deadline = settleStarted + (opts.settleTimeoutMs ?? 900_000);
    const txsOf = new Map<string, StoredTransaction[]>();
    const open = new Set([...accepted.values()].map((a) => a.trace));
    const expectedCount = new Map([...accepted.values()].map((a) => [a.trace, a.item.refs.length + (a.item.partner === 'POLL' ? 1 : 0)]));
    const done = (trace: string, txs: StoredTransaction[]): boolean => {
      if (txs.length < (expectedCount.get(trace) ?? 1)) return false;
      if (txs.some((t) => statusOf(t) === 'processing')) return false;
      // an 810 waits for its 997
      return txs.every((t) => t.partnerKey !== 'OUT' || t.direction !== 'outbound' || statusOf(t) !== 'delivered' || t.acknowledgmentStatus !== 'unacknowledged');
    };
    for (;;) {
      for (const t of ackTraces) if (!txsOf.has(t)) open.add(t);
      await pool([...open], 8, async (trace) => {
        const txs = await stores.transactions.byTrace(org, trace);
        txsOf.set(trace, txs);
        if (done(trace, txs)) open.delete(trace);
      });
      const killsDone = !killing || kills.length >= killsWanted;
      if (open.size === 0 && killsDone && answered.size === outFiles.size && [...accepted.values()].every((a) => a.item.partner !== 'OUT' || txsOf.get(a.trace)?.every((t) => t.acknowledgmentStatus !== 'unacknowledged'))) break;
      if (Date.now() > deadline) {
        fail('other', `the pipeline did not settle within ${Math.round((opts.settleTimeoutMs ?? 900_000) / 1000)} s: ${open.size} traces still open`);
        break;
      }
      const sample = [...open].slice(0, 2).map((t) => {
        const item = [...accepted.values()].find((a) => a.trace === t)?.item;
        const txs = txsOf.get(t) ?? [];
        return `${item?.id ?? 'a 997 from OUT'} ${t}: ${txs.length} transactions ${[...new Set(txs.map((x) => `${statusOf(x)}/${x.acknowledgmentStatus ?? '-'}`))].join(',')}`;
      });
      say(`chaos: settling: ${open.size} traces open, ${kills.length} kills (${since()} s); e.g. ${sample.join('; ')}`);
      await sleep(3_000);
    }
    killing = false;
    await killer;
    responding = false;
    await responder;
    for (const t of ackTraces) if (!txsOf.has(t)) txsOf.set(t, await stores.transactions.byTrace(org, t));
    const settleS = (Date.now() - settleStarted) / 1000;
    say(`chaos: settled after ${settleS.toFixed(1)} s more`);

    // let the materializer and the feed sequencer drain what is left
    await (async () => {
      const end = Date.now() + 180_000;
      let zeroes = 0;
      while (Date.now() < end && zeroes < 2) {
        const lag = (await groupLag(admin, `${iso.config.kafka.groupPrefix}materializer`)) + (await groupLag(admin, `${iso.config.kafka.groupPrefix}feed-sequencer`));
        zeroes = lag === 0n ? zeroes + 1 : 0;
        await sleep(1_000);
      }
      if (zeroes < 2) fail('other', 'the materializer did not catch up within 180 s');
    })();

    // ---- the checks ----
    const byAmbiguity = new Map([...accepted.values()].map((a) => [a.trace, a.attempts.some((x) => x.outcome === 'ambiguous')]));
    const allTx = [...txsOf.values()].flat();

    // 1. every set recorded exactly once, under the trace that accepted it
    for (const { item, trace } of accepted.values()) {
      const txs = txsOf.get(trace) ?? [];
      const docs = txs.filter((t) => t.transactionSetIdentifier === (item.kind === 'inbound' ? '850' : '810'));
      const refs = docs.map((t) => t.reference ?? '').sort();
      const want = [...item.refs].sort();
      const missing = want.filter((r) => !refs.includes(r));
      const extra = refs.length - new Set(refs).size + refs.filter((r) => !want.includes(r)).length;
      if (missing.length > 0) fail('lost', `${item.id} (trace ${trace}): ${missing.length} of ${want.length} sets not recorded (${missing.slice(0, 3).join(', ')})`, missing.length);
      if (extra > 0) fail('duplicated', `${item.id} (trace ${trace}): ${extra} sets recorded twice or unexpected`, extra);
      // 2. every trace ended; the expected outcome for each kind
      for (const t of docs) {
        const s = statusOf(t);
        if (s === 'processing') fail('lost', `${item.id}: transaction ${t.id} is still processing`);
        else if (s !== 'delivered') fail('other', `${item.id}: transaction ${t.id} ended ${s} at ${t.failedNodeName ?? '?'}`);
        if (item.partner === 'OUT' && t.acknowledgmentStatus !== 'accepted') fail('other', `${item.id}: 810 ${t.id} acknowledgment ${t.acknowledgmentStatus ?? 'null'}`);
      }
      if (item.partner === 'POLL') {
        const acks = txs.filter((t) => t.transactionSetIdentifier === '997');
        if (acks.length === 0) fail('lost', `${item.id}: no 997 recorded`);
        if (acks.length > 1) fail('duplicated', `${item.id}: ${acks.length} 997s recorded`, acks.length - 1);
        for (const a of acks) if (statusOf(a) !== 'delivered') fail('lost', `${item.id}: 997 ${a.id} ${statusOf(a)}`);
      }
    }
    for (const t of ackTraces) for (const x of txsOf.get(t) ?? []) if (statusOf(x) !== 'delivered') fail('other', `received 997 ${x.id} (trace ${t}) ended ${statusOf(x)}`);

    // 3. feed: every delivered document's entry exists once by id (API, ClickHouse), the public topic carries it
    const expectedFeed = new Set(allTx.filter((t) => statusOf(t) === 'delivered' && t.deliveryResultId).map((t) => feedEntryId(t.deliveryResultId!)));
    const seenFeed = new Map<string, number>();
    let cursor: string | undefined;
    for (let page = 0; page < 100_000; page++) {
      const r = await api.read(`/platform/feed_entries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (r.status !== 200) throw new Error(`feed read answered ${r.status}: ${r.text.slice(0, 300)}`);
      for (const e of r.body['feedEntries'] as { id: string }[]) seenFeed.set(e.id, (seenFeed.get(e.id) ?? 0) + 1);
      const pg = r.body['pagination'] as { nextCursor?: string | null; hasMore?: boolean };
      cursor = pg.nextCursor ?? cursor;
      if (!pg.hasMore) break;
    }
    for (const id of expectedFeed) if (!seenFeed.has(id)) fail('lost', `feed entry ${id} missing from GET /platform/feed_entries`);
    for (const [id, n] of seenFeed) if (n > 1) fail('duplicated', `feed entry ${id} read ${n} times through the API`, n - 1);
    const topicIds = feedTopic.entries;
    for (const id of expectedFeed) {
      const e = topicIds.get(id);
      if (!e) fail('lost', `feed entry ${id} never published on the feed topic`);
      else if (e.differs) fail('duplicated', `feed entry ${id} published twice with different content`);
    }

    // 4. webhooks: each delivered HOOK document reached the receiver, one content per webhook-id
    const bodies = new Map<string, Set<string>>();
    const reached = new Set<string>();
    for (const c of receiver.calls) {
      if (!c.verified) fail('other', `the receiver got a call whose signature did not verify (webhook-id ${c.webhookId})`);
      bodies.set(c.webhookId, (bodies.get(c.webhookId) ?? new Set()).add(c.bodySha));
      if (c.ediTransactionId && c.answer === 200) reached.add(c.ediTransactionId);
    }
    for (const [id, shas] of bodies) if (shas.size > 1) fail('duplicated', `webhook-id ${id} carried ${shas.size} different bodies`);
    for (const t of allTx) if (t.partnerKey === 'HOOK' && t.direction === 'inbound' && statusOf(t) === 'delivered' && !reached.has(t.id)) fail('lost', `HOOK document ${t.id} delivered but never accepted by the receiver`);
    const failedOnPurpose = receiver.calls.filter((c) => c.answer !== 200).length;

    // 5. every 997 to POLL went out once; 6. control numbers unique
    const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
    const pollFiles = (await sftp.list(dirs.pollOut)).filter((f) => !f.name.startsWith('.'));
    // the files are read several at a time over the one session (one by one, each read's round
    // trips added up to 11 s for a small run's 63 files)
    const pollTexts = await readAll(sftp, dirs.pollOut, pollFiles.map((f) => f.name));
    const ackedGroups = new Map<string, number>();
    const pollIsa = new Map<string, number>();
    /** The files of each 997 ISA13, named in a duplicate's failure line. */
    const filesOfIsa = new Map<string, string[]>();
    for (const f of pollFiles) {
      const ic = readInterchanges(pollTexts.get(f.name)!).interchanges[0];
      if (!ic) continue;
      bump(pollIsa, ic.header.controlNumber);
      filesOfIsa.set(ic.header.controlNumber, [...(filesOfIsa.get(ic.header.controlNumber) ?? []), f.name]);
      for (const g of ic.groups) {
        for (const s of g.sets) for (const seg of s.set.segments) if (seg.id === 'AK1') bump(ackedGroups, String(Number(seg.elements[1])));
      }
    }
    for (const { item, trace } of accepted.values()) {
      if (item.kind !== 'inbound' || item.partner !== 'POLL') continue;
      const n = ackedGroups.get(String(item.gcn)) ?? 0;
      if (n === 0) fail('lost', `no 997 uploaded for ${item.id} (trace ${trace})`);
      if (n > 1 && !byAmbiguity.get(trace)) fail('duplicated', `${n} 997s uploaded for ${item.id} (trace ${trace})`, n - 1);
    }
    for (const [icn, n] of pollIsa) if (n > 1) fail('duplicated', `ISA13 ${icn} used by ${n} of the 997s sent to POLL (${(filesOfIsa.get(icn) ?? []).join(', ')})`, n - 1);
    const outFinal = (await sftp.list(dirs.outOut)).filter((f) => !f.name.startsWith('.'));
    const outUnread = await readAll(sftp, dirs.outOut, outFinal.map((f) => f.name).filter((n) => !outFiles.has(n)));
    const isa = new Map<string, number>();
    const gs = new Map<string, number>();
    const st = new Map<string, number>();
    for (const f of outFinal) {
      const text = outFiles.get(f.name) ?? outUnread.get(f.name)!;
      const ic = readInterchanges(text).interchanges[0];
      if (!ic) continue;
      bump(isa, ic.header.controlNumber);
      for (const g of ic.groups) {
        bump(gs, g.header.controlNumber);
        for (const s of g.sets) bump(st, s.set.controlNumber);
      }
    }
    for (const [name, m] of [['ISA13', isa], ['GS06', gs], ['ST02', st]] as const) for (const [k, n] of m) if (n > 1) fail('duplicated', `OUT ${name} ${k} used ${n} times`, n - 1);
    const out810 = allTx.filter((t) => t.partnerKey === 'OUT' && t.transactionSetIdentifier === '810');
    const outSent = [...st.values()].reduce((a, b) => a + b, 0);
    // an OUT submission that got no answer may have been taken as well as its repeat (a trace the
    // run never learnt): its sets may go out once more, under control numbers of their own
    const mayRepeat = [...accepted.values()].filter(({ item, trace }) => item.partner === 'OUT' && byAmbiguity.get(trace)).reduce((n, { item }) => n + item.refs.length, 0);
    if (outSent < out810.length) fail('lost', `OUT received ${outSent} 810 sets in ${outFinal.length} files; ${out810.length} 810s recorded`, out810.length - outSent);
    else if (outSent > out810.length + mayRepeat) fail('duplicated', `OUT received ${outSent} 810 sets in ${outFinal.length} files; ${out810.length} 810s recorded, ${mayRepeat} of them from submissions that got no answer`, outSent - out810.length - mayRepeat);

    // 7. ClickHouse agrees with Cassandra (read here, once the service is stopped: chDB's folder belongs to one process)
    await Promise.all(procs.map((p) => p.stop()));
    const ch = await reader.clickhouse();
    const chTx = await (
      await ch.client.query({
        query: `SELECT id, trace_guid, status, acknowledgment_status, reference FROM ${qualify(ch.database, 'transactions')} FINAL WHERE org_id = {org:String}`,
        query_params: { org },
        format: 'JSONEachRow',
      })
    ).json<{ id: string; trace_guid: string; status: string; acknowledgment_status: string | null; reference: string | null }>();
    const chById = new Map(chTx.map((r) => [r.id, r]));
    const known = new Set(allTx.map((t) => t.id));
    for (const t of allTx) {
      const r = chById.get(t.id);
      if (!r) fail('lost', `transaction ${t.id} missing from ClickHouse`);
      else if (r.status !== statusOf(t) || (r.acknowledgment_status ?? null) !== (t.acknowledgmentStatus ?? null)) fail('other', `transaction ${t.id}: ClickHouse ${r.status}/${r.acknowledgment_status}, Cassandra ${statusOf(t)}/${t.acknowledgmentStatus}`);
    }
    // a transaction of a trace nobody was told about: an ambiguous submission the service took
    const orphans = chTx.filter((r) => !known.has(r.id));
    const orphanProcessing = orphans.filter((r) => r.status === 'processing');
    if (orphanProcessing.length > 0) fail('lost', `${orphanProcessing.length} transactions of unknown traces still processing`, orphanProcessing.length);
    const refCount = new Map<string, number>();
    for (const r of chTx) if (r.reference && (r.reference.startsWith('INV-') || /^[HP]\d+-\d+$/.test(r.reference))) bump(refCount, r.reference);
    const ambiguousRefs = new Set([...accepted.values()].filter((a) => byAmbiguity.get(a.trace)).flatMap((a) => a.item.refs));
    for (const [ref, n] of refCount) if (n > 1 && !ambiguousRefs.has(ref)) fail('duplicated', `reference ${ref} recorded ${n} times`, n - 1);
    const chResults = await (
      await ch.client.query({ query: `SELECT trace_guid, count() AS n, uniqExact(id) AS ids FROM ${qualify(ch.database, 'results')} FINAL WHERE org_id = {org:String} GROUP BY trace_guid`, query_params: { org }, format: 'JSONEachRow' })
    ).json<{ trace_guid: string; n: string | number; ids: string | number }>();
    const chResultsBy = new Map(chResults.map((r) => [r.trace_guid, Number(r.n)]));
    let explained = 0;
    await pool([...txsOf.keys()], 8, async (trace) => {
      const rs = await stores.results.byTrace(org, trace);
      const n = chResultsBy.get(trace) ?? 0;
      if (n === rs.length) return;
      let why = '';
      if (explained++ < 5) {
        // which rows differ: an id Cassandra does not have, or one id in several rows
        const rows = await (
          await ch.client.query({
            query: `SELECT id, service, created_at, version FROM ${qualify(ch.database, 'results')} FINAL WHERE org_id = {org:String} AND trace_guid = {trace:String}`,
            query_params: { org, trace },
            format: 'JSONEachRow',
          })
        ).json<{ id: string; service: string; created_at: string; version: string }>();
        const inCassandra = new Map(rs.map((r) => [r.id, r]));
        const perId = new Map<string, number>();
        for (const r of rows) perId.set(r.id, (perId.get(r.id) ?? 0) + 1);
        const odd = rows.filter((r) => !inCassandra.has(r.id) || (perId.get(r.id) ?? 0) > 1);
        const missing = rs.filter((r) => !perId.has(r.id));
        why = `: ${[
          ...odd.map((r) => `${r.service} ${r.id} created ${r.created_at} v${r.version}${inCassandra.has(r.id) ? ` (Cassandra: created ${inCassandra.get(r.id)!.createdAt})` : ' (not in Cassandra)'}`),
          ...missing.map((r) => `${r.service} ${r.id} (${r.status}, created ${r.createdAt}) not in ClickHouse`),
        ].join('; ')}`;
      }
      fail(n < rs.length ? 'lost' : 'duplicated', `trace ${trace}: ${rs.length} results in Cassandra, ${n} in ClickHouse${why}`, Math.abs(rs.length - n));
    });
    const chFeed = await (
      await ch.client.query({ query: `SELECT count() AS n, uniqExact(id) AS ids FROM ${qualify(ch.database, 'feed_entries')} FINAL WHERE org_id = {org:String}`, query_params: { org }, format: 'JSONEachRow' })
    ).json<{ n: string | number; ids: string | number }>();
    if (Number(chFeed[0]?.n) !== Number(chFeed[0]?.ids)) fail('duplicated', `ClickHouse feed_entries: ${chFeed[0]?.n} rows for ${chFeed[0]?.ids} ids`);
    for (const table of ['results', 'logs'] as const) {
      const [row] = await (
        await ch.client.query({ query: `SELECT count() AS n, uniqExact(id) AS ids FROM ${qualify(ch.database, table)} FINAL WHERE org_id = {org:String}`, query_params: { org }, format: 'JSONEachRow' })
      ).json<{ n: string | number; ids: string | number }>();
      if (Number(row?.n) !== Number(row?.ids)) fail('duplicated', `ClickHouse ${table}: ${row?.n} rows for ${row?.ids} ids`, Number(row?.n) - Number(row?.ids));
    }

    const documents: Record<string, number> = {};
    for (const t of allTx) documents[`${t.partnerKey} ${t.direction} ${t.transactionSetIdentifier}`] = (documents[`${t.partnerKey} ${t.direction} ${t.transactionSetIdentifier}`] ?? 0) + 1;
    const restarts = procs.reduce((a, p) => a + p.unplannedExits, 0) + kills.length;
    return {
      seed,
      sets,
      submissions: accepted.size,
      documents,
      kills,
      brokerRestarts,
      nodeKills,
      unavailableS: unavailable.size,
      restarts,
      unplannedExits: procs.reduce((a, p) => a + p.unplannedExits, 0),
      ambiguousSubmissions: ambiguous,
      webhookCalls: { total: receiver.calls.length, failedOnPurpose, distinctIds: bodies.size },
      acks997Sent: pollFiles.length,
      acks997Received: ackTraces.length,
      feedEntries: seenFeed.size,
      lost,
      duplicated,
      failures,
      seconds: { feed: Math.round(feedS), settle: Math.round(settleS), total: Math.round((Date.now() - t0) / 1000) },
      logDir,
    };
  } finally {
    await Promise.allSettled(procs.map((p) => p.stop()));
    await feedTopic?.reader.stop();
    await admin?.disconnect().catch(() => undefined);
    await receiver.close();
    await reader.close();
    await sftp.removeTree(sftp.path(base));
    sftp.close();
    if (process.env['CHAOS_KEEP'] !== '1') await iso.cleanup();
    await broker?.close();
    if (brokerDir && process.env['CHAOS_KEEP'] !== '1') rmSync(brokerDir, { recursive: true, force: true });
  }
}

/** The report as printed lines. */
export function formatReport(r: ChaosReport): string[] {
  const recover = r.kills.map((k) => k.recoverMs / 1000);
  const stats = recover.length ? `min ${Math.min(...recover).toFixed(1)} s, median ${[...recover].sort((a, b) => a - b)[Math.floor(recover.length / 2)]!.toFixed(1)} s, max ${Math.max(...recover).toFixed(1)} s` : 'none';
  return [
    `seed ${r.seed}`,
    `sets fed ${r.sets} in ${r.submissions} submissions`,
    `documents ${Object.values(r.documents).reduce((a, b) => a + b, 0)} (${Object.entries(r.documents).map(([k, v]) => `${k}: ${v}`).join(', ')})`,
    `kills ${r.kills.length} (${r.kills.map((k) => k.process).join(', ')})`,
    `restarts ${r.restarts} (unplanned exits ${r.unplannedExits})`,
    `time to recover after each kill: ${r.kills.map((k) => `${(k.recoverMs / 1000).toFixed(1)}`).join(' ')} s (${stats})`,
    ...(r.brokerRestarts.length
      ? [`broker restarts ${r.brokerRestarts.length}: ${r.brokerRestarts.map((b) => `at ${b.atS} s, down ${(b.downMs / 1000).toFixed(1)} s, accepting again after ${b.recoverMs < 0 ? '-' : (b.recoverMs / 1000).toFixed(1)} s`).join('; ')}`]
      : []),
    ...(r.nodeKills.length ? [`cluster nodes killed: ${r.nodeKills.map((k) => `${k.nodes.join('+')} at ${k.atS} s, serving again after ${(k.downMs / 1000).toFixed(1)} s`).join('; ')}`] : []),
    `seconds with a 503 answer at the partner endpoints ${r.unavailableS}`,
    `submissions sent again after no answer ${r.ambiguousSubmissions}`,
    `webhook calls ${r.webhookCalls.total} (${r.webhookCalls.failedOnPurpose} answered 500 or reset on purpose, ${r.webhookCalls.distinctIds} webhook-ids)`,
    `997s sent to POLL ${r.acks997Sent}, 997s received from OUT ${r.acks997Received}`,
    `feed entries ${r.feedEntries}`,
    `time: feeding ${r.seconds.feed} s, settling ${r.seconds.settle} s, total ${r.seconds.total} s`,
    `lost ${r.lost}`,
    `duplicated ${r.duplicated}`,
    ...(r.failures.length ? ['failures:', ...r.failures.map((f) => `  ${f}`)] : ['every check passed']),
  ];
}
