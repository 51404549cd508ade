/**
 * AS2 connection settings: the defaults of a configuration file's `as2` block, the record
 * `tdx config apply` stores, the block `tdx config export` writes back, and the setup check
 * that turns the stored key and certificates into `setupStatus` (docs/as2.md).
 *
 * The check only parses (node:crypto); it is pure and deterministic for a given time.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { As2Doc, As2Options, As2Settings, As2SetupStatus } from './configuration.ts';

/** Defaults of the per-connection AS2 options (documented in docs/as2.md). */
export const AS2_DEFAULTS: As2Options = {
  signing: 'sha256',
  encryption: 'aes256-cbc',
  compression: false,
  mdn: { mode: 'sync', signed: true, asyncUrl: null, waitSeconds: 300 },
  requireSignature: true,
  requireEncryption: true,
  contentType: 'application/edi-x12',
};

/** The key material a connection's setup check reads (PEM text; any may be missing). */
export interface As2CredentialInput {
  readonly privateKey?: string | undefined;
  readonly passphrase?: string | undefined;
  readonly certificate?: string | undefined;
  readonly partnerCertificate?: string | undefined;
}

export interface As2SetupCheck {
  readonly status: As2SetupStatus;
  /** Why the status is not `ready` (never contains key material). */
  readonly reason: string | null;
}

/** The stored settings of an `as2` block, with defaults and the setup check's result. */
export function as2SettingsOf(doc: As2Doc, check: As2SetupCheck): As2Settings {
  return {
    localId: doc.localId,
    partnerId: doc.partnerId,
    url: doc.url,
    setupStatus: check.status,
    setupReason: check.reason,
    signing: doc.signing === 'none' ? null : (doc.signing ?? AS2_DEFAULTS.signing),
    encryption: doc.encryption === 'none' ? null : (doc.encryption ?? AS2_DEFAULTS.encryption),
    compression: doc.compression ?? AS2_DEFAULTS.compression,
    mdn: {
      mode: doc.mdn?.mode ?? AS2_DEFAULTS.mdn.mode,
      signed: doc.mdn?.signed ?? AS2_DEFAULTS.mdn.signed,
      asyncUrl: doc.mdn?.asyncUrl ?? null,
      waitSeconds: doc.mdn?.waitSeconds ?? AS2_DEFAULTS.mdn.waitSeconds,
    },
    requireSignature: doc.requireSignature ?? AS2_DEFAULTS.requireSignature,
    requireEncryption: doc.requireEncryption ?? AS2_DEFAULTS.requireEncryption,
    contentType: doc.contentType ?? AS2_DEFAULTS.contentType,
  };
}

/** The `as2` block that reproduces stored settings (status and key material are not part of it). */
export function as2DocOf(s: As2Settings): As2Doc {
  const mdn: NonNullable<As2Doc['mdn']> = { mode: s.mdn.mode, signed: s.mdn.signed, waitSeconds: s.mdn.waitSeconds };
  if (s.mdn.asyncUrl !== null) mdn.asyncUrl = s.mdn.asyncUrl;
  return {
    localId: s.localId,
    partnerId: s.partnerId,
    url: s.url,
    signing: s.signing ?? 'none',
    encryption: s.encryption ?? 'none',
    compression: s.compression,
    mdn,
    requireSignature: s.requireSignature,
    requireEncryption: s.requireEncryption,
    contentType: s.contentType,
  };
}

function parseCertificate(pem: string, what: string): { cert: X509Certificate } | { error: string } {
  try {
    const cert = new X509Certificate(pem);
    return { cert };
  } catch (err) {
    return { error: `${what} is not a PEM X.509 certificate (${(err as Error).message})` };
  }
}

function validity(cert: X509Certificate, what: string, now: Date): string | null {
  const from = new Date(cert.validFrom);
  const to = new Date(cert.validTo);
  if (now < from) return `${what} is not valid before ${from.toISOString()}`;
  if (now > to) return `${what} expired on ${to.toISOString()}`;
  return null;
}

function rsaOnly(key: KeyObject, what: string): string | null {
  return key.asymmetricKeyType === 'rsa' ? null : `${what} is a ${key.asymmetricKeyType ?? 'non-RSA'} key; AS2 here uses RSA keys`;
}

/**
 * The setup status of an AS2 connection at `now`: `pending` while our key, our certificate or
 * the partner's certificate is missing; `ready` when all three parse, both certificates are
 * within their validity period, the keys are RSA and our key matches our certificate;
 * `failed` otherwise, with the reason.
 */
export function checkAs2Credentials(input: As2CredentialInput, now: Date): As2SetupCheck {
  const missing: string[] = [];
  if (!input.privateKey) missing.push('our private key (as2.privateKeyFile)');
  if (!input.certificate) missing.push('our certificate (as2.certificateFile)');
  if (!input.partnerCertificate) missing.push("the partner's certificate (as2.partnerCertificateFile)");

  const problems: string[] = [];
  let ours: X509Certificate | undefined;
  if (input.certificate) {
    const c = parseCertificate(input.certificate, 'our certificate');
    if ('error' in c) problems.push(c.error);
    else {
      ours = c.cert;
      const v = validity(c.cert, 'our certificate', now) ?? rsaOnly(c.cert.publicKey, 'our certificate');
      if (v) problems.push(v);
    }
  }
  if (input.partnerCertificate) {
    const c = parseCertificate(input.partnerCertificate, "the partner's certificate");
    if ('error' in c) problems.push(c.error);
    else {
      const v = validity(c.cert, "the partner's certificate", now) ?? rsaOnly(c.cert.publicKey, "the partner's certificate");
      if (v) problems.push(v);
    }
  }
  if (input.privateKey) {
    let key: KeyObject | undefined;
    try {
      key = createPrivateKey({ key: input.privateKey, format: 'pem', ...(input.passphrase ? { passphrase: input.passphrase } : {}) });
    } catch {
      const encrypted = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(input.privateKey);
      const msg = encrypted && !input.passphrase ? 'it is encrypted and no passphrase is set' : encrypted ? 'the passphrase is wrong' : 'it is not a PEM private key';
      problems.push(`our private key cannot be read: ${msg}`);
    }
    if (key) {
      const rsa = rsaOnly(key, 'our private key');
      if (rsa) problems.push(rsa);
      else if (ours && !ours.checkPrivateKey(key)) problems.push('our private key does not match our certificate');
    }
  }
  if (problems.length > 0) return { status: 'failed', reason: problems.join('; ') };
  if (missing.length > 0) return { status: 'pending', reason: `waiting for ${missing.join(', ')}` };
  return { status: 'ready', reason: null };
}
