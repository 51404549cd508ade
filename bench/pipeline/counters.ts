/**
 * Work counters for the in-process run: the bench wraps the prototypes of the clients the
 * service uses (nothing in src/ changes) and counts, per scenario, Cassandra statements by
 * statement, Kafka produce requests and records, Avro encodes and decodes, ClickHouse inserts
 * and rows, and JSON parse/stringify calls. It also keeps the Cassandra writes (statement,
 * parameters, options) so the Cassandra ceiling can run exactly those statements again.
 */
import cassandra from 'cassandra-driver';
import type { ClickHouseClient } from '@clickhouse/client';
import { createRequire } from 'node:module';
import { BatchingProducer } from '../../src/adapters/kafka/client.ts';
import { WireRegistry } from '../../src/adapters/kafka/registry.ts';

export interface RecordedWrite {
  readonly query: string;
  readonly params: unknown;
  readonly options: unknown;
  /** A batch: its statements (then `query` is `BATCH` and `options` the batch's). */
  readonly batch?: readonly { query: string; params?: unknown }[];
}

export interface Counts {
  cassandraStatements: number;
  cassandraBatches: number;
  cassandraWrites: number;
  byStatement: Map<string, number>;
  kafkaSendCalls: number;
  kafkaRecords: number;
  kafkaProduceRequests: number;
  /** Requests kafkajs sent to the broker, by API (Produce, Fetch, OffsetCommit, Heartbeat, ...). */
  kafkaRequests: Map<string, number>;
  avroEncodes: number;
  avroDecodes: number;
  clickhouseInserts: number;
  clickhouseRows: number;
  clickhouseQueries: number;
  /** Inserts and their rows by table (`<database>.<table>` as the insert named it, database left out). */
  clickhouseByTable: Map<string, { inserts: number; rows: number }>;
  jsonParses: number;
  jsonStringifies: number;
}

const fresh = (): Counts => ({
  cassandraStatements: 0,
  cassandraBatches: 0,
  cassandraWrites: 0,
  byStatement: new Map(),
  kafkaSendCalls: 0,
  kafkaRecords: 0,
  kafkaProduceRequests: 0,
  kafkaRequests: new Map(),
  avroEncodes: 0,
  avroDecodes: 0,
  clickhouseInserts: 0,
  clickhouseRows: 0,
  clickhouseQueries: 0,
  clickhouseByTable: new Map(),
  jsonParses: 0,
  jsonStringifies: 0,
});

let counts = fresh();
let recording: RecordedWrite[] | undefined;
const MAX_RECORDED = 500_000;

