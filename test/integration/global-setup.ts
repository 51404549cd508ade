/**
 * vitest globalSetup of the integration project: makes sure real services answer before any
 * integration test runs, and hands their addresses to the test workers through process.env
 * (workers are forked after this runs, so they inherit it).
 *
 * Per service, in this order:
 *  1. an address named by the environment (KAFKA_BROKERS, SCHEMA_REGISTRY_URL,
 *     CASSANDRA_CONTACT_POINTS, CLICKHOUSE_URL, SFTP_HOST...) is used as it is;
 *  2. otherwise, when a Docker engine answers, testcontainers starts the missing ones (and stops
 *     them at teardown);
 *  3. otherwise `bash deploy/stack.sh start` starts (or reuses) the native stack, whose addresses
 *     are read from .stack/env. The native stack is left running afterwards: other runs may be
 *     using it, and a second start is then instant. `npm run stack stop` (or .ci/run) stops it.
 *
 * ClickHouse needs nothing here: without CLICKHOUSE_URL each test process embeds chDB (see
 * helpers/clickhouse.ts).
 *
 * It also names the run (TDX_TEST_RUN) for the workers: the Cassandra keyspaces the run makes (each
 * worker's shared one, helpers/isolated-config.ts `sharedKeyspace`, and the files' own) are named
 * after it, and the teardown drops them (`runKeyspaces`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stackEnv, uniqueId } from './helpers/env.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

type Service = 'kafka' | 'registry' | 'cassandra' | 'sftp';

/** The environment variable that, when set, names an existing instance of each service. */
const NAMED_BY: Record<Service, string> = {
  kafka: 'KAFKA_BROKERS',
  registry: 'SCHEMA_REGISTRY_URL',
  cassandra: 'CASSANDRA_CONTACT_POINTS',
  sftp: 'SFTP_HOST',
};

function isSet(name: string): boolean {
  const v = process.env[name];
  return v !== undefined && v !== '';
}

