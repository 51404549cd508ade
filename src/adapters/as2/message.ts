/**
 * AS2 messages (RFC 4130): building the HTTP request that carries a payload (compressed,
 * signed, encrypted as configured, with the AS2 headers), and unwrapping a received one layer
 * by layer (decrypt, decompress, verify) down to the payload.
 */
import type { As2EncryptionAlgorithm } from '../../domain/configuration.ts';
import { DIGESTS, type ContentCipher, type DigestName } from './algorithms.ts';
import { CmsError, cmsContentType, compress, decompress, decrypt, encrypt, signDetached, verifyDetached, type CmsFailure } from './cms.ts';
import { AS2_VERSION, formatReceiptOptions, httpHeadersOf, quoteAs2Name } from './headers.ts';
import type { LoadedCredentials } from './keys.ts';
import { computeMic, type Mic } from './mic.ts';
import {
  base64Lines,
  buildEntity,
  contentTypeOf,
  decodedBody,
  hasBareLineFeed,
  headerValue,
  joinMultipart,
  MimeError,
  newBoundary,
  parseContentType,
  parseEntity,
  quoteParam,
  splitMultipart,
  toCanonicalLineBreaks,
  type MimeEntity,
  type MimeHeader,
} from './mime.ts';
import { OID } from './algorithms.ts';

export interface OutboundMessageInput {
  readonly payload: Buffer;
  /** Content-Disposition filename; none when null. */
  readonly filename: string | null;
  readonly contentType: string;
  /** Our AS2 identifier (AS2-From). */
  readonly from: string;
  /** The partner's AS2 identifier (AS2-To). */
  readonly to: string;
  /** With angle brackets. */
  readonly messageId: string;
  readonly signing: DigestName | null;
  readonly encryption: As2EncryptionAlgorithm | null;
  readonly compression: boolean;
  /** The receipt asked for; null asks for none. */
  readonly receipt: { readonly signed: boolean; readonly asyncUrl: string | null } | null;
  readonly credentials: LoadedCredentials;
  readonly now?: Date;
}

export interface OutboundMessage {
  readonly messageId: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** The MIC a receiver computes over this message (RFC 4130 §7.3.1). */
  readonly mic: Mic;
  /** Every conforming receiver returns the MIC (the message is signed). */
  readonly micRequired: boolean;
}

/** A filename safe in a quoted header parameter: path separators, quotes and control characters dropped. */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  return [...base].map((c) => (c.charCodeAt(0) < 0x20 || c === '\x7f' || c === '"' || c === '\\' ? '_' : c)).join('').slice(0, 200);
}

