import { describe, expect, it } from 'vitest';
import { createPrivateKey } from 'node:crypto';
import { AS2_DEFAULTS, as2DocOf, as2SettingsOf, checkAs2Credentials } from '../../../src/domain/as2-settings.ts';
import { keyPair } from '../../support/as2-keys.ts';

const from = new Date('2026-01-01T00:00:00Z');
const ours = keyPair('ours', { notBefore: from, days: 3650 });
const partner = keyPair('partner', { notBefore: from, days: 3650 });
const now = new Date('2027-06-01T00:00:00Z');
const all = { privateKey: ours.privateKeyPem, certificate: ours.certificatePem, partnerCertificate: partner.certificatePem };

describe('checkAs2Credentials', () => {
  it('is ready when the key matches our certificate and both certificates are valid now', () => {
    expect(checkAs2Credentials(all, now)).toEqual({ status: 'ready', reason: null });
  });

  it('is pending while something is missing, naming what', () => {
    expect(checkAs2Credentials({}, now)).toEqual({ status: 'pending', reason: "waiting for our private key (as2.privateKeyFile), our certificate (as2.certificateFile), the partner's certificate (as2.partnerCertificateFile)" });
    expect(checkAs2Credentials({ ...all, partnerCertificate: undefined }, now).reason).toBe("waiting for the partner's certificate (as2.partnerCertificateFile)");
  });

  it('fails with the reason for an expired, not yet valid or unreadable certificate', () => {
    expect(checkAs2Credentials(all, new Date('2036-06-01T00:00:00Z'))).toEqual({ status: 'failed', reason: expect.stringMatching(/^our certificate expired on 2035-12-30T00:00:00.000Z; the partner's certificate expired on/) });
    expect(checkAs2Credentials(all, new Date('2025-12-31T00:00:00Z')).reason).toMatch(/our certificate is not valid before 2026-01-01/);
    expect(checkAs2Credentials({ ...all, partnerCertificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }, now)).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^the partner's certificate is not a PEM X.509 certificate/) });
    // a problem wins over something missing
    expect(checkAs2Credentials({ certificate: 'nonsense' }, now).status).toBe('failed');
  });

  it('fails when our key is not the key of our certificate', () => {
    expect(checkAs2Credentials({ ...all, privateKey: partner.privateKeyPem }, now)).toEqual({ status: 'failed', reason: 'our private key does not match our certificate' });
  });

  it('reads an encrypted key with its passphrase, and says when the passphrase is missing or wrong', () => {
    const encrypted = createPrivateKey(ours.privateKeyPem).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'open sesame' }).toString();
    expect(checkAs2Credentials({ ...all, privateKey: encrypted, passphrase: 'open sesame' }, now).status).toBe('ready');
    expect(checkAs2Credentials({ ...all, privateKey: encrypted }, now).reason).toBe('our private key cannot be read: it is encrypted and no passphrase is set');
    expect(checkAs2Credentials({ ...all, privateKey: encrypted, passphrase: 'wrong' }, now).reason).toBe('our private key cannot be read: the passphrase is wrong');
    expect(checkAs2Credentials({ ...all, privateKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }, now).reason).toBe('our private key cannot be read: it is not a PEM private key');
  });
});

describe('settings', () => {
  it('fills the documented defaults and writes back a block that reproduces the settings', () => {
    const s = as2SettingsOf({ localId: 'US', partnerId: 'THEM', url: 'https://them.example/as2' }, { status: 'pending', reason: 'waiting' });
    expect(s).toEqual({ localId: 'US', partnerId: 'THEM', url: 'https://them.example/as2', setupStatus: 'pending', setupReason: 'waiting', ...AS2_DEFAULTS });
    expect(AS2_DEFAULTS).toEqual({ signing: 'sha256', encryption: 'aes256-cbc', compression: false, mdn: { mode: 'sync', signed: true, asyncUrl: null, waitSeconds: 300 }, requireSignature: true, requireEncryption: true, contentType: 'application/edi-x12' });
    const custom = as2SettingsOf({ localId: 'US', partnerId: 'THEM', url: 'http://x/', signing: 'none', encryption: '3des-cbc', compression: true, mdn: { mode: 'async', asyncUrl: 'https://us.example/as2/mdn', waitSeconds: 60 } }, { status: 'ready', reason: null });
    expect([custom.signing, custom.encryption, custom.mdn]).toEqual([null, '3des-cbc', { mode: 'async', signed: true, asyncUrl: 'https://us.example/as2/mdn', waitSeconds: 60 }]);
    expect(as2SettingsOf(as2DocOf(custom), { status: 'ready', reason: null })).toEqual(custom);
  });
});
