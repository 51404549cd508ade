/**
 * Writes many rows with few requests: the statements that write one partition go together as
 * unlogged batches (one request, and one mutation of that partition on each replica), the rest
 * one request each, a bounded number at once.
 *
 * A batch of one partition is the cheap kind: it is applied as a single mutation, on the replicas
 * that own the partition, without the batch log. The statements of small partitions (a result
 * by id, a transaction's update, the three clocks of one trace) go together in unlogged batches
 * of at most `maxPartitions` (10) partitions, each partition's statements whole: one request
 * instead of ten, which costs the client and the server about half as much per row
 * (docs/performance.md), while the coordinator forwards at most ten mutations, and Cassandra
 * does not warn (it warns above `unlogged_batch_across_partitions_warn_threshold`, 10). A
 * partition with more statements than one batch holds gets batches of its own.
 *
 * A batch is cut at `maxStatements` statements or `maxBytes` of bound values (an estimate), so
 * it stays well under the server's `batch_size_fail_threshold` (50 KiB by default); a single
 * statement larger than `maxBytes` is sent on its own.
 */
import type { Client, types } from 'cassandra-driver';
import { eachLimit, mapLimit } from '../../domain/concurrency.ts';

export interface GroupedStatement {
  readonly query: string;
  readonly params: readonly unknown[];
  /** The statement's partition key, as any string unique to the partition. */
  readonly partition: string;
}

export interface GroupedOptions {
  /** Statements of one batch at most. @default 64 */
  readonly maxStatements?: number;
  /** Estimated bytes of bound values of one batch at most. @default 24 KiB */
  readonly maxBytes?: number;
  /** Requests in flight at most. @default 64 */
  readonly concurrency?: number;
  /** Partitions of one batch of lone statements at most (1: each alone). @default 10 */
  readonly maxPartitions?: number;
}

/** Estimated size of a bound value, in bytes (strings count their UTF-16 length: close enough for a bound). */
export function valueBytes(v: unknown): number {
  if (v === null || v === undefined) return 4;
  if (typeof v === 'string') return v.length + 4;
  if (Buffer.isBuffer(v)) return v.length + 4;
  if (typeof v === 'number' || typeof v === 'boolean') return 12;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + valueBytes(x), 4);
  if (v instanceof Map) {
    let n = 4;
    for (const [k, x] of v) n += valueBytes(k) + valueBytes(x);
    return n;
  }
  if (typeof v === 'object') {
    // driver values (Long, Uuid) are small; a plain object is a map column
    if (v.constructor !== Object) return 16;
    let n = 4;
    for (const [k, x] of Object.entries(v)) n += valueBytes(k) + valueBytes(x);
    return n;
  }
  return 16;
}

/** One request: a lone statement, or a batch of statements of one partition. */
export type GroupedRequest = { readonly kind: 'one'; readonly statement: GroupedStatement } | { readonly kind: 'batch'; readonly statements: readonly GroupedStatement[] };

/** The requests `statements` are written with (order within a partition kept). */
export function planRequests(statements: readonly GroupedStatement[], opts: GroupedOptions = {}): GroupedRequest[] {
  const maxStatements = opts.maxStatements ?? 64;
  const maxBytes = opts.maxBytes ?? 24 * 1024;
  const byPartition = new Map<string, GroupedStatement[]>();
  for (const s of statements) {
    let list = byPartition.get(s.partition);
    if (!list) byPartition.set(s.partition, (list = []));
    list.push(s);
  }
  const maxPartitions = opts.maxPartitions ?? 10;
  const out: GroupedRequest[] = [];
  const sizeOf = (s: GroupedStatement): number => s.params.reduce((n: number, v) => n + valueBytes(v), 0);
  const emit = (list: GroupedStatement[]): void => {
    if (list.length === 1) out.push({ kind: 'one', statement: list[0]! });
    else if (list.length > 1) out.push({ kind: 'batch', statements: list });
  };
  // A partition whose statements fit one batch is a unit; units share a batch up to
  // maxPartitions partitions (and the statement and byte bounds). A larger partition is cut
  // into batches of its own.
  let cur: GroupedStatement[] = [];
  let curBytes = 0;
  let curPartitions = 0;
  const close = (): void => {
    emit(cur);
    cur = [];
    curBytes = 0;
    curPartitions = 0;
  };
  for (const list of byPartition.values()) {
    const bytes = list.reduce((n, st) => n + sizeOf(st), 0);
    if (list.length <= maxStatements && bytes <= maxBytes) {
      if (cur.length > 0 && (curPartitions >= maxPartitions || cur.length + list.length > maxStatements || curBytes + bytes > maxBytes)) close();
      cur.push(...list);
      curBytes += bytes;
      curPartitions++;
      continue;
    }
    let own: GroupedStatement[] = [];
    let ownBytes = 0;
    for (const st of list) {
      const size = sizeOf(st);
      if (own.length > 0 && (own.length >= maxStatements || ownBytes + size > maxBytes)) {
        emit(own);
        own = [];
        ownBytes = 0;
      }
      own.push(st);
      ownBytes += size;
    }
    emit(own);
  }
  close();
  return out;
}

