/**
 * A connection's AS2 key material, loaded once into the forms each library needs: node:crypto
 * key objects (key transport, OAEP and PKCS#1 v1.5), pkijs certificates and WebCrypto signing
 * keys (pkijs signs with them).
 */
import { createHash, createPrivateKey, webcrypto, X509Certificate, type KeyObject } from 'node:crypto';
import * as pkijs from 'pkijs';
import type { SecretRecord } from '../../domain/configuration.ts';
import { DIGESTS, type DigestName } from './algorithms.ts';

/** PEM texts of a connection's key material, as stored with its secrets. */
export interface As2Credentials {
  /** Our RSA private key (PKCS#1 or PKCS#8, possibly encrypted). */
  readonly privateKeyPem: string;
  readonly passphrase?: string | null;
  /** Our certificate: the partner encrypts to it and verifies our signatures with it. */
  readonly certificatePem: string;
  /** The partner's certificate: we encrypt to it and verify the partner's signatures with it. */
  readonly partnerCertificatePem: string;
}

/** Key material ready for use. Build it with `loadCredentials`; it caches the imported keys. */
export interface LoadedCredentials {
  readonly privateKey: KeyObject;
  readonly certificate: X509Certificate;
  readonly partnerCertificate: X509Certificate;
  readonly pkiCertificate: pkijs.Certificate;
  readonly pkiPartnerCertificate: pkijs.Certificate;
  /** Our key for PKCS#1 v1.5 unwrapping of content-encryption keys. */
  /** A WebCrypto signing key for a digest (imported on first use). */
  signingKey(digest: DigestName): Promise<webcrypto.CryptoKey>;
}

/** The PEM texts of a connection's secrets (`privateKey`, `passphrase`, `certificate`, `partnerCertificate`); null when one is missing. */
export function credentialsFromSecrets(secrets: readonly Pick<SecretRecord, 'name' | 'value'>[]): As2Credentials | null {
  const get = (name: string): string | undefined => secrets.find((s) => s.name === name)?.value;
  const privateKeyPem = get('privateKey');
  const certificatePem = get('certificate');
  const partnerCertificatePem = get('partnerCertificate');
  if (!privateKeyPem || !certificatePem || !partnerCertificatePem) return null;
  return { privateKeyPem, passphrase: get('passphrase') ?? null, certificatePem, partnerCertificatePem };
}

/** The DER bytes of a PEM certificate's first block. */
export function certificateDer(pem: string): Buffer {
  return new X509Certificate(pem).raw;
}

export function pkiCertificateOf(cert: X509Certificate): pkijs.Certificate {
  return pkijs.Certificate.fromBER(new Uint8Array(cert.raw));
}

/** Loads PEM credentials (throws when one does not parse or is not RSA). */
export function loadCredentials(c: As2Credentials): LoadedCredentials {
  const privateKey = createPrivateKey({ key: c.privateKeyPem, format: 'pem', ...(c.passphrase ? { passphrase: c.passphrase } : {}) });
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error(`our private key is ${privateKey.asymmetricKeyType ?? 'not RSA'}; AS2 here uses RSA keys`);
  const certificate = new X509Certificate(c.certificatePem);
  const partnerCertificate = new X509Certificate(c.partnerCertificatePem);
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' });
  const signingKeys = new Map<DigestName, Promise<webcrypto.CryptoKey>>();
  return {
    privateKey,
    certificate,
    partnerCertificate,
    pkiCertificate: pkiCertificateOf(certificate),
    pkiPartnerCertificate: pkiCertificateOf(partnerCertificate),
    signingKey(digest) {
      let k = signingKeys.get(digest);
      if (!k) {
        k = webcrypto.subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: DIGESTS[digest].webcrypto }, false, ['sign']);
        signingKeys.set(digest, k);
      }
      return k;
    },
  };
}

/** SHA-256 fingerprint of a certificate, colon-separated upper-case hex (as shown by `openssl x509 -fingerprint -sha256`). */
export function fingerprintOf(cert: X509Certificate): string {
  return createHash('sha256')
    .update(cert.raw)
    .digest('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1:');
}
