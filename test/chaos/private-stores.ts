/**
 * A Kafka broker and a Cassandra node of the chaos run's own, started from the jars the local
 * stack already unpacked (`<stack dir>/cache`, see deploy/stack.sh) with the stack's own
 * configuration templates (deploy/stack/), on free loopback ports and in a data folder of their
 * own. The run may then stop and restart them, as an operator or a crash would, without
 * touching the shared stack that other test runs use.
 *
 * Why real processes and not a TCP proxy that cuts connections: a broker restart is more than
 * closed sockets (leadership and group coordinator come back, the group rebalances, fetch
 * sessions and producer ids are reset, metadata is refreshed), and a Cassandra restart drops
 * prepared statements and replays its commit log. A proxy would test none of that.
 *
 * The stack folder is `TDX_STACK_DIR` (deploy/stack.sh's own variable), else `.stack` in the
 * checkout. Java 17 is `TDX_STACK_JAVA`, else the first `/usr/lib/jvm/java-17-*` or `java` on
 * the PATH that reports version 17.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import kafkajs from 'kafkajs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TEMPLATES = path.join(ROOT, 'deploy/stack');
const KAFKA_VERSION = '3.9.1';
const CASSANDRA_VERSION = '5.0.6';

/** The stack folder holding the downloaded jars (`cache/`). */
export function stackDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['TDX_STACK_DIR'] ?? path.join(ROOT, '.stack');
}

/** Why private stores cannot be started here, or undefined when they can. */
export function privateStoresUnavailable(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const cache = path.join(stackDir(env), 'cache');
  for (const d of [`kafka-${KAFKA_VERSION}/libs`, `cassandra-${CASSANDRA_VERSION}/lib`]) {
    if (!existsSync(path.join(cache, d))) return `${path.join(cache, d)} is missing: start the local stack once (npm run stack start) or set TDX_STACK_DIR to its folder`;
  }
  if (!findJava(env)) return 'no Java 17 found (set TDX_STACK_JAVA)';
  return undefined;
}

function javaMajor(java: string): number | undefined {
  const r = spawnSync(java, ['-version'], { encoding: 'utf8' });
  const m = /version "(\d+)/.exec(`${r.stderr}${r.stdout}`);
  return m ? Number(m[1]) : undefined;
}

function findJava(env: NodeJS.ProcessEnv): string | undefined {
  const candidates = [env['TDX_STACK_JAVA'], env['JAVA_HOME'] ? path.join(env['JAVA_HOME'], 'bin/java') : undefined];
  if (existsSync('/usr/lib/jvm')) for (const d of readdirSync('/usr/lib/jvm').sort()) if (d.startsWith('java-17-openjdk')) candidates.push(path.join('/usr/lib/jvm', d, 'bin/java'));
  candidates.push('java');
  for (const c of candidates) if (c && (c === 'java' || existsSync(c)) && javaMajor(c) === 17) return c;
  return undefined;
}

