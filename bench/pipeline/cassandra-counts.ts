/**
 * What Cassandra itself counts while a scenario runs (`BENCH_CASSANDRA_COUNTS=1`): local reads,
 * writes and scans per table of the bench's keyspace (`system_views.local_read_latency`,
 * `local_write_latency`, `local_scan_latency`) and tasks completed per thread pool
 * (`system_views.thread_pools`), read before and after the timed part. They are counts, not
 * timings, so they do not move with the machine's load; per set, they show which tables a change
 * touches less (a partition read of an `IN` read counts once per partition).
 */
import type { Client } from 'cassandra-driver';

export type CassandraCounts = ReadonlyMap<string, number>;

const TABLE_VIEWS = [
  ['local_read_latency', 'reads'],
  ['local_write_latency', 'writes'],
  ['local_scan_latency', 'scans'],
] as const;

/** The counters now: `<reads|writes|scans> <table>` for the keyspace's tables, `tasks <pool>` for the thread pools. */
export async function cassandraCounts(client: Client, keyspace: string): Promise<CassandraCounts> {
  const out = new Map<string, number>();
  for (const [view, what] of TABLE_VIEWS) {
    const rs = await client.execute(`SELECT table_name, count FROM system_views.${view} WHERE keyspace_name = ?`, [keyspace]);
    for (const r of rs.rows) out.set(`${what} ${String(r.get('table_name'))}`, Number(r.get('count')));
  }
  for (const r of (await client.execute('SELECT name, completed_tasks FROM system_views.thread_pools')).rows) out.set(`tasks ${String(r.get('name'))}`, Number(r.get('completed_tasks')));
  return out;
}

/** The counters that moved between two readings, per set, largest first (at most `top`). */
export function countsPerSet(before: CassandraCounts, after: CassandraCounts, sets: number, top = 16): string {
  const moved = [...after]
    .map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / Math.max(1, sets)] as const)
    .filter(([, v]) => v >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  return moved.map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ');
}
