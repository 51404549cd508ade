/**
 * What a request costs Cassandra by how often requests arrive, on the stack's own node:
 * Cassandra's CPU seconds (utime + stime of its process, /proc) per trivial read (one row of
 * system.local by a prepared statement) offered open loop at fixed rates, and each read's
 * latency. A request arriving alone wakes the node's request stages, whose pooled threads then
 * park again and again for microseconds waiting for the next (SEPWorker's spin); the CPU that
 * costs depends on the kernel's timer slack of those threads, which deploy/stack.sh sets
 * (TDX_STACK_CASSANDRA_TIMER_SLACK_NS, docs/stack.md).
 *
 *   npx tsx bench/pipeline/cassandra-wakeups.ts        (the stack's environment: .stack/env)
 *
 * BENCH_RATES (50,200,1000,4000 reads a second), BENCH_SECONDS (8 a rate). BENCH_SLACKS
 * (nanoseconds, comma-separated): measure each rate under each slack, set on every thread of the
 * node through /proc/<tid>/timerslack_ns (needs CAP_SYS_NICE, as root; threads started later
 * inherit it from their creator), the rows side by side, then the node's slack put back.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import cassandra from 'cassandra-driver';
import { loadConfig } from '../../src/config.ts';
import { cpuSeconds, listenerPid, load, pct } from './procstat.ts';

const config = loadConfig();
const port = Number(/:(\d+)$/.exec(config.cassandra.contactPoints[0] ?? '')?.[1] ?? 9042);
const pid = listenerPid(port);
if (pid === undefined) throw new Error(`no process listens on Cassandra's port ${port} here`);
const cpu = (): number => cpuSeconds(pid) ?? 0;
const list = (v: string | undefined, fallback: string): number[] => (v ?? fallback).split(',').filter((s) => s.trim() !== '').map(Number);
const RATES = list(process.env['BENCH_RATES'], '50,200,1000,4000');
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 8);
const slackOf = (): number => Number(readFileSync(`/proc/${pid}/timerslack_ns`, 'utf8').trim());
const ORIGINAL = slackOf();
const SLACKS = list(process.env['BENCH_SLACKS'], String(ORIGINAL));

/** Sets the timer slack of every thread of the node; false when the kernel refuses. */
function setSlack(ns: number): boolean {
  let ok = true;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      writeFileSync(`/proc/${tid}/timerslack_ns`, String(ns));
    } catch {
      ok = false;
    }
  }
  return ok;
}

const client = new cassandra.Client({ contactPoints: [...config.cassandra.contactPoints], localDataCenter: config.cassandra.localDataCenter });
await client.connect();
const READ = 'SELECT release_version FROM system.local';

interface Row {
  readonly slack: number;
  readonly rate: number;
  readonly cpuUsPerRead: number;
  readonly cores: number;
  readonly p50: number;
  readonly p99: number;
}

/** One rate, open loop: the reads due by each 2 ms tick are sent on it, answered or not. */
async function measure(slack: number, rate: number): Promise<Row> {
  const latencies: number[] = [];
  const pending: Promise<unknown>[] = [];
  const started = performance.now();
  const c0 = cpu();
  let sent = 0;
  for (;;) {
    const elapsed = performance.now() - started;
    if (elapsed >= SECONDS * 1000) break;
    for (const due = Math.floor((elapsed / 1000) * rate); sent < due; sent++) {
      const t0 = performance.now();
      pending.push(client.execute(READ, [], { prepare: true }).then(() => latencies.push(performance.now() - t0)));
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(pending);
  const used = cpu() - c0;
  const wall = (performance.now() - started) / 1000;
  return { slack, rate, cpuUsPerRead: (used / sent) * 1e6, cores: used / wall, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

console.log(`cassandra-wakeups on pid ${pid} (timer slack ${ORIGINAL} ns), ${SECONDS} s a rate, load average ${load()}`);
const rows: Row[] = [];
try {
  for (let i = 0; i < 10; i++) await client.execute(READ, [], { prepare: true });
  for (const slack of SLACKS) {
    if (slack !== slackOf() && !setSlack(slack)) {
      console.log(`  the timer slack of the node's threads could not be set to ${slack} ns here (needs CAP_SYS_NICE): skipped`);
      continue;
    }
    for (const rate of RATES) {
      const r = await measure(slack, rate);
      rows.push(r);
      console.log(
        `  slack ${slack} ns, ${rate} reads/s: ${r.cpuUsPerRead.toFixed(0)} µs of Cassandra CPU a read, ${r.cores.toFixed(2)} cores; latency p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms; load ${load()}`,
      );
    }
  }
} finally {
  if (slackOf() !== ORIGINAL) setSlack(ORIGINAL);
  await client.shutdown();
}
const base = rows.filter((r) => r.slack === ORIGINAL);
for (const r of rows.filter((x) => x.slack !== ORIGINAL)) {
  const b = base.find((x) => x.rate === r.rate);
  if (b) console.log(`  ${r.rate} reads/s: slack ${r.slack} ns against the node's ${ORIGINAL} ns: CPU ×${(r.cpuUsPerRead / b.cpuUsPerRead).toFixed(2)}, latency p50 ×${(r.p50 / b.p50).toFixed(2)}`);
}
