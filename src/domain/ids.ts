/**
 * Record identifiers: UUID version 7 (RFC 9562), so ids sort by creation time and a list
 * ordered by id is ordered by creation. Pure: uses the global Web Crypto random source.
 */

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
