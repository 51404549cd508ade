/**
 * Cell conversions and the retention TTL shared by the Cassandra stores of the pipeline.
 */
import cassandra from 'cassandra-driver';
import type { Micros } from '../../domain/records.ts';
import { remainingTtlSeconds } from '../../domain/retention.ts';

export type Params = unknown[];

/** A row as the stores read it: its cells by column name. */
export interface Row {
  get(name: string): unknown;
}

export const num = (v: unknown): number => (v === null || v === undefined ? 0 : typeof v === 'number' ? v : Number((v as { toString(): string }).toString()));
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));
export const str = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : (v as { toString(): string }).toString());
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : str(v));
export const long = (v: number): cassandra.types.Long => cassandra.types.Long.fromNumber(v);
export const longOrNull = (v: number | null): cassandra.types.Long | null => (v === null ? null : long(v));

/** The retention the stores write with (config.cassandra.retentionSeconds; docs/retention.md). */
export interface StoreRetention {
  readonly retentionSeconds: number;
  /** Clock in microseconds (injectable for tests). */
  readonly now?: () => Micros;
}

/**
 * `USING TTL` of a record's writes: every cell of a record, whenever written, expires when the
 * record ages out (createdAt + R), so a row updated after its creation never outlives its first
 * cells as a partial row. Without a retention the tables' `default_time_to_live` applies (R from
 * each write).
 */
export class Ttl {
  constructor(private readonly r: StoreRetention | undefined) {}

  /** ` USING TTL ?` or nothing. */
  get clause(): string {
    return this.r ? ' USING TTL ?' : '';
  }

  /** `TTL ? AND ` before a TIMESTAMP of a USING clause, or nothing. */
  get andClause(): string {
    return this.r ? 'TTL ? AND ' : '';
  }

  /** The TTL parameter of a record created at `createdAt` (none without a retention). */
  params(createdAt: Micros): Params {
    if (!this.r) return [];
    return [remainingTtlSeconds(createdAt, this.r.now ? this.r.now() : Date.now() * 1000, this.r.retentionSeconds)];
  }
}
