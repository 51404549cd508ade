/**
 * API keys and what each kind may do (contract "Authentication" + DESIGN §3).
 *
 * A key is `tdx_` followed by 43 base64url characters (32 random bytes); only its SHA-256 is
 * stored (a high-entropy key needs no slow hash). The plain key is shown once, at creation.
 *
 * | endpoint group                                   | standard | read-only | sandbox |
 * |--------------------------------------------------|----------|-----------|---------|
 * | any GET except results/payloads/artifacts        | allowed  | allowed   | 403     |
 * | results, payloads, artifacts (GET)                | allowed  | allowed   | allowed, limited to what its sink received (others 404) |
 * | any POST (resend, redeliver, partner submissions) | allowed  | 403       | 403     |
 * | GET /platform/openapi.json                        | allowed  | allowed   | allowed |
 */
import { createHash, randomBytes } from 'node:crypto';

export const KEY_KINDS = ['standard', 'read-only', 'sandbox'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** Endpoint groups of the access matrix. */
export const ENDPOINT_GROUPS = [
  'transactions',
  'replay',
  'results',
  'artifacts',
  'feed',
  'logs',
  'configuration',
  'partners',
  'partner_submission',
  'traces',
  'documentation',
] as const;
export type EndpointGroup = (typeof ENDPOINT_GROUPS)[number];

const WRITE_GROUPS: ReadonlySet<EndpointGroup> = new Set(['replay', 'partner_submission']);
const SANDBOX_GROUPS: ReadonlySet<EndpointGroup> = new Set(['results', 'artifacts', 'documentation']);

/** Whether a key of `kind` may call an endpoint of `group`. */
export function mayAccess(kind: KeyKind, group: EndpointGroup): boolean {
  if (kind === 'standard') return true;
  if (kind === 'read-only') return !WRITE_GROUPS.has(group);
  return SANDBOX_GROUPS.has(group);
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly kind: KeyKind;
  readonly name: string | null;
  /** First characters of the key, shown in listings to tell keys apart. */
  readonly prefix: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
  readonly lastUsedAt: string | null;
}

const KEY_RE = /^tdx_[A-Za-z0-9_-]{43}$/;

/** A new plain key (shown once). */
export function generateApiKey(): string {
  return `tdx_${randomBytes(32).toString('base64url')}`;
}

/** The stored form of a key. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** True when the text has the shape of a key (anything else is rejected without a lookup). */
export function isWellFormedKey(key: string): boolean {
  return KEY_RE.test(key);
}

export function keyPrefix(key: string): string {
  return key.slice(0, 10);
}

/** A new webhook signing secret, `whsec_<base64>` (Standard Webhooks). */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
