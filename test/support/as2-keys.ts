/**
 * AS2 key pairs for tests, generated once per test process (2048-bit RSA keeps them quick).
 * `ours` is this service, `partner` the trading partner, `stranger` a third party whose key
 * nobody configured.
 */
import { generateAs2KeyPair, type GeneratedKeyPair } from '../../src/adapters/as2/index.ts';
import type { As2Credentials } from '../../src/adapters/as2/keys.ts';

const cache = new Map<string, GeneratedKeyPair>();

export function keyPair(name: string, options: { notBefore?: Date; days?: number } = {}): GeneratedKeyPair {
  const k = `${name}|${options.notBefore?.toISOString() ?? ''}|${options.days ?? ''}`;
  let pair = cache.get(k);
  if (!pair) {
    pair = generateAs2KeyPair({ commonName: name.toUpperCase(), bits: 2048, ...options });
    cache.set(k, pair);
  }
  return pair;
}

/** Credentials of one side: its own key and certificate, and the other side's certificate. */
export function credentials(self: GeneratedKeyPair, other: GeneratedKeyPair): As2Credentials {
  return { privateKeyPem: self.privateKeyPem, certificatePem: self.certificatePem, partnerCertificatePem: other.certificatePem };
}