/** Parses KEY=value lines (the format deploy/stack.sh writes to .stack/env). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

function dockerAnswers(): boolean {
  if (process.env['TDX_TEST_NO_DOCKER'] === '1') return false;
  if (!isSet('DOCKER_HOST') && !existsSync('/var/run/docker.sock')) return false;
  const r = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 && r.stdout.trim() !== '';
}

function startNativeStack(services: Service[]): Record<string, string> {
  const components = services.map((s) => (s === 'sftp' ? 'sshd' : s));
  const started = Date.now();
  const r = spawnSync('bash', [resolve(ROOT, 'deploy/stack.sh'), 'start', ...components], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 15 * 60_000,
  });
  if (r.status !== 0) {
    throw new Error(`deploy/stack.sh start ${components.join(' ')} failed (exit ${r.status ?? r.signal}); see the output above`);
  }
  process.stderr.write(`[global-setup] native stack ready in ${Date.now() - started} ms\n`);
  return parseEnvFile(readFileSync(resolve(ROOT, '.stack/env'), 'utf8'));
}

type Stop = () => Promise<void>;

async function startContainers(services: Service[]): Promise<{ env: Record<string, string>; stop: Stop }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const { createServer } = await import('node:net');
  const freePort = () =>
    new Promise<number>((ok, fail) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const addr = srv.address();
        srv.close(() => (typeof addr === 'object' && addr ? ok(addr.port) : fail(new Error('no port'))));
      });
    });
  const env: Record<string, string> = {};
  const started: { stop: () => Promise<unknown> }[] = [];
  const runs: Promise<void>[] = [];
  if (services.includes('kafka')) {
    runs.push(
      (async () => {
        // Kafka advertises the address clients must use, so the host port is chosen first.
        const port = await freePort();
        const c = await new GenericContainer('apache/kafka:3.9.1')
          .withExposedPorts({ container: port, host: port })
          .withEnvironment({
            KAFKA_NODE_ID: '1',
            KAFKA_PROCESS_ROLES: 'broker,controller',
            KAFKA_LISTENERS: `PLAINTEXT://:${port},CONTROLLER://:9093`,
            KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`,
            KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
            KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
            KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
            KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
            KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
            KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
            KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
          })
          .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
          .start();
        started.push(c);
        env['KAFKA_BROKERS'] = `127.0.0.1:${port}`;
      })(),
    );
  }
  if (services.includes('registry')) {
    runs.push(
      (async () => {
        const c = await new GenericContainer('apicurio/apicurio-registry:3.3.3')
          .withExposedPorts(8080)
          .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080))
          .start();
        started.push(c);
        env['SCHEMA_REGISTRY_URL'] = `http://127.0.0.1:${c.getMappedPort(8080)}/apis/ccompat/v7`;
      })(),
    );
  }
  if (services.includes('cassandra')) {
    runs.push(
      (async () => {
        const c = await new GenericContainer('cassandra:5.0')
          .withExposedPorts(9042)
          .withEnvironment({ MAX_HEAP_SIZE: '1G', HEAP_NEWSIZE: '200M', CASSANDRA_DC: 'datacenter1' })
          .withWaitStrategy(Wait.forLogMessage(/Starting listening for CQL clients/))
          .withStartupTimeout(240_000)
          .start();
        started.push(c);
        env['CASSANDRA_CONTACT_POINTS'] = `127.0.0.1:${c.getMappedPort(9042)}`;
      })(),
    );
  }
  if (services.includes('sftp')) {
    runs.push(
      (async () => {
        const c = await new GenericContainer('atmoz/sftp:alpine')
          .withExposedPorts(22)
          .withCommand(['tdx:tdx-test-password:::upload'])
          .withWaitStrategy(Wait.forListeningPorts())
          .start();
        started.push(c);
        Object.assign(env, {
          SFTP_HOST: '127.0.0.1',
          SFTP_PORT: String(c.getMappedPort(22)),
          SFTP_USERNAME: 'tdx',
          SFTP_PASSWORD: 'tdx-test-password',
          SFTP_BASE_DIR: 'upload',
        });
      })(),
    );
  }
  const stop = async () => {
    await Promise.allSettled(started.map((c) => c.stop()));
  };
  try {
    await Promise.all(runs);
  } catch (err) {
    await stop();
    throw err;
  }
  return { env, stop };
}

/**
 * The keyspaces of test runs on the stack's Cassandra (helpers/isolated-config.ts, `runKeyspace`).
 * Files leave the keyspaces they make: dropping a keyspace while other workers write makes
 * Cassandra recycle its commit log once per table, flushing everything written since, and a
 * run's 12 drops cost its integration step 9 to 44 s (docs/performance.md, thirteenth pass). The
 * teardown drops the run's keyspaces, unless TDX_TEST_DROP_KEYSPACES=0 says the stack is
 * discarded after the run (.ci/run on a stack it started). So that keyspaces left that way, or by
 * a run that was killed, do not pile up, each run marks itself alive (a row of
 * tdx_test_runs.live, renewed every 20 s with a TTL of 2 minutes) and, from its start, drops the
 * keyspaces of runs that are not.
 */
