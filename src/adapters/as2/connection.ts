/**
 * What the AS2 entry points need to know about a connection, and a small cache of loaded key
 * material (parsing PEM and importing keys costs milliseconds; messages arrive by the thousand).
 */
import { createHash } from 'node:crypto';
import type { As2Settings } from '../../domain/configuration.ts';
import { loadCredentials, type As2Credentials, type LoadedCredentials } from './keys.ts';

/** A connection's AS2 settings and key material, as the pipeline loads them. */
export interface As2ConnectionMaterial {
  readonly connectionId: string;
  readonly settings: As2Settings;
  /** null while the key or a certificate is missing (setup not ready). */
  readonly credentials: As2Credentials | null;
}

/**
 * Port: finds a connection's settings and secrets by its id (the `:connectionId` of
 * `POST /as2/:connectionId`); null when no AS2 connection has this id.
 */
export type As2ConnectionLookup = (connectionId: string) => Promise<As2ConnectionMaterial | null>;

const CACHE_SIZE = 256;
const cache = new Map<string, LoadedCredentials>();

/** Loads (or reuses) the key material of PEM credentials; throws when they do not parse. */
export function loadedCredentialsOf(c: As2Credentials): LoadedCredentials {
  const key = createHash('sha256')
    .update(c.privateKeyPem)
    .update('\0')
    .update(c.passphrase ?? '')
    .update('\0')
    .update(c.certificatePem)
    .update('\0')
    .update(c.partnerCertificatePem)
    .digest('hex');
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const loaded = loadCredentials(c);
  cache.set(key, loaded);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return loaded;
}
