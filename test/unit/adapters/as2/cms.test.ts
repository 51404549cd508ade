/**
 * CMS operations checked against OpenSSL's `cms` command as an independent implementation
 * (skipped where no openssl binary exists), plus the failure classes each check reports.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { CmsError, compress, decompress, decrypt, encrypt, signDetached, verifyDetached } from '../../../../src/adapters/as2/cms.ts';
import { loadCredentials } from '../../../../src/adapters/as2/keys.ts';
import { credentials, keyPair } from '../../../support/as2-keys.ts';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'tdx-as2-cms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ours = keyPair('ours');
const partner = keyPair('partner');
const stranger = keyPair('stranger');
const us = loadCredentials(credentials(ours, partner));
const them = loadCredentials(credentials(partner, ours));
const content = Buffer.from('Content-Type: application/edi-x12\r\nContent-Transfer-Encoding: binary\r\n\r\nISA*00*          *00*~\r\n'.repeat(50));

function file(name: string, data: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
}

function openssl(args: string[]): { status: number | null; stdout: Buffer; stderr: string } {
  const r = spawnSync('openssl', args);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

async function failureOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    expect(err).toBeInstanceOf(CmsError);
    return (err as CmsError).failure;
  }
  throw new Error('expected a CmsError');
}

describe('signatures', () => {
  it.each(['sha1', 'sha256', 'sha384', 'sha512'] as const)('a %s signature of ours verifies with openssl cms and with ourselves', async (digest) => {
    const sig = await signDetached(content, us, digest);
    expect((await verifyDetached(content, sig, them.pkiPartnerCertificate)).digest.name).toBe(digest);
    if (!hasOpenssl) return;
    const r = openssl(['cms', '-verify', '-binary', '-inform', 'DER', '-in', file(`sig-${digest}.der`, sig), '-content', file('content', content), '-CAfile', file('ours.crt', ours.certificatePem), '-purpose', 'any', '-out', '/dev/null']);
    expect(r.stderr).toContain('Verification successful');
  });

  it.skipIf(!hasOpenssl)('verifies a signature made by openssl cms', async () => {
    const r = openssl(['cms', '-sign', '-binary', '-md', 'sha384', '-in', file('content', content), '-signer', file('partner.crt', partner.certificatePem), '-inkey', file('partner.key', partner.privateKeyPem), '-outform', 'DER']);
    expect(r.status, r.stderr).toBe(0);
    expect((await verifyDetached(content, r.stdout, us.pkiPartnerCertificate)).digest.name).toBe('sha384');
  });

  it('tells a changed content (integrity) from a signature by another key (authentication)', async () => {
    const sig = await signDetached(content, us, 'sha256');
    const changed = Buffer.from(content);
    changed[100] = changed[100]! ^ 1;
    expect(await failureOf(verifyDetached(changed, sig, them.pkiPartnerCertificate))).toBe('integrity-check-failed');
    // the partner's certificate is not the signer's
    expect(await failureOf(verifyDetached(content, sig, us.pkiPartnerCertificate))).toBe('authentication-failed');
    // signed by a stranger whose certificate nobody configured
    const strangerCreds = loadCredentials(credentials(stranger, partner));
    expect(await failureOf(verifyDetached(content, await signDetached(content, strangerCreds, 'sha256'), them.pkiPartnerCertificate))).toBe('authentication-failed');
    expect(await failureOf(verifyDetached(content, Buffer.from('not der'), them.pkiPartnerCertificate))).toBe('authentication-failed');
  });

  it('rejects a signature whose signed attributes were altered', async () => {
    const sig = await signDetached(content, us, 'sha256');
    // the signing time is inside the signed attributes: change one digit of it (the UTCTime
    // that follows the signing-time attribute's object identifier 1.2.840.113549.1.9.5)
    const oid = sig.indexOf(Buffer.from('06092a864886f70d010905', 'hex'));
    expect(oid).toBeGreaterThan(0);
    const i = sig.indexOf(Buffer.from([0x17, 0x0d]), oid) + 2;
    const forged = Buffer.from(sig);
    forged[i + 11] = forged[i + 11] === 0x30 ? 0x31 : 0x30;
    expect(await failureOf(verifyDetached(content, forged, them.pkiPartnerCertificate))).toBe('authentication-failed');
  });
});

describe('encryption', () => {
  const ciphers = [
    ['aes128-cbc', '-aes128'],
    ['aes192-cbc', '-aes192'],
    ['aes256-cbc', '-aes256'],
    ['3des-cbc', '-des3'],
  ] as const;

  it.each(ciphers)('%s: ours decrypts with openssl cms, and openssl %s decrypts with ours', async (alg, flag) => {
    const env = encrypt(content, us, alg);
    const back = await decrypt(env, them);
    expect(back.content.equals(content)).toBe(true);
    expect(back.algorithm.name).toBe(alg);
    if (!hasOpenssl) return;
    const out = join(dir, `dec-${alg}`);
    const r = openssl(['cms', '-decrypt', '-binary', '-inform', 'DER', '-in', file(`env-${alg}.der`, env), '-recip', file('partner.crt', partner.certificatePem), '-inkey', file('partner.key', partner.privateKeyPem), '-out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(out).equals(content)).toBe(true);
    const e = openssl(['cms', '-encrypt', '-binary', flag, '-in', file('content', content), '-outform', 'DER', file('ours.crt', ours.certificatePem)]);
    expect(e.status, e.stderr).toBe(0);
    const d = await decrypt(e.stdout, us);
    expect(d.algorithm.name).toBe(alg);
    expect(d.content.equals(content)).toBe(true);
  });

  it('unwraps PKCS#1 v1.5 keys with node:crypto, which this Node allows (OpenSSL with implicit rejection)', async () => {
    const [major = 0, minor = 0] = process.versions.openssl.split('.').map(Number);
    expect(major > 3 || (major === 3 && minor >= 2), `Node ${process.version} with OpenSSL ${process.versions.openssl}`).toBe(true);
    const back = await decrypt(encrypt(content, us, 'aes128-cbc'), them);
    expect(back.content.equals(content)).toBe(true);
  });

  it.skipIf(!hasOpenssl)('decrypts RSA-OAEP key transport', async () => {
    const e = openssl(['cms', '-encrypt', '-binary', '-aes256', '-in', file('content', content), '-outform', 'DER', '-recip', file('ours.crt', ours.certificatePem), '-keyopt', 'rsa_padding_mode:oaep']);
    expect(e.status, e.stderr).toBe(0);
    expect((await decrypt(e.stdout, us)).content.equals(content)).toBe(true);
  });

  it('writes the encrypted content as one primitive OCTET STRING (segmented content is refused by some receivers)', () => {
    const env = encrypt(Buffer.alloc(5000, 0x41), us, 'aes256-cbc');
    const info = new pkijs.ContentInfo({ schema: asn1js.fromBER(new Uint8Array(env)).result });
    const eci = (info.content as asn1js.Sequence).valueBlock.value[2] as asn1js.Sequence;
    const encrypted = eci.valueBlock.value[2]!;
    expect(encrypted.idBlock.tagClass).toBe(3);
    expect(encrypted.idBlock.tagNumber).toBe(0);
    expect(encrypted.idBlock.isConstructed).toBe(false);
  });

  it('reports content for another certificate, a damaged key and garbage as decryption-failed', async () => {
    const forStranger = encrypt(content, loadCredentials(credentials(ours, stranger)), 'aes256-cbc');
    await expect(decrypt(forStranger, them)).rejects.toThrow(/encrypted for another certificate/);
    const env = encrypt(content, us, 'aes128-cbc');
    // flip a byte of the wrapped key: the RSA unwrap fails, a random key is used, the content does not decrypt
    const info = new pkijs.ContentInfo({ schema: asn1js.fromBER(new Uint8Array(env)).result });
    const ed = new pkijs.EnvelopedData({ schema: info.content });
    const ktri = ed.recipientInfos[0]!.value as pkijs.KeyTransRecipientInfo;
    const wrapped = Buffer.from(ktri.encryptedKey.valueBlock.valueHexView);
    const at = env.indexOf(wrapped);
    const damaged = Buffer.from(env);
    damaged[at + 10] = damaged[at + 10]! ^ 0xff;
    expect(await failureOf(decrypt(damaged, them))).toBe('decryption-failed');
    expect(await failureOf(decrypt(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]), them))).toBe('decryption-failed');
  });
});

describe('compression', () => {
  it('round-trips RFC 3274 compressed data and refuses output over the limit', async () => {
    const big = Buffer.alloc(200_000, 'ISA*');
    const z = await compress(big);
    expect(z.length).toBeLessThan(big.length / 50);
    expect((await decompress(z, 1_000_000)).equals(big)).toBe(true);
    await expect(decompress(z, 1000)).rejects.toThrow(/beyond 1000 bytes/);
    expect(await failureOf(decompress(await signDetached(content, us, 'sha256'), 1000))).toBe('decompression-failed');
  });
});