/** A free loopback port (bound and released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** True when something accepts TCP connections on the port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('error', () => done(false));
    s.connect(port, '127.0.0.1', () => done(true));
  });
}

/** Runs a short Java command to its end; its exit code and output. */
function runJava(java: string, args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn(java, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    c.stdout.on('data', (b: Buffer) => (output += b.toString('utf8')));
    c.stderr.on('data', (b: Buffer) => (output += b.toString('utf8')));
    c.once('error', reject);
    c.once('close', (code) => resolve({ code, output }));
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One store process that can be stopped and started again on the same port and data. */
export interface StoreProcess {
  readonly name: 'kafka' | 'cassandra';
  /** The client port. */
  readonly port: number;
  readonly running: boolean;
  readonly logFile: string;
  /** Starts the process and resolves once its client port accepts connections. */
  start(): Promise<void>;
  /** SIGTERM (a clean shutdown) or SIGKILL (a crash); resolves once the process is gone. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

interface Launch {
  readonly name: 'kafka' | 'cassandra';
  readonly port: number;
  readonly dir: string;
  readonly java: string;
  readonly args: readonly string[];
  /** Longest start, from spawn to an open client port (and `ready`). */
  readonly readyMs: number;
  /**
   * True once the store serves clients. An open port is not enough for Kafka: the broker binds
   * its listener early and only then replays its logs and registers with the controller, so
   * connections wait in the backlog meanwhile.
   */
  readonly ready?: () => Promise<boolean>;
}

function storeProcess(l: Launch): StoreProcess {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const logFile = path.join(l.dir, 'logs', `${l.name}.out`);
  const self: StoreProcess = {
    name: l.name,
    port: l.port,
    logFile,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async start() {
      if (self.running) return;
      const fd = openSync(logFile, 'a');
      try {
        child = spawn(l.java, [...l.args], { cwd: l.dir, stdio: ['ignore', fd, fd] });
      } finally {
        closeSync(fd);
      }
      const c = child;
      // a store of this run never outlives it, whatever ends the run
      const orphan = (): void => void c.kill('SIGKILL');
      process.once('exit', orphan);
      exited = new Promise((resolve) =>
        c.once('exit', () => {
          process.removeListener('exit', orphan);
          resolve();
        }),
      );
      const deadline = Date.now() + l.readyMs;
      for (;;) {
        if (c.exitCode !== null || c.signalCode !== null) throw new Error(`${l.name} exited at start (${c.exitCode ?? c.signalCode}); see ${logFile}`);
        if ((await portOpen(l.port)) && (!l.ready || (await l.ready()))) return;
        if (Date.now() > deadline) throw new Error(`${l.name} was not ready on port ${l.port} within ${l.readyMs / 1000} s; see ${logFile}`);
        await sleep(250);
      }
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      c.kill(signal);
      const timer = setTimeout(() => c.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return self;
}

function render(template: string, vars: Record<string, string>): string {
  let text = readFileSync(path.join(TEMPLATES, template), 'utf8');
  for (const [k, v] of Object.entries(vars)) text = text.replaceAll(`@${k}@`, v);
  return text;
}

/**
 * JVM flags for a store that serves a test's few requests rather than a load run: the C1 compiler
 * only (as the stack's schema registry runs), so the JVM does not spend most of its start, and
 * much of a short test's CPU, compiling code with C2 for a steady state the test never reaches.
 */
const LIGHT_JVM = ['-XX:TieredStopAtLevel=1'] as const;

/** True once the broker answers a metadata request and lists itself (a short-lived admin client). */
async function kafkaServes(port: number): Promise<boolean> {
  const kafka = new kafkajs.Kafka({ clientId: 'tdx-private-stores', brokers: [`127.0.0.1:${port}`], logLevel: kafkajs.logLevel.NOTHING, connectionTimeout: 2_000, requestTimeout: 5_000, retry: { retries: 0 } });
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    return (await admin.describeCluster()).brokers.length > 0;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}


/**
 * A single-node KRaft broker (broker and controller in one process), configured as
 * deploy/stack.sh configures the stack's, on two free ports. Its storage is formatted once, when
 * the folder is created; every start after that reuses the same data, metadata log and cluster
 * id, so a stop and start is a real restart (log recovery after SIGKILL, controlled shutdown
 * after SIGTERM, consumer offsets and producer state kept).
 */
async function privateKafkaProcess(o: StoreOptions): Promise<StoreProcess> {
  const kd = o.dir;
  const [kafkaPort, controllerPort] = [await freePort(), await freePort()];
  for (const d of ['conf', 'data', 'logs']) mkdirSync(path.join(kd, d), { recursive: true });
  // A start after a SIGKILL registers the broker again only once the controller has given up on
  // the killed incarnation (DUPLICATE_BROKER_REGISTRATION until then): broker.session.timeout.ms
  // (9 s by default) after it last heard from it, then at the next registration retry, whose
  // backoff doubles (13 s from the controller's start to the registration, here). Heartbeats
  // every 0.5 s and a 3 s session bring that to about 3 s; the restart is otherwise the same.
  const fastRegistration = ['', '# private broker: a restart re-registers within seconds', 'broker.heartbeat.interval.ms=500', 'broker.session.timeout.ms=3000', ''].join('\n');
  writeFileSync(path.join(kd, 'conf/server.properties'), render('kafka-server.properties', { STACK: kd, KAFKA_PORT: String(kafkaPort), KAFKA_CONTROLLER_PORT: String(controllerPort) }) + fastRegistration);
  writeFileSync(path.join(kd, 'conf/log4j.properties'), readFileSync(path.join(TEMPLATES, 'kafka-log4j.properties')));
  const common = ['-Djava.awt.headless=true', `-Dlog4j.configuration=file:${kd}/conf/log4j.properties`, `-Dkafka.logs.dir=${kd}/logs`, '-cp', `${o.cache}/kafka-${KAFKA_VERSION}/libs/*`];
  // base64url may start with '-', which the tool's parser reads as an option: one in 64 formats failed
  const clusterId = `A${randomBytes(16).toString('base64url').slice(1, 22)}`;
  // not spawnSync: a test may already run the service in this process
  const format = await runJava(o.java, ['-Xmx256m', ...common, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', `${kd}/conf/server.properties`, '--ignore-formatted']);
  if (format.code !== 0) throw new Error(`kafka storage format failed: ${format.output}`);
  const heap = o.heap ?? '384m';
  return storeProcess({
    name: 'kafka',
    port: kafkaPort,
    dir: kd,
    java: o.java,
    readyMs: o.readyMs,
    ready: () => kafkaServes(kafkaPort),
    args: [`-Xms${heap}`, `-Xmx${heap}`, '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:MaxDirectMemorySize=256m', ...(o.light ? LIGHT_JVM : []), ...common, 'kafka.Kafka', `${kd}/conf/server.properties`],
  });
}

export interface PrivateKafka {
  readonly kafka: StoreProcess;
  /** KAFKA_BROKERS for the service's configuration. */
  readonly env: Record<string, string>;
  readonly dir: string;
  /** Stops it (SIGKILL: its data is thrown away with the folder). */
  close(): Promise<void>;
}

/** Starts a private Kafka broker alone and resolves once it serves clients. */
export async function startPrivateKafka(opts: { readonly dir: string; readonly heap?: string; readonly readyMs?: number; readonly light?: boolean }): Promise<PrivateKafka> {
  const why = privateStoresUnavailable();
  if (why) throw new Error(`private stores unavailable: ${why}`);
  const kafka = await privateKafkaProcess({ dir: opts.dir, java: findJava(process.env)!, cache: path.join(stackDir(), 'cache'), readyMs: opts.readyMs ?? 300_000, light: opts.light === true, ...(opts.heap ? { heap: opts.heap } : {}) });
  try {
    await kafka.start();
  } catch (err) {
    await kafka.stop('SIGKILL');
    throw err;
  }
  return { kafka, dir: opts.dir, env: { KAFKA_BROKERS: `127.0.0.1:${kafka.port}` }, close: () => kafka.stop('SIGKILL') };
}

interface StoreOptions {
  /** Folder of its configuration, data and logs (created; a folder already used is reused). */
  readonly dir: string;
  readonly java: string;
  readonly cache: string;
  readonly readyMs: number;
  readonly heap?: string;
  /** See LIGHT_JVM. */
  readonly light?: boolean;
}


/**
 * A single Cassandra node configured as deploy/stack.sh configures the stack's, with a cluster
 * name of its own (it must never gossip with another node), on two free ports. Its data, commit
 * log and saved caches stay in the folder across stops and starts. Unlike the stack's node it
 * syncs its commit log before acknowledging a write (below), and runs without
 * `cassandra.unsafesystem` (system tables written without the usual durability): with it, a
 * SIGKILL soon after `tdx migrate` lost tables the migrations had created (the service then found
 * `rate_limit_tallies` missing after the restart), which is the flag's doing, not a restart's.
 */
async function privateCassandraProcess(o: StoreOptions): Promise<StoreProcess> {
  const cd = o.dir;
  const [cqlPort, storagePort] = [await freePort(), await freePort()];
  for (const d of ['conf', 'logs', 'tmp', 'data/data', 'data/commitlog', 'data/saved_caches', 'data/hints', 'data/cdc_raw', 'data/system']) mkdirSync(path.join(cd, d), { recursive: true });
  const yaml = render('cassandra.yaml', { STACK: cd, CASSANDRA_PORT: String(cqlPort), CASSANDRA_STORAGE_PORT: String(storagePort) }).replace(/^cluster_name:.*$/m, "cluster_name: 'tdx-private'")
    // An acknowledged write must survive a SIGKILL. The stack's `periodic` commit log (10 s)
    // acknowledges before it syncs, and a crash of a node without replicas loses the writes
    // since the last sync (docs/reliability.md, "Cassandra, restarted"); `batch` syncs first.
    .replace(/^commitlog_sync:.*$/m, 'commitlog_sync: batch')
    .replace(/^commitlog_sync_period:.*$/m, '');
  writeFileSync(path.join(cd, 'conf/cassandra.yaml'), yaml);
  writeFileSync(path.join(cd, 'conf/logback.xml'), readFileSync(path.join(TEMPLATES, 'cassandra-logback.xml')));
  const lib = `${o.cache}/cassandra-${CASSANDRA_VERSION}/lib`;
  const jamm = readdirSync(lib).find((f) => /^jamm-.*\.jar$/.test(f));
  if (!jamm) throw new Error(`jamm jar missing from ${lib}`);
  const flags = readFileSync(path.join(TEMPLATES, 'cassandra-jvm17.options'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('-'));
  const heapC = o.heap ?? '768m';
  return storeProcess({
    name: 'cassandra',
    port: cqlPort,
    dir: cd,
    java: o.java,
    readyMs: o.readyMs,
    args: [
      `-Xms${heapC}`,
      `-Xmx${heapC}`,
      '-Xss512k',
      '-XX:MaxDirectMemorySize=256m',
      ...flags,
      ...(o.light ? LIGHT_JVM : []),
      `-javaagent:${lib}/${jamm}`,
      `-Dcassandra.config=file://${cd}/conf/cassandra.yaml`,
      `-Dlogback.configurationFile=${cd}/conf/logback.xml`,
      `-Dcassandra.logdir=${cd}/logs`,
      `-Dcassandra.storagedir=${cd}/data`,
      '-Dcassandra-foreground=yes',
      '-Dcassandra.skip_wait_for_gossip_to_settle=0',
      '-Dcassandra.ring_delay_ms=1000',
      `-Djna.tmpdir=${cd}/tmp`,
      `-Djava.io.tmpdir=${cd}/tmp`,
      '-cp',
      `${cd}/conf:${lib}/*`,
      'org.apache.cassandra.service.CassandraDaemon',
    ],
  });
}

export interface PrivateCassandra {
  readonly cassandra: StoreProcess;
  /** CASSANDRA_CONTACT_POINTS for the service's configuration. */
  readonly env: Record<string, string>;
  readonly dir: string;
  /** Stops it (SIGKILL: its data is thrown away with the folder). */
  close(): Promise<void>;
}

/** Starts a private Cassandra node alone and resolves once it accepts CQL connections. */
export async function startPrivateCassandra(opts: { readonly dir: string; readonly heap?: string; readonly readyMs?: number; readonly light?: boolean }): Promise<PrivateCassandra> {
  const why = privateStoresUnavailable();
  if (why) throw new Error(`private stores unavailable: ${why}`);
  const cassandra = await privateCassandraProcess({ dir: opts.dir, java: findJava(process.env)!, cache: path.join(stackDir(), 'cache'), readyMs: opts.readyMs ?? 300_000, light: opts.light === true, ...(opts.heap ? { heap: opts.heap } : {}) });
  try {
    await cassandra.start();
  } catch (err) {
    await cassandra.stop('SIGKILL');
    throw err;
  }
  return { cassandra, dir: opts.dir, env: { CASSANDRA_CONTACT_POINTS: `127.0.0.1:${cassandra.port}` }, close: () => cassandra.stop('SIGKILL') };
}

export interface PrivateStores {
  readonly kafka: StoreProcess;
  readonly cassandra: StoreProcess;
  /** Addresses for the service's configuration (KAFKA_BROKERS, CASSANDRA_CONTACT_POINTS). */
  readonly env: Record<string, string>;
  readonly dir: string;
  /** Stops both (SIGKILL: their data is thrown away with the folder). */
  close(): Promise<void>;
}

export interface PrivateStoreOptions {
  /** Folder for data and logs (created). */
  readonly dir: string;
  /** @default "384m" */
  readonly kafkaHeap?: string;
  /** @default "768m" */
  readonly cassandraHeap?: string;
  /** Longest start of each store. @default 300000 */
  readonly readyMs?: number;
}

/** Starts a private Kafka broker and Cassandra node (in parallel) and resolves once both accept connections. */
export async function startPrivateStores(opts: PrivateStoreOptions): Promise<PrivateStores> {
  const why = privateStoresUnavailable();
  if (why) throw new Error(`private stores unavailable: ${why}`);
  const java = findJava(process.env)!;
  const cache = path.join(stackDir(), 'cache');
  const readyMs = opts.readyMs ?? 300_000;
  const kafka = await privateKafkaProcess({ dir: path.join(opts.dir, 'kafka'), java, cache, readyMs, ...(opts.kafkaHeap ? { heap: opts.kafkaHeap } : {}) });

  const cassandra = await privateCassandraProcess({ dir: path.join(opts.dir, 'cassandra'), java, cache, readyMs, ...(opts.cassandraHeap ? { heap: opts.cassandraHeap } : {}) });

  try {
    await Promise.all([kafka.start(), cassandra.start()]);
  } catch (err) {
    await Promise.allSettled([kafka.stop('SIGKILL'), cassandra.stop('SIGKILL')]);
    throw err;
  }
  return {
    kafka,
    cassandra,
    dir: opts.dir,
    env: { KAFKA_BROKERS: `127.0.0.1:${kafka.port}`, CASSANDRA_CONTACT_POINTS: `127.0.0.1:${cassandra.port}` },
    close: async () => {
      await Promise.allSettled([kafka.stop('SIGKILL'), cassandra.stop('SIGKILL')]);
    },
  };
}
