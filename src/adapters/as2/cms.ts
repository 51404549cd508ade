/**
 * CMS (RFC 5652) operations of S/MIME for AS2, built from library parts only: pkijs and asn1js
 * structures for every ASN.1 object, node:crypto (and WebCrypto through pkijs) for digests,
 * signatures, content ciphers and key transport (RSA PKCS#1 v1.5 and OAEP), node:zlib for
 * RFC 3274 compression.
 *
 * - signDetached / verifyDetached: detached SignedData with signed attributes (content type,
 *   signing time, message digest), RSA PKCS#1 v1.5 signatures, SHA-1/SHA-2 digests.
 * - encrypt / decrypt: EnvelopedData with one key-transport recipient (RSA PKCS#1 v1.5 out;
 *   PKCS#1 v1.5 or RSA-OAEP in), AES-128/192/256-CBC or 3DES-CBC content.
 * - compress / decompress: CompressedData with zlib.
 */
import { createCipheriv, createDecipheriv, createHash, constants, privateDecrypt, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { deflate, inflate } from 'node:zlib';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { CIPHERS, DIGESTS, OID, cipherByOid, digestByOid, type ContentCipher, type DigestAlgorithm, type DigestName } from './algorithms.ts';
import type { LoadedCredentials } from './keys.ts';
import type { As2EncryptionAlgorithm } from '../../domain/configuration.ts';

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

/** Why a CMS operation on received data failed; maps to an MDN disposition modifier. */
export type CmsFailure = 'authentication-failed' | 'integrity-check-failed' | 'decryption-failed' | 'decompression-failed' | 'unexpected-processing-error';

export class CmsError extends Error {
  override readonly name = 'CmsError';
  constructor(
    readonly failure: CmsFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const u8 = (b: Buffer): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const buf = (a: ArrayBuffer | Uint8Array): Buffer => (a instanceof Uint8Array ? Buffer.from(a.buffer, a.byteOffset, a.byteLength) : Buffer.from(a));

/**
 * The octets of a parsed OCTET STRING, primitive or constructed (BER segments), whatever tag it
 * carries (encrypted content arrives as an implicitly tagged [0]).
 */
function octetsOf(block: asn1js.AsnType): Buffer {
  const vb = (block as { valueBlock?: { value?: unknown; valueHexView?: Uint8Array } }).valueBlock;
  if (vb && Array.isArray(vb.value) && vb.value.length > 0 && (block as { idBlock: { isConstructed: boolean } }).idBlock.isConstructed) {
    return Buffer.concat((vb.value as asn1js.AsnType[]).map(octetsOf));
  }
  return vb?.valueHexView ? buf(vb.valueHexView) : Buffer.alloc(0);
}

/** Parses DER/BER into a ContentInfo, or throws with the failure to report. */
function contentInfoOf(der: Buffer, failure: CmsFailure, what: string): pkijs.ContentInfo {
  const parsed = asn1js.fromBER(u8(der));
  if (parsed.offset === -1) throw new CmsError(failure, `${what} is not valid ASN.1 (${parsed.result.error})`);
  try {
    return new pkijs.ContentInfo({ schema: parsed.result });
  } catch (err) {
    throw new CmsError(failure, `${what} is not a CMS ContentInfo`, { cause: err });
  }
}

/** The CMS content type of DER data (signed, enveloped, compressed...), or null when it is not CMS. */
export function cmsContentType(der: Buffer): string | null {
  try {
    const parsed = asn1js.fromBER(u8(der));
    if (parsed.offset === -1) return null;
    return new pkijs.ContentInfo({ schema: parsed.result }).contentType;
  } catch {
    return null;
  }
}

// --- signatures -------------------------------------------------------------------------------

/**
 * Signs `content` (detached) with our key; returns the DER of a ContentInfo holding SignedData
 * with our certificate. Signed attributes are DER-sorted (SET OF), as verifiers that re-encode
 * them (OpenSSL) expect.
 */
export async function signDetached(content: Buffer, creds: LoadedCredentials, digest: DigestName, signingTime: Date = new Date()): Promise<Buffer> {
  const d = DIGESTS[digest];
  const messageDigest = createHash(d.node).update(content).digest();
  const attributes = [
    new pkijs.Attribute({ type: OID.contentTypeAttr, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
    new pkijs.Attribute({ type: OID.signingTimeAttr, values: [new asn1js.UTCTime({ valueDate: signingTime })] }),
    new pkijs.Attribute({ type: OID.messageDigestAttr, values: [new asn1js.OctetString({ valueHex: u8(messageDigest) })] }),
  ];
  const encoded = (a: pkijs.Attribute): Buffer => buf(a.toSchema().toBER(false));
  attributes.sort((a, b) => Buffer.compare(encoded(a), encoded(b)));
  const cert = creds.pkiCertificate;
  const signed = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
      }),
    ],
    certificates: [cert],
  });
  await signed.sign(await creds.signingKey(digest), 0, d.webcrypto, u8(content));
  const info = new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) });
  return buf(info.toSchema().toBER(false));
}