async function runKeyspaces(run: string): Promise<{ finish(): Promise<void> }> {
  const [{ default: cassandra }, { forgetWorkerKeyspaces, runKeyspace }] = await Promise.all([import('cassandra-driver'), import('./helpers/isolated-config.ts')]);
  const env = stackEnv();
  const client = new cassandra.Client({ contactPoints: env.cassandraContactPoints, localDataCenter: env.cassandraLocalDataCenter, socketOptions: { connectTimeout: 10_000, readTimeout: 60_000 } });
  const say = (line: string) => process.stderr.write(`[global-setup] ${line}\n`);
  const why = (err: unknown) => (err instanceof Error ? err.message : String(err));
  const keyspacesOf = async (runs: (r: string) => boolean) =>
    (await client.execute('SELECT keyspace_name FROM system_schema.keyspaces')).rows.map((r) => String(r.get('keyspace_name'))).filter((k) => {
      const r = runKeyspace(k);
      return r !== undefined && runs(r);
    });
  const drop = async (keyspaces: readonly string[], what: string) => {
    const started = Date.now();
    for (const ks of keyspaces) await client.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
    forgetWorkerKeyspaces(keyspaces);
    if (keyspaces.length > 0) say(`dropped ${what} (${keyspaces.length} keyspaces) in ${Date.now() - started} ms`);
  };
  const alive = () => client.execute('INSERT INTO tdx_test_runs.live (run, started_at) VALUES (?, ?) USING TTL 120', [run, new Date()], { prepare: true });
  let heartbeat: NodeJS.Timeout | undefined;
  let sweep: Promise<void> = Promise.resolve();
  try {
    await client.connect();
    await client.execute("CREATE KEYSPACE IF NOT EXISTS tdx_test_runs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    await client.execute('CREATE TABLE IF NOT EXISTS tdx_test_runs.live (run text PRIMARY KEY, started_at timestamp)');
    await alive();
    heartbeat = setInterval(() => void alive().catch((err: unknown) => say(`could not mark the run alive: ${why(err)}`)), 20_000);
    heartbeat.unref();
    // the earlier runs' leftovers go while the first files run
    sweep = (async () => {
      // the keyspaces first: a run marks itself alive before it makes any, so each one listed
      // here belongs to a run whose mark the read after it sees (if that run is alive)
      const all = await keyspacesOf((r) => r !== run);
      const live = new Set((await client.execute('SELECT run FROM tdx_test_runs.live')).rows.map((r) => String(r.get('run'))));
      await drop(all.filter((k) => !live.has(runKeyspace(k)!)), 'the keyspaces that ended runs left');
    })().catch((err: unknown) => {
      say(`could not drop the keyspaces that ended runs left: ${why(err)}`);
    });
  } catch (err) {
    say(`could not mark the run alive (its keyspaces are dropped at its end all the same): ${why(err)}`);
  }
  return {
    finish: async () => {
      clearInterval(heartbeat);
      try {
        await sweep;
        const mine = await keyspacesOf((r) => r === run);
        if (process.env['TDX_TEST_DROP_KEYSPACES'] === '0') {
          forgetWorkerKeyspaces(mine);
          say(`left the run's ${mine.length} keyspaces (TDX_TEST_DROP_KEYSPACES=0: the stack is discarded; a later run on it drops them)`);
        } else {
          await drop(mine, "the run's keyspaces");
        }
        await client.execute('DELETE FROM tdx_test_runs.live WHERE run = ?', [run], { prepare: true });
      } catch (err) {
        say(`could not drop the run's keyspaces: ${why(err)}`);
      } finally {
        await client.shutdown();
      }
    },
  };
}

/** vitest globalSetup: returns the teardown. */
export default async function setup(): Promise<() => Promise<void>> {
  const run = uniqueId('r');
  process.env['TDX_TEST_RUN'] = run;
  const missing = (Object.keys(NAMED_BY) as Service[]).filter((s) => !isSet(NAMED_BY[s]));
  let teardown: Stop = () => Promise.resolve();
  if (missing.length > 0) {
    let env: Record<string, string>;
    if (dockerAnswers()) {
      process.stderr.write(`[global-setup] starting ${missing.join(', ')} with testcontainers\n`);
      const r = await startContainers(missing);
      env = r.env;
      teardown = r.stop;
    } else {
      env = startNativeStack(missing);
    }
    const keep = (name: string) => missing.some((s) => (s === 'sftp' ? name.startsWith('SFTP_') : NAMED_BY[s] === name));
    for (const [k, v] of Object.entries(env)) if (keep(k)) process.env[k] = v;
  }
  const keyspaces = await runKeyspaces(run);
  return async () => {
    await keyspaces.finish();
    await teardown();
  };
}