/** Writes `statements` (prepared), batching those of one partition. */
export async function writeGrouped(client: Client, statements: readonly GroupedStatement[], opts: GroupedOptions = {}): Promise<void> {
  if (statements.length === 0) return;
  const requests = planRequests(statements, opts);
  const concurrency = opts.concurrency ?? 64;
  const run = (r: GroupedRequest): Promise<unknown> =>
    r.kind === 'one'
      ? client.execute(r.statement.query, r.statement.params as unknown[], { prepare: true })
      : client.batch(
          r.statements.map((s) => ({ query: s.query, params: s.params as unknown[] })),
          { prepare: true, logged: false },
        );
  if (requests.length === 1) {
    await run(requests[0]!);
    return;
  }
  // after a failure no further request starts; the first failure is the one thrown
  let failed: Error | undefined;
  await eachLimit(
    requests,
    concurrency,
    async (r) => {
      try {
        await run(r);
      } catch (err) {
        failed ??= err instanceof Error ? err : new Error(`Cassandra write failed: ${JSON.stringify(err)}`);
      }
    },
    () => failed !== undefined,
  );
  if (failed !== undefined) throw failed;
}

/** Reads with `WHERE ... IN ?` over `keys`, `chunk` keys a request, a bounded number at once. */
export async function readIn(client: Client, query: string, fixed: readonly unknown[], keys: readonly string[], chunk = 100, concurrency = 16): Promise<types.Row[]> {
  const unique = [...new Set(keys)];
  const parts: string[][] = [];
  for (let i = 0; i < unique.length; i += chunk) parts.push(unique.slice(i, i + chunk));
  const read = await mapLimit(parts, concurrency, async (part) => (await client.execute(query, [...fixed, part], { prepare: true, fetchSize: Math.max(5000, chunk) })).rows);
  return read.flat();
}

/**
 * Point reads gathered into `IN` reads: the keys asked for while one turn of the event loop runs
 * (the items of a batch run side by side, each reading its own row) are loaded with one call per
 * group when the turn ends (`load` bounds its requests, as `readIn` does). A key asked for twice
 * in one turn is read once. Nothing is kept: every read is issued after it was asked for, so a
 * reader sees what was written before it asked, as with a read of its own.
 */
export function coalescedReads<V>(load: (group: string, keys: readonly string[]) => Promise<ReadonlyMap<string, V>>): (group: string, key: string) => Promise<V | undefined> {
  type Waiter = { resolve(v: V | undefined): void; reject(err: unknown): void };
  let pending = new Map<string, Map<string, Waiter[]>>();
  const flush = (): void => {
    const groups = pending;
    pending = new Map();
    for (const [group, keys] of groups) {
      load(group, [...keys.keys()]).then(
        (found) => {
          for (const [k, waiters] of keys) for (const w of waiters) w.resolve(found.get(k));
        },
        (err: unknown) => {
          for (const waiters of keys.values()) for (const w of waiters) w.reject(err);
        },
      );
    }
  };
  return (group, key) =>
    new Promise<V | undefined>((resolve, reject) => {
      if (pending.size === 0) setImmediate(flush);
      let keys = pending.get(group);
      if (!keys) pending.set(group, (keys = new Map<string, Waiter[]>()));
      let waiters = keys.get(key);
      if (!waiters) keys.set(key, (waiters = []));
      waiters.push({ resolve, reject });
    });
}