export interface VerifiedSignature {
  /** The digest algorithm of the signature (also the MIC algorithm of the receipt). */
  readonly digest: DigestAlgorithm;
}

/**
 * Verifies a detached signature over `content` against the partner's certificate only (any
 * certificate carried in the message is ignored). A digest that does not match the content is
 * `integrity-check-failed`; a signature by another key or one that does not verify is
 * `authentication-failed`.
 */
export async function verifyDetached(content: Buffer, signatureDer: Buffer, partner: pkijs.Certificate): Promise<VerifiedSignature> {
  const info = contentInfoOf(signatureDer, 'authentication-failed', 'the signature');
  if (info.contentType !== OID.signedData) throw new CmsError('authentication-failed', `the signature part holds CMS content ${info.contentType}, not signed-data`);
  let signed: pkijs.SignedData;
  try {
    signed = new pkijs.SignedData({ schema: info.content });
  } catch (err) {
    throw new CmsError('authentication-failed', 'the signature is not a CMS SignedData', { cause: err });
  }
  const signer = signed.signerInfos[0];
  if (!signer || signed.signerInfos.length !== 1) throw new CmsError('authentication-failed', `the signature has ${signed.signerInfos.length} signers; one is expected`);
  const digest = digestByOid(signer.digestAlgorithm.algorithmId);
  if (!digest) throw new CmsError('authentication-failed', `unsupported signature digest algorithm ${signer.digestAlgorithm.algorithmId}`);

  const sid: unknown = signer.sid;
  const bySerial = sid instanceof pkijs.IssuerAndSerialNumber;
  if (bySerial && !(sid.issuer.isEqual(partner.issuer) && sid.serialNumber.isEqual(partner.serialNumber))) {
    throw new CmsError('authentication-failed', "the message is signed by a certificate other than the partner's (issuer or serial number differ)");
  }
  // the content integrity check first, so a changed content is told apart from a forged signature
  const md = signer.signedAttrs?.attributes.find((a) => a.type === OID.messageDigestAttr);
  if (md) {
    const declared = buf((md.values[0] as asn1js.OctetString).valueBlock.valueHexView);
    const actual = createHash(digest.node).update(content).digest();
    if (!declared.equals(actual)) throw new CmsError('integrity-check-failed', 'the content does not match the message digest of its signature (the content was changed)');
  }
  // verify against the partner's certificate alone (a subject-key-identifier signer is matched
  // by pkijs against this list too)
  signed.certificates = [partner];
  let result: boolean | pkijs.SignedDataVerifyResult;
  try {
    result = await signed.verify({ signer: 0, data: Uint8Array.from(content).buffer, checkChain: false, extendedMode: true });
  } catch (err) {
    const e = err as { code?: number; message?: string };
    if (e.code === 3) throw new CmsError('authentication-failed', "the message is signed by a certificate other than the partner's", { cause: err });
    throw new CmsError('authentication-failed', `the signature does not verify: ${e.message ?? String(err)}`, { cause: err });
  }
  const verified = typeof result === 'boolean' ? result : result.signatureVerified === true;
  if (!verified) throw new CmsError('authentication-failed', "the signature does not verify with the partner's certificate");
  return { digest };
}

// --- encryption -------------------------------------------------------------------------------

/**
 * Encrypts `content` to the partner's certificate: a fresh content-encryption key, wrapped with
 * RSA PKCS#1 v1.5 (what AS2 software universally accepts). The encrypted content is one
 * primitive OCTET STRING: some receivers' ASN.1 parsers reject the segmented form.
 */
