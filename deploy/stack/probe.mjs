#!/usr/bin/env node
/* global fetch, setTimeout, AbortSignal */
// Readiness probes for the local stack (deploy/stack.sh). Each probe does real work against
// the component, not a port check:
//   kafka     create a topic, produce a record, consume it back through a consumer group
//   registry  list subjects, register an Avro schema, delete the subject again
//   cassandra connect and run a CQL query
//   sshd      log in with the test key and list the SFTP root
// For deploy/cluster.sh: KAFKA_BROKERS (a list) and PROBE_REPLICATION (replication factor and
// acks=all of the probe topic) replace KAFKA_PORT; CASSANDRA_CONTACT_POINTS replaces
// CASSANDRA_PORT, and PROBE_NODES asks that many Cassandra nodes to be up in the ring.
//
// usage: node deploy/stack/probe.mjs <component> [--timeout SECONDS] [--pid PID]
// Retries until the probe passes (exit 0), the timeout elapses or PID dies (exit 1).
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

const [component, ...rest] = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = rest.indexOf(name);
  return i >= 0 && rest[i + 1] !== undefined ? rest[i + 1] : fallback;
};
const timeoutMs = Number(opt('--timeout', '180')) * 1000;
const pid = Number(opt('--pid', '0'));
const env = process.env;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The watched process is a child of deploy/stack.sh, so once it exits it stays a zombie
// until the script reaps it: read its state instead of only signalling it.
const alive = () => {
  if (!pid) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
};
const withTimeout = (promise, ms, what) =>
  Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`${what} timed out after ${ms} ms`)))]);

async function kafka() {
  const { Kafka, logLevel } = await import('kafkajs');
  const brokers = env.KAFKA_BROKERS ? env.KAFKA_BROKERS.split(',') : [`127.0.0.1:${env.KAFKA_PORT ?? '9092'}`];
  const replication = Number(env.PROBE_REPLICATION ?? '1');
  const client = new Kafka({ clientId: 'tdx-stack-probe', brokers, logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const topic = replication > 1 ? `__tdx_stack_probe_rf${replication}` : '__tdx_stack_probe';
  const admin = client.admin();
  const producer = client.producer({ allowAutoTopicCreation: false });
  const consumer = client.consumer({ groupId: '__tdx_stack_probe', sessionTimeout: 10_000, heartbeatInterval: 1_000 });
  try {
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: replication }], waitForLeaders: true });
    const value = randomUUID();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ key: 'probe', value }] });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await withTimeout(
      new Promise((resolve, reject) => {
        consumer
          .run({
            eachMessage: async ({ message }) => {
              if (message.value?.toString() === value) resolve();
            },
          })
          .catch(reject);
      }),
      30_000,
      'consuming the probe record',
    );
    return `produced and consumed a record on ${topic}`;
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

async function registry() {
  const base = `http://127.0.0.1:${env.REGISTRY_PORT ?? '8081'}/apis/ccompat/v7`;
  const call = async (method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} -> HTTP ${res.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  };
  const subjects = await call('GET', '/subjects');
  if (!Array.isArray(subjects)) throw new Error(`GET /subjects did not return a list: ${JSON.stringify(subjects)}`);
  const subject = '__tdx_stack_probe-value';
  const schema = { type: 'record', name: 'Probe', namespace: 'tdx.stack', fields: [{ name: 'at', type: 'long' }] };
  const registered = await call('POST', `/subjects/${subject}/versions`, { schema: JSON.stringify(schema) });
  if (typeof registered?.id !== 'number') throw new Error(`schema registration returned no id: ${JSON.stringify(registered)}`);
  await call('DELETE', `/subjects/${subject}`);
  await call('DELETE', `/subjects/${subject}?permanent=true`);
  return `registered schema id ${registered.id}`;
}

async function cassandra() {
  const { Client } = (await import('cassandra-driver')).default;
  const client = new Client({
    contactPoints: env.CASSANDRA_CONTACT_POINTS ? env.CASSANDRA_CONTACT_POINTS.split(',') : [`127.0.0.1:${env.CASSANDRA_PORT ?? '9042'}`],
    localDataCenter: 'datacenter1',
    socketOptions: { connectTimeout: 5_000, readTimeout: 10_000 },
  });
  try {
    await client.connect();
    const rs = await client.execute('SELECT release_version FROM system.local');
    const nodes = Number(env.PROBE_NODES ?? '1');
    if (nodes > 1) {
      const up = client.hosts.values();
      const count = up.filter((h) => h.isUp()).length;
      if (count < nodes) throw new Error(`${count} of ${nodes} Cassandra nodes up`);
      return `release_version ${rs.first().get('release_version')}, ${count} nodes up`;
    }
    return `release_version ${rs.first().get('release_version')}`;
  } finally {
    await client.shutdown().catch(() => undefined);
  }
}

async function sshd() {
  const { Client } = (await import('ssh2')).default;
  const dir = env.SSHD_DIR;
  if (!dir) throw new Error('SSHD_DIR is not set');
  const privateKey = readFileSync(`${dir}/client_ed25519_key`);
  const conn = new Client();
  try {
    const list = await new Promise((resolve, reject) => {
      conn
        .on('ready', () => {
          conn.sftp((err, sftp) => {
            if (err) return reject(err);
            sftp.readdir('.', (e, entries) => (e ? reject(e) : resolve(entries)));
          });
        })
        .on('error', reject)
        .connect({
          host: '127.0.0.1',
          port: Number(env.SSHD_PORT ?? '2222'),
          username: env.SSHD_USER,
          privateKey,
          readyTimeout: 10_000,
        });
    });
    return `SFTP root lists ${list.length} entries`;
  } finally {
    conn.end();
  }
}

const probes = { kafka, registry, cassandra, sshd };
const probe = probes[component];
if (!probe) {
  process.stderr.write(`usage: probe.mjs ${Object.keys(probes).join('|')} [--timeout S] [--pid PID]\n`);
  process.exit(2);
}

const deadline = Date.now() + timeoutMs;
let last = 'not tried';
for (;;) {
  if (!alive()) {
    process.stderr.write(`${component}: process ${pid} exited; last probe error: ${last}\n`);
    process.exit(1);
  }
  try {
    const what = await withTimeout(probe(), 60_000, `${component} probe`);
    process.stdout.write(`${component}: ready (${what})\n`);
    process.exit(0);
  } catch (err) {
    last = err instanceof Error ? err.message : String(err);
  }
  if (Date.now() > deadline) {
    process.stderr.write(`${component}: not ready after ${timeoutMs / 1000} s; last probe error: ${last}\n`);
    process.exit(1);
  }
  await sleep(1_000);
}