const names = new Map<string, string>();
/** Short name of a CQL statement: verb and table (and LWT). */
function statementName(q: string): string {
  let n = names.get(q);
  if (n === undefined) names.set(q, (n = nameOf(q)));
  return n;
}
function nameOf(q: string): string {
  const s = q.replace(/\s+/g, ' ').trim();
  const m = /^(SELECT .*? FROM|INSERT INTO|UPDATE|DELETE .*?FROM|BEGIN BATCH)\s+([\w".]+)/i.exec(s);
  const verb = (m?.[1] ?? s.split(' ')[0] ?? '').split(' ')[0]!.toUpperCase();
  return `${verb} ${m?.[2] ?? ''}${/ IF (NOT EXISTS|EXISTS|\w+ =)/i.test(s) ? ' (LWT)' : ''}`.trim();
}
const isWrite = (q: string): boolean => /^\s*(INSERT|UPDATE|DELETE)/i.test(q);

let installed = false;
/** Wraps the prototypes once; counting starts at `reset()`. */
export function installCounters(): void {
  if (installed) return;
  installed = true;
  const C = cassandra.Client.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const execute = C['execute']!;
  C['execute'] = function (this: unknown, ...args: unknown[]) {
    const q = String(args[0]);
    counts.cassandraStatements++;
    const name = statementName(q);
    counts.byStatement.set(name, (counts.byStatement.get(name) ?? 0) + 1);
    if (isWrite(q)) {
      counts.cassandraWrites++;
      if (recording && recording.length < MAX_RECORDED && typeof args[2] === 'object') recording.push({ query: q, params: args[1], options: args[2] });
    }
    return execute.apply(this, args);
  };
  const batch = C['batch']!;
  C['batch'] = function (this: unknown, ...args: unknown[]) {
    counts.cassandraBatches++;
    const list = (args[0] ?? []) as { query: string; params?: unknown }[];
    for (const s of list) {
      const q = typeof s === 'string' ? s : s.query;
      counts.cassandraWrites++;
      const name = `BATCH ${statementName(q)}`;
      counts.byStatement.set(name, (counts.byStatement.get(name) ?? 0) + 1);
    }
    // recorded as the batch it is, so the ceiling replays the pipeline's own requests
    if (recording && recording.length < MAX_RECORDED && list.every((s) => typeof s !== 'string')) recording.push({ query: 'BATCH', params: null, options: args[1] ?? {}, batch: list });
    return batch.apply(this, args);
  };

  const P = BatchingProducer.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const send = P['send']!;
  P['send'] = function (this: unknown, ...args: unknown[]) {
    counts.kafkaSendCalls++;
    counts.kafkaRecords += (args[0] as unknown[]).length;
    return send.apply(this, args);
  };
  const flush = P['flush']!;
  P['flush'] = function (this: { pending: unknown[] }, ...args: unknown[]) {
    if (this.pending.length > 0) counts.kafkaProduceRequests++;
    return flush.apply(this, args);
  };

  // kafkajs's connection class (not exported by the package): every request to the broker
  const Connection = (createRequire(import.meta.url)('kafkajs/src/network/connection.js') as { prototype: Record<string, (...a: unknown[]) => unknown> }).prototype;
  const connSend = Connection['send']!;
  Connection['send'] = function (this: unknown, ...args: unknown[]) {
    const api = (args[0] as { request?: { apiName?: string } }).request?.apiName ?? '?';
    counts.kafkaRequests.set(api, (counts.kafkaRequests.get(api) ?? 0) + 1);
    return connSend.apply(this, args);
  };

  const W = WireRegistry.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const encode = W['encode']!;
  W['encode'] = function (this: unknown, ...args: unknown[]) {
    counts.avroEncodes++;
    return encode.apply(this, args);
  };
  const decode = W['decode']!;
  W['decode'] = function (this: unknown, ...args: unknown[]) {
    counts.avroDecodes++;
    return decode.apply(this, args);
  };

  const parse = JSON.parse;
  JSON.parse = function (...args: Parameters<typeof JSON.parse>) {
    counts.jsonParses++;
    return parse.apply(JSON, args) as unknown;
  } as typeof JSON.parse;
  const stringify = JSON.stringify;
  JSON.stringify = function (...args: Parameters<typeof JSON.stringify>) {
    counts.jsonStringifies++;
    return stringify.apply(JSON, args);
  } as typeof JSON.stringify;
}

/**
 * Counts the inserts (and their rows) and queries of one ClickHouse client: the embedded
 * engine's client is one object per data folder, shared by the roles of this process.
 */
export function countClickHouse(client: ClickHouseClient): void {
  const H = client as unknown as Record<string, (...a: unknown[]) => unknown>;
  if (H['__counted']) return;
  H['__counted'] = () => undefined;
  const insert = H['insert']!.bind(client);
  H['insert'] = (...args: unknown[]) => {
    counts.clickhouseInserts++;
    const { values, table } = args[0] as { values?: unknown; table?: string };
    const rows = Array.isArray(values) ? values.length : 0;
    counts.clickhouseRows += rows;
    const name = (table ?? '?').split('.').pop()!;
    const t = counts.clickhouseByTable.get(name) ?? { inserts: 0, rows: 0 };
    counts.clickhouseByTable.set(name, { inserts: t.inserts + 1, rows: t.rows + rows });
    return insert(...args);
  };
  const query = H['query']!.bind(client);
  H['query'] = (...args: unknown[]) => {
    counts.clickhouseQueries++;
    return query(...args);
  };
}

/** Zeroes the counters; with `record`, keeps the Cassandra writes from now on. */
export function resetCounters(record = false): void {
  counts = fresh();
  recording = record ? [] : undefined;
}

/** The counters since `resetCounters`, and the recorded writes (recording stops). */
export function takeCounters(): { counts: Counts; writes: RecordedWrite[] } {
  const out = { counts, writes: recording ?? [] };
  recording = undefined;
  return out;
}