export function encrypt(content: Buffer, recipient: LoadedCredentials, algorithm: As2EncryptionAlgorithm): Buffer {
  const c = CIPHERS[algorithm];
  const key = randomBytes(c.keyLength);
  const iv = randomBytes(c.ivLength);
  const cipher = createCipheriv(c.node, key, iv);
  const encrypted = Buffer.concat([cipher.update(content), cipher.final()]);
  const wrapped = publicEncrypt({ key: recipient.partnerCertificate.publicKey, padding: constants.RSA_PKCS1_PADDING }, key);
  const cert = recipient.pkiPartnerCertificate;
  const eci = new pkijs.EncryptedContentInfo({
    contentType: OID.data,
    contentEncryptionAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: c.oid, algorithmParams: new asn1js.OctetString({ valueHex: u8(iv) }) }),
    encryptedContent: new asn1js.OctetString({ valueHex: u8(encrypted) }),
    disableSplit: true,
  });
  const enveloped = new pkijs.EnvelopedData({
    version: 0,
    recipientInfos: [
      new pkijs.RecipientInfo({
        variant: 1,
        value: new pkijs.KeyTransRecipientInfo({
          version: 0,
          rid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
          keyEncryptionAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.rsaEncryption, algorithmParams: new asn1js.Null() }),
          encryptedKey: new asn1js.OctetString({ valueHex: u8(wrapped) }),
        }),
      }),
    ],
    encryptedContentInfo: eci,
  });
  const info = new pkijs.ContentInfo({ contentType: OID.envelopedData, content: enveloped.toSchema() });
  return buf(info.toSchema().toBER(false));
}

export interface Decrypted {
  readonly content: Buffer;
  readonly algorithm: ContentCipher;
}

/**
 * RSAES-PKCS1-v1_5 decryption of a content-encryption key, natively (2 to 4 ms). Node.js allows
 * it only where its OpenSSL does implicit rejection (the CVE-2023-46809 fix, OpenSSL 3.2+: the
 * official builds of Node 24 and of Node 22 from 22.20.0); elsewhere it refuses, and that is a
 * runtime too old for AS2 here, told as such rather than as a partner's bad message.
 */
function unwrapPkcs1v15(wrapped: Buffer, key: KeyObject): Buffer {
  try {
    return privateDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, wrapped);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_INVALID_ARG_VALUE') {
      throw new CmsError('decryption-failed', `Node.js ${process.version} (OpenSSL ${process.versions.openssl}) refuses RSA PKCS#1 v1.5 key decryption; AS2 needs Node.js 24 or 22.20+`, { cause: err });
    }
    throw err;
  }
}

/** Unwraps the content-encryption key; a failure yields a random key (RFC 3218 §2.3), so a wrong key and a bad padding fail alike, later. */
function unwrapKey(ktri: pkijs.KeyTransRecipientInfo, creds: LoadedCredentials, keyLength: number): Buffer {
  const wrapped = buf(ktri.encryptedKey.valueBlock.valueHexView);
  const alg = ktri.keyEncryptionAlgorithm.algorithmId;
  let key: Buffer | null = null;
  try {
    if (alg === OID.rsaEncryption) {
      key = unwrapPkcs1v15(wrapped, creds.privateKey);
    } else if (alg === OID.rsaesOaep) {
      const params = ktri.keyEncryptionAlgorithm.algorithmParams ? new pkijs.RSAESOAEPParams({ schema: ktri.keyEncryptionAlgorithm.algorithmParams }) : new pkijs.RSAESOAEPParams();
      const hash = digestByOid(params.hashAlgorithm.algorithmId) ?? DIGESTS.sha1;
      key = privateDecrypt({ key: creds.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: hash.node }, wrapped);
    } else {
      throw new CmsError('decryption-failed', `unsupported key encryption algorithm ${alg}`);
    }
  } catch (err) {
    if (err instanceof CmsError) throw err;
    key = null;
  }
  return key && key.length === keyLength ? key : randomBytes(keyLength);
}

/** Decrypts EnvelopedData addressed to our certificate. Every failure is `decryption-failed` (a rejection). */
export function decrypt(der: Buffer, creds: LoadedCredentials): Promise<Decrypted> {
  // all native and synchronous (the key unwrap takes 2 to 4 ms); a promise, as the callers await it
  return Promise.resolve().then(() => decryptNow(der, creds));
}

