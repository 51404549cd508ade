/**
 * Retention (contract: Limits, "Retention 45 days"; docs/retention.md). Every record is kept
 * `retentionSeconds` (R) from its own `createdAt`: every cell written for it, whenever written,
 * expires at createdAt + R, and readers treat a record past that instant as absent even before
 * the stores have removed it (Cassandra compaction, ClickHouse TTL merges).
 */
import type { Micros } from './records.ts';

const US = 1_000_000;

/**
 * The TTL, in whole seconds, that makes a cell written at `now` expire when a record created at
 * `createdAt` ages out: R minus the record's age, rounded up (Cassandra counts TTLs in seconds),
 * and at least 1, because a TTL of 0 means "never expires" in Cassandra and a record already
 * past its retention must not be written back to live forever.
 */
export function remainingTtlSeconds(createdAt: Micros, now: Micros, retentionSeconds: number): number {
  const left = Math.ceil((createdAt + retentionSeconds * US - now) / US);
  return Math.min(Math.max(left, 1), retentionSeconds + 1);
}

/** The oldest `createdAt` still kept at `now`: a record created before it has aged out. */
export function retentionCutoff(now: Micros, retentionSeconds: number): Micros {
  return now - retentionSeconds * US;
}

/** Whether a record created at `createdAt` has aged out at `now` (kept while createdAt + R > now). */
export function agedOut(createdAt: Micros, now: Micros, retentionSeconds: number): boolean {
  return createdAt <= retentionCutoff(now, retentionSeconds);
}

/**
 * `deliveredAt` as the API shows it: the time of the document's first success feed entry,
 * null once that entry aged out (contract: "null on old documents whose feed entries were
 * removed").
 */
export function visibleDeliveredAt(deliveredAt: Micros | null, now: Micros, retentionSeconds: number): Micros | null {
  return deliveredAt !== null && agedOut(deliveredAt, now, retentionSeconds) ? null : deliveredAt;
}

/** The contract's retention (45 days), config.cassandra.retentionSeconds' default. */
export const CONTRACT_RETENTION_SECONDS = 45 * 86_400;

/** The retention in words for messages: "45 days", "1 day", "3 hours", "10 seconds". */
export function retentionText(retentionSeconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  for (const [size, name] of units) {
    if (retentionSeconds % size === 0) {
      const n = retentionSeconds / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${retentionSeconds} seconds`;
}
