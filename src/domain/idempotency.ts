/**
 * `Idempotency-Key` on the submission endpoints (an extension beyond the contract, as Stedi
 * offers; docs/api.md, "Idempotent submissions"). A client whose connection dropped after
 * sending retries with the same key: within 24 hours, the same key with the same request answers
 * what the first request answered (the same `traceGuid`) and starts nothing; the same key with
 * another request is 422 `idempotency_key_reused`. The first request claims the key with a
 * lightweight transaction, so two API replicas never both start the work.
 *
 * Pure: the header's rules, the request fingerprint, and the store's port (Cassandra:
 * src/adapters/cassandra/recovery-store.ts).
 */
import { createHash } from 'node:crypto';
import { TdxError } from '../errors.ts';
import type { Micros } from './records.ts';

/** How long a key is remembered (seconds). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** A claimed key whose work was not produced this long after the claim belongs to a request that died: a repeat completes it. */
export const IDEMPOTENCY_STALE_US = 30_000_000;

export interface IdempotencyRecord {
  readonly organizationId: string;
  readonly key: string;
  /** SHA-256 over the endpoint, the partner and the request body. */
  readonly fingerprint: string;
  readonly traceGuid: string;
  /** `pending` from the claim until the work item was produced, then `accepted`. */
  readonly state: 'pending' | 'accepted';
  /** The answer given (JSON text of `{status, body}`), once accepted. */
  readonly response: string | null;
  /** The work items to produce (JSON text), so a repeat can complete a request that died after its claim. */
  readonly work: string;
  readonly createdAt: Micros;
}

export interface IdempotencyStore {
  get(organizationId: string, key: string): Promise<IdempotencyRecord | null>;
  /** Claims the key (lightweight transaction); the existing record when it was claimed before. */
  claim(record: IdempotencyRecord): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord }>;
  /** Records the answer; the record keeps its 24 hours from the claim. */
  accept(organizationId: string, key: string, response: string, createdAt: Micros, now: Micros): Promise<void>;
}

/** Printable ASCII, 1 to 255 characters (Stripe's and Stedi's keys fit; a UUID is the usual choice). */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The header's value, or null without the header; throws `invalid_parameter` for an unusable key (an empty one included). */
export function idempotencyKeyOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  if (!KEY.test(header)) throw new TdxError('invalid_parameter', 'Header Idempotency-Key must be 1 to 255 printable ASCII characters without spaces (a UUID, for example).', { reason: 'Idempotency-Key', details: { parameter: 'Idempotency-Key' } });
  return header;
}

/** The fingerprint of a request: endpoint, partner key (any case) and the SHA-256 of the body. */
export function requestFingerprint(endpoint: 'edi' | 'documents', partnerKey: string, bodySha256: string): string {
  return createHash('sha256').update(`${endpoint}\0${partnerKey.toLowerCase()}\0${bodySha256}`).digest('hex');
}

export function reusedKey(key: string): TdxError {
  return new TdxError('idempotency_key_reused', `Idempotency-Key "${key}" was used in the last 24 hours for another request (another body, partner or endpoint): send a new key for a new request.`, { reason: 'Idempotency-Key' });
}