function decryptNow(der: Buffer, creds: LoadedCredentials): Decrypted {
  const info = contentInfoOf(der, 'decryption-failed', 'the encrypted content');
  if (info.contentType !== OID.envelopedData) throw new CmsError('decryption-failed', `the encrypted part holds CMS content ${info.contentType}, not enveloped-data`);
  let enveloped: pkijs.EnvelopedData;
  try {
    enveloped = new pkijs.EnvelopedData({ schema: info.content });
  } catch (err) {
    throw new CmsError('decryption-failed', 'the encrypted part is not a CMS EnvelopedData', { cause: err });
  }
  const ours = creds.pkiCertificate;
  const ktris = enveloped.recipientInfos.filter((r) => r.variant === 1).map((r) => r.value as pkijs.KeyTransRecipientInfo);
  if (ktris.length === 0) throw new CmsError('decryption-failed', 'the message has no key-transport recipient (only RSA key transport is supported)');
  const mine = ktris.find((k) => k.rid instanceof pkijs.IssuerAndSerialNumber && k.rid.issuer.isEqual(ours.issuer) && k.rid.serialNumber.isEqual(ours.serialNumber));
  if (!mine) {
    const rid = ktris[0]?.rid;
    const serial = rid instanceof pkijs.IssuerAndSerialNumber ? buf(rid.serialNumber.valueBlock.valueHexView).toString('hex') : 'a subject key identifier';
    throw new CmsError('decryption-failed', `the message is encrypted for another certificate (serial ${serial}), not ours`);
  }
  const eci = enveloped.encryptedContentInfo;
  const cipher = cipherByOid(eci.contentEncryptionAlgorithm.algorithmId);
  if (!cipher) throw new CmsError('decryption-failed', `unsupported content encryption algorithm ${eci.contentEncryptionAlgorithm.algorithmId}`);
  const ivParam = eci.contentEncryptionAlgorithm.algorithmParams as asn1js.AsnType | undefined;
  const iv = ivParam ? octetsOf(ivParam) : Buffer.alloc(0);
  if (iv.length !== cipher.ivLength) throw new CmsError('decryption-failed', `the ${cipher.name} initialization vector has ${iv.length} bytes, not ${cipher.ivLength}`);
  const encryptedContent = eci.encryptedContent;
  if (!encryptedContent) throw new CmsError('decryption-failed', 'the encrypted content is missing (detached encrypted content is not supported)');
  const key = unwrapKey(mine, creds, cipher.keyLength);
  try {
    const d = createDecipheriv(cipher.node, key, iv);
    const content = Buffer.concat([d.update(octetsOf(encryptedContent)), d.final()]);
    return { content, algorithm: cipher };
  } catch (err) {
    throw new CmsError('decryption-failed', 'the content does not decrypt with our private key', { cause: err });
  }
}

// --- compression ------------------------------------------------------------------------------

/** RFC 3274 CompressedData (zlib) of `content`, as the DER of a ContentInfo. */
export async function compress(content: Buffer): Promise<Buffer> {
  const deflated = await deflateAsync(content);
  const encap = new pkijs.EncapsulatedContentInfo({ eContentType: OID.data, eContent: new asn1js.OctetString({ valueHex: u8(deflated) }) });
  // one primitive OCTET STRING rather than pkijs's 64 KiB segments, as for encrypted content
  encap.eContent = new asn1js.OctetString({ valueHex: u8(deflated) });
  const compressedData = new asn1js.Sequence({
    value: [new asn1js.Integer({ value: 0 }), new pkijs.AlgorithmIdentifier({ algorithmId: OID.zlib }).toSchema(), encap.toSchema()],
  });
  const info = new pkijs.ContentInfo({ contentType: OID.compressedData, content: compressedData });
  return buf(info.toSchema().toBER(false));
}

/** Inflates RFC 3274 CompressedData; output beyond `maxBytes` is refused (a decompression bomb). */
export async function decompress(der: Buffer, maxBytes: number): Promise<Buffer> {
  const info = contentInfoOf(der, 'decompression-failed', 'the compressed content');
  if (info.contentType !== OID.compressedData) throw new CmsError('decompression-failed', `the compressed part holds CMS content ${info.contentType}, not compressed-data`);
  const seq = info.content as asn1js.Sequence;
  const items = seq instanceof asn1js.Sequence ? seq.valueBlock.value : [];
  if (items.length !== 3) throw new CmsError('decompression-failed', 'CompressedData does not have its three fields (version, algorithm, content)');
  let algorithm: pkijs.AlgorithmIdentifier;
  let encap: pkijs.EncapsulatedContentInfo;
  try {
    algorithm = new pkijs.AlgorithmIdentifier({ schema: items[1] });
    encap = new pkijs.EncapsulatedContentInfo({ schema: items[2] });
  } catch (err) {
    throw new CmsError('decompression-failed', 'CompressedData does not parse', { cause: err });
  }
  if (algorithm.algorithmId !== OID.zlib) throw new CmsError('decompression-failed', `unsupported compression algorithm ${algorithm.algorithmId} (zlib is ${OID.zlib})`);
  if (!encap.eContent) throw new CmsError('decompression-failed', 'CompressedData carries no content');
  try {
    return await inflateAsync(octetsOf(encap.eContent), { maxOutputLength: maxBytes });
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new CmsError('decompression-failed', code === 'ERR_BUFFER_TOO_LARGE' ? `the content inflates beyond ${maxBytes} bytes` : `the content does not inflate (${(err as Error).message})`, { cause: err });
  }
}

