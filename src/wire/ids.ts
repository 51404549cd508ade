/**
 * Deterministic identifiers for at-least-once processing: a redelivered message must rewrite
 * the same rows and emit the same feed entry, so ids of step effects derive from what the
 * step ran on, never from a clock or a random source.
 *
 * The id is UUID-shaped (version 8, RFC 9562 "custom"): the first 122 bits of
 * SHA-256(kind NUL part1 NUL part2 ...), so it passes the same well-formedness check as
 * random ids and never collides across kinds.
 */
import { createHash } from 'node:crypto';

export function deterministicId(kind: string, ...parts: ReadonlyArray<string | number>): string {
  const h = createHash('sha256');
  h.update(kind);
  for (const p of parts) {
    h.update('\u0000');
    h.update(String(p));
  }
  const b = h.digest();
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Id of the result a node step writes: (trace, node, transaction, attempt). */
export function resultId(traceGuid: string, nodeId: string, transactionId: string | null, attempt: number): string {
  return deterministicId('result', traceGuid, nodeId, transactionId ?? '', attempt);
}

/** Id of the feed entry reporting a result; a republished result collapses onto it. */
export function feedEntryId(resultId: string): string {
  return deterministicId('feed', resultId);
}