/** Builds the HTTP request of an AS2 message: payload → compressed → signed → encrypted, as asked. */
export async function buildMessage(input: OutboundMessageInput): Promise<OutboundMessage> {
  const dataHeaders: MimeHeader[] = [
    { name: 'Content-Type', value: input.contentType },
    // binary: the payload's bytes are sent and signed as they are, never re-encoded
    { name: 'Content-Transfer-Encoding', value: 'binary' },
  ];
  if (input.filename) dataHeaders.push({ name: 'Content-Disposition', value: `attachment; filename="${safeFilename(input.filename)}"` });
  let entity: MimeEntity = buildEntity(dataHeaders, input.payload);

  if (input.compression) {
    entity = buildEntity(
      [
        { name: 'Content-Type', value: 'application/pkcs7-mime; smime-type=compressed-data; name=smime.p7z' },
        { name: 'Content-Transfer-Encoding', value: 'binary' },
        { name: 'Content-Disposition', value: 'attachment; filename=smime.p7z' },
      ],
      await compress(entity.raw),
    );
  }

  let mic: Mic | null = null;
  if (input.signing) {
    mic = computeMic(entity.raw, input.signing);
    const signature = await signDetached(entity.raw, input.credentials, input.signing, input.now);
    const sigPart = buildEntity(
      [
        { name: 'Content-Type', value: 'application/pkcs7-signature; name=smime.p7s; smime-type=signed-data' },
        { name: 'Content-Transfer-Encoding', value: 'base64' },
        { name: 'Content-Disposition', value: 'attachment; filename=smime.p7s' },
      ],
      base64Lines(signature),
    );
    const boundary = newBoundary();
    entity = buildEntity(
      [{ name: 'Content-Type', value: `multipart/signed; protocol="application/pkcs7-signature"; micalg=${DIGESTS[input.signing].micalg}; boundary=${quoteParam(boundary)}` }],
      joinMultipart([entity.raw, sigPart.raw], boundary),
    );
  }

  const micalg: DigestName = input.signing ?? 'sha256';
  if (input.encryption) {
    if (!mic) mic = computeMic(entity.raw, micalg);
    entity = buildEntity(
      [
        { name: 'Content-Type', value: 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m' },
        { name: 'Content-Transfer-Encoding', value: 'binary' },
        { name: 'Content-Disposition', value: 'attachment; filename=smime.p7m' },
      ],
      encrypt(entity.raw, input.credentials, input.encryption),
    );
  }
  if (!mic) mic = computeMic(entity.body, micalg);

  const now = input.now ?? new Date();
  const headers: MimeHeader[] = [
    { name: 'AS2-Version', value: AS2_VERSION },
    { name: 'EDIINT-Features', value: 'CMS' },
    { name: 'AS2-From', value: quoteAs2Name(input.from) },
    { name: 'AS2-To', value: quoteAs2Name(input.to) },
    { name: 'Message-ID', value: input.messageId },
    { name: 'Date', value: now.toUTCString() },
    { name: 'Subject', value: input.filename ? `AS2 message ${safeFilename(input.filename)}` : 'AS2 message' },
    { name: 'MIME-Version', value: '1.0' },
    ...entity.headers,
  ];
  if (input.receipt) {
    // the value is informational for AS2 (RFC 4130 §7.3): any address asks for a receipt
    headers.push({ name: 'Disposition-Notification-To', value: input.receipt.asyncUrl ?? `as2@${input.from.replace(/[^A-Za-z0-9.-]/g, '') || 'tdx'}` });
    if (input.receipt.signed) headers.push({ name: 'Disposition-Notification-Options', value: formatReceiptOptions([DIGESTS[micalg].micalg]) });
    if (input.receipt.asyncUrl) headers.push({ name: 'Receipt-Delivery-Option', value: input.receipt.asyncUrl });
  }
  return { messageId: input.messageId, headers: httpHeadersOf(headers), body: entity.body, mic, micRequired: input.signing !== null };
}

// --- receiving --------------------------------------------------------------------------------

/** A received message that cannot be accepted, with the disposition modifier to report. */
export class As2ProcessingError extends Error {
  override readonly name = 'As2ProcessingError';
  constructor(
    readonly modifier: CmsFailure | 'insufficient-message-security' | 'unknown-trading-partner',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface UnpackedMessage {
  readonly payload: Buffer;
  readonly contentType: string;
  readonly filename: string | null;
  /** Digest of the verified signature; null when unsigned. */
  readonly signedWith: DigestName | null;
  readonly encryptedWith: ContentCipher | null;
  readonly compressed: boolean;
  /** The MIC to return (RFC 4130 §7.3.1). */
  readonly mic: Mic;
}

const MAX_LAYERS = 6;

function filenameOf(entity: MimeEntity): string | null {
  const cd = headerValue(entity.headers, 'content-disposition');
  if (!cd) return null;
  const p = parseContentType(`x/x; ${cd.split(';').slice(1).join(';')}`).params;
  const name = p['filename'] ?? p['name'];
  return name ? safeFilename(name) : null;
}

const isSmimeMime = (mediaType: string): boolean => mediaType === 'application/pkcs7-mime' || mediaType === 'application/x-pkcs7-mime';

/**
 * Unwraps a received message (HTTP headers and body as one entity) with our key and the
 * partner's certificate. `micalg` is the MIC digest for unsigned messages (the sender's first
 * supported choice). Throws As2ProcessingError with the modifier to report.
 */
export async function unpackMessage(top: MimeEntity, creds: LoadedCredentials, micalg: DigestName, maxDecompressedBytes: number): Promise<UnpackedMessage> {
  let entity = top;
  let signedWith: DigestName | null = null;
  let encryptedWith: ContentCipher | null = null;
  let compressed = false;
  let mic: Mic | null = null;
  let decryptedEntity: Buffer | null = null;
  try {
    for (let layer = 0; ; layer++) {
      if (layer > MAX_LAYERS) throw new As2ProcessingError('unexpected-processing-error', `more than ${MAX_LAYERS} nested S/MIME layers`);
      const ct = contentTypeOf(entity);
      if (isSmimeMime(ct.mediaType)) {
        const der = decodedBody(entity);
        const kind = cmsContentType(der);
        if (kind === OID.envelopedData) {
          if (encryptedWith) throw new As2ProcessingError('decryption-failed', 'the message is encrypted twice');
          const d = await decrypt(der, creds);
          encryptedWith = d.algorithm;
          decryptedEntity = d.content;
          entity = parseEntity(d.content);
          continue;
        }
        if (kind === OID.compressedData) {
          if (compressed) throw new As2ProcessingError('decompression-failed', 'the message is compressed twice');
          compressed = true;
          entity = parseEntity(await decompress(der, maxDecompressedBytes));
          continue;
        }
        if (kind === OID.signedData) throw new As2ProcessingError('unexpected-processing-error', 'opaque signed-data (application/pkcs7-mime; smime-type=signed-data) is not supported; AS2 signs with multipart/signed');
        const smime = ct.params['smime-type'] ?? '';
        const failure: CmsFailure = smime === 'compressed-data' ? 'decompression-failed' : smime === 'enveloped-data' ? 'decryption-failed' : 'unexpected-processing-error';
        throw new As2ProcessingError(failure, `the ${ct.mediaType} part is not CMS data this side can read`);
      }
      if (ct.mediaType === 'multipart/signed') {
        if (signedWith) throw new As2ProcessingError('authentication-failed', 'the message is signed twice');
        const parts = splitMultipart(entity.body, ct.params['boundary'] ?? '');
        const [content, sig] = parts;
        if (!content || !sig || parts.length !== 2) throw new As2ProcessingError('authentication-failed', `a signed message has two parts, this one ${parts.length}`);
        const sigEntity = parseEntity(sig);
        const sigType = contentTypeOf(sigEntity).mediaType;
        if (sigType !== 'application/pkcs7-signature' && sigType !== 'application/x-pkcs7-signature') throw new As2ProcessingError('authentication-failed', `the second part of the signed message is ${sigType}, not a signature`);
        const der = decodedBody(sigEntity);
        let verified: { digest: DigestName; bytes: Buffer };
        try {
          const v = await verifyDetached(content, der, creds.pkiPartnerCertificate);
          verified = { digest: v.digest.name, bytes: content };
        } catch (err) {
          // a sender whose text lines end in bare LF signed their canonical CRLF form
          if (!(err instanceof CmsError) || !hasBareLineFeed(content)) throw err;
          const canonical = toCanonicalLineBreaks(content);
          try {
            const v = await verifyDetached(canonical, der, creds.pkiPartnerCertificate);
            verified = { digest: v.digest.name, bytes: canonical };
          } catch {
            throw err;
          }
        }
        signedWith = verified.digest;
        mic = computeMic(verified.bytes, verified.digest);
        entity = parseEntity(verified.bytes);
        continue;
      }
      if (ct.mediaType.startsWith('multipart/')) throw new As2ProcessingError('unexpected-processing-error', `a ${ct.mediaType} payload is not supported (one document per message)`);
      const payload = decodedBody(entity);
      if (!mic) mic = computeMic(decryptedEntity ?? top.body, micalg);
      return { payload, contentType: ct.mediaType, filename: filenameOf(entity), signedWith, encryptedWith, compressed, mic };
    }
  } catch (err) {
    if (err instanceof As2ProcessingError) throw err;
    if (err instanceof CmsError) throw new As2ProcessingError(err.failure, err.message, { cause: err });
    if (err instanceof MimeError) throw new As2ProcessingError('unexpected-processing-error', `the message is not valid MIME: ${err.message}`, { cause: err });
    throw new As2ProcessingError('unexpected-processing-error', `the message could not be read: ${(err as Error).message}`, { cause: err });
  }
}
