/**
 * What a row costs Cassandra by the shape of its writes and reads, on the stack's own node:
 * Cassandra's CPU seconds (utime + stime of its process, /proc) per row written as a partition
 * of its own (batches of ten partitions, as the pipeline's by-id rows go), as ten rows of one
 * partition, and as a hundred; and per partition read, a hundred partitions to an IN query and
 * one to a query. Rows of 200 bytes in a keyspace of its own, dropped at the end. It prices the
 * choices of docs/performance.md (which rows to key by trace, which reads to remove).
 *
 *   npx tsx bench/pipeline/cassandra-rows.ts        (the stack's environment: .stack/env)
 */
import { loadavg } from 'node:os';
import cassandra from 'cassandra-driver';
import { loadConfig } from '../../src/config.ts';
import { mapLimit } from '../../src/domain/concurrency.ts';
import { cpuSeconds, listenerPid } from './procstat.ts';

const config = loadConfig();
const port = Number(/:(\d+)$/.exec(config.cassandra.contactPoints[0] ?? '')?.[1] ?? 9042);
const pid = listenerPid(port);
if (pid === undefined) throw new Error(`no process listens on Cassandra's port ${port} here`);
const cpu = (): number => cpuSeconds(pid) ?? 0;
const KS = `bench_rows_${Date.now()}`;
const ROWS = Number(process.env['BENCH_ROWS'] ?? 20_000);
const ROUNDS = 2;

const client = new cassandra.Client({ contactPoints: [...config.cassandra.contactPoints], localDataCenter: config.cassandra.localDataCenter });
await client.connect();
console.log(`cassandra-rows on pid ${pid}, ${ROWS} rows a shape, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await client.execute(`CREATE KEYSPACE ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
await client.execute(`CREATE TABLE ${KS}.t (k text, c text, v text, PRIMARY KEY ((k), c))`);
const payload = 'x'.repeat(200);
const insert = `INSERT INTO ${KS}.t (k, c, v) VALUES (?, ?, ?)`;

/** Requests in flight at once. */
const IN_FLIGHT = 16;

async function writes(shape: string, rowsPerPartition: number, partitionsPerBatch: number): Promise<string> {
  const tag = `${shape}-${Date.now()}`;
  const batches: { query: string; params: string[] }[][] = [];
  let cur: { query: string; params: string[] }[] = [];
  for (let p = 0; p < ROWS / rowsPerPartition; p++) {
    for (let r = 0; r < rowsPerPartition; r++) cur.push({ query: insert, params: [`${tag}-${p}`, `r${r}`, payload] });
    if ((p + 1) % partitionsPerBatch === 0) {
      batches.push(cur);
      cur = [];
    }
  }
  if (cur.length > 0) batches.push(cur);
  const c0 = cpu();
  await mapLimit(batches, IN_FLIGHT, (b) => client.batch(b, { prepare: true, logged: false }));
  const used = cpu() - c0;
  console.log(`  write, ${shape}: ${((used / ROWS) * 1e6).toFixed(1)} µs of Cassandra CPU a row (${used.toFixed(2)} s for ${ROWS} rows in ${batches.length} batches)`);
  return tag;
}

async function reads(shape: string, tag: string, perQuery: number): Promise<void> {
  const keys = Array.from({ length: ROWS }, (_, p) => `${tag}-${p}`);
  const groups: string[][] = [];
  for (let i = 0; i < keys.length; i += perQuery) groups.push(keys.slice(i, i + perQuery));
  let rows = 0;
  const c0 = cpu();
  await mapLimit(groups, IN_FLIGHT, async (g) => {
    const rs = await client.execute(`SELECT k, c, v FROM ${KS}.t WHERE k IN ?`, [g], { prepare: true, fetchSize: 5000 });
    rows += rs.rowLength;
  });
  const used = cpu() - c0;
  if (rows !== ROWS) throw new Error(`read ${rows} rows of ${ROWS}`);
  console.log(`  read, ${shape}: ${((used / ROWS) * 1e6).toFixed(1)} µs of Cassandra CPU a partition (${used.toFixed(2)} s, ${groups.length} queries)`);
}

try {
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}`);
    const single = await writes('a partition a row, ten partitions a batch', 1, 10);
    await writes('ten rows a partition, a partition a batch', 10, 1);
    await writes('a hundred rows a partition, a partition a batch', 100, 1);
    await reads('a hundred partitions an IN query', single, 100);
    await reads('a partition a query', single, 1);
  }
} finally {
  await client.execute(`DROP KEYSPACE IF EXISTS ${KS}`);
  await client.shutdown();
}
