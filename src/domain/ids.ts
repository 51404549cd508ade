/**
 * Record identifiers.
 *
 * - `newId`: UUID version 7 (RFC 9562), so ids sort by creation time and a list ordered by id
 *   is ordered by creation. Pure: uses the global Web Crypto random source.
 * - `deterministicId` and its uses: ids of processing effects. A redelivered message must
 *   rewrite the same rows and emit the same feed entry, so these ids derive from what the step
 *   ran on, never from a clock or a random source. They are UUID-shaped (version 8, RFC 9562
 *   "custom"): the first 122 bits of SHA-256(kind NUL part1 NUL part2 ...), so they pass the
 *   same well-formedness check as random ids and never collide across kinds. They are stored:
 *   test/unit/domain/deterministic-ids.test.ts pins golden values so a change of the derivation fails.
 * - `traceScopedId` (result ids): the same, with the trace's bucket as the first eight hex
 *   digits, so the ids of one trace can be stored together and found by id alone.
 */
import { hash } from 'node:crypto';

const VARIANT = '89ab';

export function deterministicId(kind: string, ...parts: ReadonlyArray<string | number>): string {
  // one hash of `kind NUL part1 NUL part2 ...` (the bytes incremental updates would feed it),
  // formatted from its hex: no hash object and no buffer per id
  let input = kind;
  for (const p of parts) input += `\u0000${p}`;
  const h = hash('sha256', input, 'hex');
  // version 8 in the high nibble of byte 6, variant 10 in the two high bits of byte 8
  const variant = VARIANT[parseInt(h[16]!, 16) & 0x3]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

let lastTrace = '';
let lastBucket = '';

/**
 * The trace's bucket: eight hex digits (the first 32 bits of SHA-256 of `trace NUL guid`) that
 * every trace-scoped id of the trace begins with, so a store can keep a trace's ids together and
 * still find any one from the id alone. Different traces share a bucket rarely (2^32 of them).
 */
export function traceBucket(traceGuid: string): string {
  // the ids of one pass are made for one trace: the last one is remembered
  if (traceGuid !== lastTrace) {
    lastBucket = hash('sha256', `trace\u0000${traceGuid}`, 'hex').slice(0, 8);
    lastTrace = traceGuid;
  }
  return lastBucket;
}

/** The bucket a trace-scoped id names (its first eight hex digits). */
export function bucketOfId(id: string): string {
  return id.slice(0, 8);
}

/**
 * A deterministic id (as `deterministicId(kind, traceGuid, ...parts)`) whose first eight hex
 * digits are its trace's bucket instead: still UUID-shaped (version 8), still derived from
 * what the step ran on alone.
 */
export function traceScopedId(kind: string, traceGuid: string, ...parts: ReadonlyArray<string | number>): string {
  return traceBucket(traceGuid) + deterministicId(kind, traceGuid, ...parts).slice(8);
}

/** Id of the result a node step writes: (trace, node, transaction, attempt), in its trace's bucket. */
export function resultId(traceGuid: string, nodeId: string, transactionId: string | null, attempt: number): string {
  return traceScopedId('result', traceGuid, nodeId, transactionId ?? '', attempt);
}

/** Id of the feed entry reporting a result; a republished result collapses onto it. */
export function feedEntryId(resultId: string): string {
  return deterministicId('feed', resultId);
}



const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

let lastMs = 0;
let seq = 0;

/**
 * A new UUIDv7 string (lowercase, hyphenated). Ids made by one process are strictly
 * increasing, also within one millisecond (a 12-bit sequence in `rand_a`, RFC 9562 §6.2
 * method 1), so records created together list in creation order. `now` is injectable.
 */
export function newId(now: number = Date.now()): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  if (now <= lastMs) {
    seq++;
    if (seq > 0xfff) {
      lastMs++;
      seq = 0;
    }
  } else {
    lastMs = now;
    seq = (b[7] ?? 0) & 0x7f;
  }
  let ms = lastMs;
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = 0x70 | (seq >> 8);
  b[7] = seq & 0xff;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[b[i] ?? 0];
  }
  return s;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a well-formed id (anything else answers 404 without touching a store). */
export function isWellFormedId(id: string): boolean {
  return UUID_RE.test(id);
}
