/**
 * The Message Integrity Check of RFC 4130 §7.3.1: a base64 digest the receiver returns in
 * `Received-content-MIC`, which the sender compares with its own.
 *
 * What is hashed (both sides compute it over the same bytes):
 * - a signed message: the signed MIME entity (headers and content) as transmitted, with the
 *   signature's digest algorithm;
 * - an encrypted, unsigned message: the decrypted MIME entity (headers and content);
 * - neither: the message content without any headers (the HTTP body).
 */
import { createHash } from 'node:crypto';
import { DIGESTS, digestByMicalg, type DigestName } from './algorithms.ts';

export interface Mic {
  /** Base64 of the digest. */
  readonly value: string;
  readonly algorithm: DigestName;
}

export function computeMic(bytes: Buffer, algorithm: DigestName): Mic {
  return { value: createHash(DIGESTS[algorithm].node).update(bytes).digest('base64'), algorithm };
}

/** The `Received-content-MIC` field value: `<base64>, <micalg>`. */
export function formatMic(mic: Mic): string {
  return `${mic.value}, ${DIGESTS[mic.algorithm].micalg}`;
}

export interface ParsedMic {
  readonly value: string;
  /** Undefined when the algorithm token is not one supported here. */
  readonly algorithm: DigestName | undefined;
  /** The algorithm as written. */
  readonly token: string;
}

/** Parses a `Received-content-MIC` value; null when it has no digest. */
export function parseMic(field: string | undefined): ParsedMic | null {
  if (field === undefined) return null;
  const [value, token = ''] = field.split(',').map((s) => s.trim());
  if (!value) return null;
  return { value, algorithm: digestByMicalg(token)?.name, token };
}

/** True when a returned MIC is the expected one (same digest, and same algorithm when the token names one). */
export function micMatches(expected: Mic, returned: ParsedMic): boolean {
  if (returned.value !== expected.value) return false;
  return returned.token === '' || returned.algorithm === expected.algorithm;
}
