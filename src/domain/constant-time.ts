/**
 * The one comparison of a secret a caller presents with the one expected (a bearer token, a
 * password, a cursor's MAC): its time depends on the lengths alone, never on where the two
 * first differ.
 */
import { timingSafeEqual } from 'node:crypto';

export function sameSecret(given: string | Uint8Array, expected: string | Uint8Array): boolean {
  const a = typeof given === 'string' ? Buffer.from(given) : given;
  const b = typeof expected === 'string' ? Buffer.from(expected) : expected;
  return a.length === b.length && timingSafeEqual(a, b);
}
