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
 * It also names the run (TDX_TEST_RUN) for the workers: the Cassandra keyspace each worker shares
 * between its files (helpers/isolated-config.ts, `sharedKeyspace`) is named after it, and the
 * teardown drops those keyspaces.
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

/** Drops the keyspaces the workers of run `run` shared, and forgets that they were migrated. */
async function dropWorkerKeyspaces(run: string): Promise<void> {
  const [{ default: cassandra }, { forgetWorkerKeyspaces, workerKeyspacePrefix }] = await Promise.all([import('cassandra-driver'), import('./helpers/isolated-config.ts')]);
  const env = stackEnv();
  const client = new cassandra.Client({ contactPoints: env.cassandraContactPoints, localDataCenter: env.cassandraLocalDataCenter, socketOptions: { connectTimeout: 10_000, readTimeout: 60_000 } });
  const started = Date.now();
  try {
    const rows = await client.execute('SELECT keyspace_name FROM system_schema.keyspaces');
    const mine = rows.rows.map((r) => String(r.get('keyspace_name'))).filter((k) => k.startsWith(workerKeyspacePrefix(run)));
    for (const ks of mine) await client.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
    forgetWorkerKeyspaces(mine);
    process.stderr.write(`[global-setup] dropped the workers' ${mine.length} keyspaces in ${Date.now() - started} ms\n`);
  } catch (err) {
    process.stderr.write(`[global-setup] could not drop the workers' keyspaces: ${err instanceof Error ? err.message : String(err)}\n`);
  } finally {
    await client.shutdown();
  }
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
  return async () => {
    await dropWorkerKeyspaces(run);
    await teardown();
  };
}
