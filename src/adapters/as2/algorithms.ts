/**
 * The algorithms AS2 uses here, with their identifiers in each vocabulary: configuration name,
 * CMS object identifier, Node.js/WebCrypto name, and the `micalg` token of S/MIME headers.
 */
import type { As2EncryptionAlgorithm, As2SigningAlgorithm } from '../../domain/configuration.ts';

export type DigestName = As2SigningAlgorithm;

export interface DigestAlgorithm {
  readonly name: DigestName;
  readonly oid: string;
  /** node:crypto createHash name. */
  readonly node: string;
  /** WebCrypto (pkijs) name. */
  readonly webcrypto: 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512';
  /**
   * The token written in `micalg=` and `Received-content-MIC`: RFC 5751 names for SHA-2,
   * `sha1` as RFC 4130 spells it (what most AS2 software expects for SHA-1).
   */
  readonly micalg: string;
}

export const DIGESTS: Readonly<Record<DigestName, DigestAlgorithm>> = {
  sha1: { name: 'sha1', oid: '1.3.14.3.2.26', node: 'sha1', webcrypto: 'SHA-1', micalg: 'sha1' },
  sha256: { name: 'sha256', oid: '2.16.840.1.101.3.4.2.1', node: 'sha256', webcrypto: 'SHA-256', micalg: 'sha-256' },
  sha384: { name: 'sha384', oid: '2.16.840.1.101.3.4.2.2', node: 'sha384', webcrypto: 'SHA-384', micalg: 'sha-384' },
  sha512: { name: 'sha512', oid: '2.16.840.1.101.3.4.2.3', node: 'sha512', webcrypto: 'SHA-512', micalg: 'sha-512' },
};

/** The digest named by a `micalg` token in any common spelling (`sha-256`, `SHA256`, `sha1`...); undefined when unsupported. */
export function digestByMicalg(token: string): DigestAlgorithm | undefined {
  const t = token.trim().toLowerCase().replace(/[-_]/g, '');
  return Object.values<DigestAlgorithm>(DIGESTS).find((d) => d.name === t);
}

export function digestByOid(oid: string): DigestAlgorithm | undefined {
  return Object.values<DigestAlgorithm>(DIGESTS).find((d) => d.oid === oid);
}

export interface ContentCipher {
  readonly name: As2EncryptionAlgorithm;
  readonly oid: string;
  /** node:crypto cipher name. */
  readonly node: string;
  readonly keyLength: number;
  readonly ivLength: number;
}

export const CIPHERS: Readonly<Record<As2EncryptionAlgorithm, ContentCipher>> = {
  'aes128-cbc': { name: 'aes128-cbc', oid: '2.16.840.1.101.3.4.1.2', node: 'aes-128-cbc', keyLength: 16, ivLength: 16 },
  'aes192-cbc': { name: 'aes192-cbc', oid: '2.16.840.1.101.3.4.1.22', node: 'aes-192-cbc', keyLength: 24, ivLength: 16 },
  'aes256-cbc': { name: 'aes256-cbc', oid: '2.16.840.1.101.3.4.1.42', node: 'aes-256-cbc', keyLength: 32, ivLength: 16 },
  '3des-cbc': { name: '3des-cbc', oid: '1.2.840.113549.3.7', node: 'des-ede3-cbc', keyLength: 24, ivLength: 8 },
};

export function cipherByOid(oid: string): ContentCipher | undefined {
  return Object.values<ContentCipher>(CIPHERS).find((c) => c.oid === oid);
}

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  envelopedData: '1.2.840.113549.1.7.3',
  compressedData: '1.2.840.113549.1.9.16.1.9',
  zlib: '1.2.840.113549.1.9.16.3.8',
  contentTypeAttr: '1.2.840.113549.1.9.3',
  messageDigestAttr: '1.2.840.113549.1.9.4',
  signingTimeAttr: '1.2.840.113549.1.9.5',
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsaesOaep: '1.2.840.113549.1.1.7',
} as const;
