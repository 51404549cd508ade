/**
 * Message Disposition Notifications (RFC 3798 as profiled by RFC 4130 §7): building the
 * receipts we return, and reading, verifying and judging the receipts partners return.
 *
 * An MDN is a multipart/report (a human-readable part and a message/disposition-notification
 * part), signed as multipart/signed when the sender asked for a signed receipt.
 */
import { DIGESTS, type DigestName } from './algorithms.ts';
import { CmsError, signDetached, verifyDetached } from './cms.ts';
import { AS2_VERSION, bareMessageId, httpHeadersOf, newMessageId, quoteAs2Name, unquoteAs2Name } from './headers.ts';
import type { LoadedCredentials } from './keys.ts';
import { formatMic, micMatches, parseMic, type Mic, type ParsedMic } from './mic.ts';
import {
  base64Lines,
  buildEntity,
  contentTypeOf,
  decodedBody,
  entityOf,
  hasBareLineFeed,
  headerValue,
  joinMultipart,
  newBoundary,
  parseEntity,
  parseHeaderBlock,
  quoteParam,
  splitMultipart,
  toCanonicalLineBreaks,
  type MimeEntity,
  type MimeHeader,
} from './mime.ts';
import type * as pkijs from 'pkijs';

/**
 * Disposition modifiers this side reports. RFC 4130 §7.4.3 defines authentication-failed,
 * decryption-failed, insufficient-message-security, integrity-check-failed and
 * unexpected-processing-error; RFC 5402 adds decompression-failed; unknown-trading-partner is
 * what deployed AS2 software (and the AS2 registry draft) reports for an AS2 identifier that
 * names no agreement.
 */
export const DISPOSITION_MODIFIERS = [
  'authentication-failed',
  'decryption-failed',
  'integrity-check-failed',
  'insufficient-message-security',
  'decompression-failed',
  'unknown-trading-partner',
  'unexpected-processing-error',
] as const;
export type DispositionModifier = (typeof DISPOSITION_MODIFIERS)[number];

const DISPOSITION_MODE = 'automatic-action/MDN-sent-automatically';
const REPORTING_UA = 'tdx AS2';

/** The `Disposition` field value: processed, processed/error with a modifier, or failed/Failure (RFC 4130 §7.5.3). */
export function formatDisposition(modifier: DispositionModifier | null, failure?: string): string {
  if (failure !== undefined) return `${DISPOSITION_MODE}; failed/Failure: ${failure}`;
  return modifier === null ? `${DISPOSITION_MODE}; processed` : `${DISPOSITION_MODE}; processed/error: ${modifier}`;
}

export interface ParsedDisposition {
  /** `processed` or `failed` (lower case). */
  readonly type: string;
  /** `error`, `warning`, `failure` (lower case), or null. */
  readonly modifierKind: string | null;
  /** The text after the colon (`authentication-failed`...), or null. */
  readonly modifier: string | null;
  /** The whole field value as received (unfolded). */
  readonly text: string;
}

/** Parses `automatic-action/MDN-sent-automatically; processed/error: authentication-failed`. */
export function parseDisposition(value: string): ParsedDisposition {
  const text = value.replace(/\s+/g, ' ').trim();
  const semi = text.indexOf(';');
  const rest = (semi < 0 ? text : text.slice(semi + 1)).trim();
  const [head = '', ...tail] = rest.split(':');
  const [type = '', kind] = head.split('/').map((s) => s.trim().toLowerCase());
  const modifier = tail.join(':').trim();
  return { type, modifierKind: kind ?? null, modifier: modifier === '' ? null : modifier, text };
}

/** True when a disposition means the message was processed (a warning still counts). */
export function isPositive(d: ParsedDisposition): boolean {
  return d.type === 'processed' && (d.modifierKind === null || d.modifierKind === 'warning');
}

export interface MdnInput {
  /** The id of the message this MDN answers (with or without angle brackets). */
  readonly originalMessageId: string;
  /** The AS2-To of the received message (the MDN's AS2-From). */
  readonly from: string;
  /** The AS2-From of the received message (the MDN's AS2-To). */
  readonly to: string;
  readonly mic: Mic | null;
  /** null: processed. */
  readonly modifier: DispositionModifier | null;
  /** A `failed/Failure` disposition with this text instead (an option the sender required cannot be honoured). */
  readonly failure?: string;
  /** The human-readable part (ASCII; other characters are replaced). */
  readonly text: string;
  /** Sign the MDN with our key and this digest; null sends it unsigned. */
  readonly sign: { readonly credentials: LoadedCredentials; readonly digest: DigestName } | null;
  /** The MDN's own message id; fresh when absent. */
  readonly messageId?: string;
  readonly now?: Date;
}

/** An MDN ready to send: the HTTP headers (AS2 and MIME) and the body. */
export interface BuiltMdn {
  readonly messageId: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly signed: boolean;
}

const ascii = (s: string): string => s.replace(/[^\x20-\x7e\r\n\t]/g, '?').replace(/\r?\n/g, '\r\n');

/** Builds an MDN (signed when `sign` is given). */
export async function buildMdn(input: MdnInput): Promise<BuiltMdn> {
  const now = input.now ?? new Date();
  const messageId = input.messageId ?? newMessageId(input.from);
  const fields = [
    `Reporting-UA: ${REPORTING_UA}`,
    `Original-Recipient: rfc822; ${quoteAs2Name(input.from)}`,
    `Final-Recipient: rfc822; ${quoteAs2Name(input.from)}`,
    `Original-Message-ID: <${bareMessageId(input.originalMessageId)}>`,
    `Disposition: ${formatDisposition(input.modifier, input.failure)}`,
    ...(input.mic ? [`Received-content-MIC: ${formatMic(input.mic)}`] : []),
  ];
  const textPart = buildEntity(
    [
      { name: 'Content-Type', value: 'text/plain; charset=us-ascii' },
      { name: 'Content-Transfer-Encoding', value: '7bit' },
    ],
    Buffer.from(`${ascii(input.text)}\r\n`, 'latin1'),
  );
  const reportPart = buildEntity(
    [
      { name: 'Content-Type', value: 'message/disposition-notification' },
      { name: 'Content-Transfer-Encoding', value: '7bit' },
    ],
    Buffer.from(`${fields.map(ascii).join('\r\n')}\r\n`, 'latin1'),
  );
  const reportBoundary = newBoundary();
  const reportType = `multipart/report; report-type=disposition-notification; boundary=${quoteParam(reportBoundary)}`;
  const reportBody = joinMultipart([textPart.raw, reportPart.raw], reportBoundary);

  let contentType = reportType;
  let body = reportBody;
  if (input.sign) {
    const report = buildEntity([{ name: 'Content-Type', value: reportType }], reportBody);
    const signature = await signDetached(report.raw, input.sign.credentials, input.sign.digest, now);
    const sigPart = buildEntity(
      [
        { name: 'Content-Type', value: 'application/pkcs7-signature; name=smime.p7s; smime-type=signed-data' },
        { name: 'Content-Transfer-Encoding', value: 'base64' },
        { name: 'Content-Disposition', value: 'attachment; filename=smime.p7s' },
      ],
      base64Lines(signature),
    );
    const outer = newBoundary();
    contentType = `multipart/signed; protocol="application/pkcs7-signature"; micalg=${DIGESTS[input.sign.digest].micalg}; boundary=${quoteParam(outer)}`;
    body = joinMultipart([report.raw, sigPart.raw], outer);
  }
  const headers: MimeHeader[] = [
    { name: 'AS2-Version', value: AS2_VERSION },
    { name: 'AS2-From', value: quoteAs2Name(input.from) },
    { name: 'AS2-To', value: quoteAs2Name(input.to) },
    { name: 'Message-ID', value: messageId },
    { name: 'Date', value: now.toUTCString() },
    { name: 'Subject', value: 'Message Disposition Notification' },
    { name: 'MIME-Version', value: '1.0' },
    { name: 'Content-Type', value: contentType },
  ];
  return { messageId, headers: httpHeadersOf(headers), body, signed: input.sign !== null };
}

// --- reading receipts -------------------------------------------------------------------------

export interface ParsedMdn {
  readonly messageId: string | null;
  readonly from: string | null;
  readonly to: string | null;
  /** Present when the MDN is multipart/signed: the signed bytes and the signature. */
  readonly signature: { readonly content: Buffer; readonly der: Buffer } | null;
  readonly originalMessageId: string | null;
  readonly disposition: ParsedDisposition | null;
  readonly mic: ParsedMic | null;
  /** The human-readable part. */
  readonly text: string;
}

/** A response or request that is not a readable MDN. */
export class MdnError extends Error {
  override readonly name = 'MdnError';
}

function findReport(entity: MimeEntity): MimeEntity {
  const ct = contentTypeOf(entity);
  if (ct.mediaType !== 'multipart/report') throw new MdnError(`expected multipart/report, got ${ct.mediaType}`);
  return entity;
}

/** True when an HTTP message looks like an MDN (multipart/report, possibly signed), judged by its Content-Type alone. */
export function looksLikeMdn(headers: readonly MimeHeader[], body: Buffer): boolean {
  const ct = contentTypeOf({ headers });
  if (ct.mediaType === 'multipart/report') return true;
  if (ct.mediaType !== 'multipart/signed') return false;
  try {
    const first = splitMultipart(body, ct.params['boundary'] ?? '')[0];
    return first !== undefined && contentTypeOf(parseEntity(first)).mediaType === 'multipart/report';
  } catch {
    return false;
  }
}

/** Parses an MDN from its HTTP headers and body (signature not yet verified). */
export function parseMdn(headers: readonly MimeHeader[], body: Buffer): ParsedMdn {
  const top = entityOf(headers, body);
  const ct = contentTypeOf(top);
  let report: MimeEntity;
  let signature: ParsedMdn['signature'] = null;
  try {
    if (ct.mediaType === 'multipart/signed') {
      const parts = splitMultipart(body, ct.params['boundary'] ?? '');
      const [content, sig] = parts;
      if (!content || !sig) throw new MdnError('a signed MDN needs two parts');
      const sigEntity = parseEntity(sig);
      const sigType = contentTypeOf(sigEntity).mediaType;
      if (sigType !== 'application/pkcs7-signature' && sigType !== 'application/x-pkcs7-signature') throw new MdnError(`the second part of a signed MDN is ${sigType}, not a signature`);
      signature = { content, der: decodedBody(sigEntity) };
      report = findReport(parseEntity(content));
    } else {
      report = findReport(top);
    }
    const rct = contentTypeOf(report);
    const parts = splitMultipart(report.body, rct.params['boundary'] ?? '').map(parseEntity);
    const dn = parts.find((p) => contentTypeOf(p).mediaType === 'message/disposition-notification');
    if (!dn) throw new MdnError('the report has no message/disposition-notification part');
    const fields = parseHeaderBlock(decodedBody(dn).toString('latin1'));
    const textPart = parts.find((p) => contentTypeOf(p).mediaType === 'text/plain');
    const disposition = headerValue(fields, 'disposition');
    const original = headerValue(fields, 'original-message-id');
    const get = (n: string): string | null => {
      const v = headerValue(headers, n);
      return v === undefined ? null : v;
    };
    return {
      messageId: get('message-id'),
      from: get('as2-from') === null ? null : unquoteAs2Name(get('as2-from')!),
      to: get('as2-to') === null ? null : unquoteAs2Name(get('as2-to')!),
      signature,
      originalMessageId: original === undefined ? null : bareMessageId(original),
      disposition: disposition === undefined ? null : parseDisposition(disposition),
      mic: parseMic(headerValue(fields, 'received-content-mic')),
      text: textPart ? decodedBody(textPart).toString('latin1').trim() : '',
    };
  } catch (err) {
    if (err instanceof MdnError) throw err;
    throw new MdnError(`not a readable MDN: ${(err as Error).message}`);
  }
}

/** Verifies a signed MDN against the partner's certificate (as sent, then in canonical CRLF form). */
export async function verifyMdnSignature(mdn: ParsedMdn, partner: pkijs.Certificate): Promise<{ ok: true; digest: DigestName } | { ok: false; reason: string }> {
  if (!mdn.signature) return { ok: false, reason: 'the MDN is not signed' };
  try {
    const v = await verifyDetached(mdn.signature.content, mdn.signature.der, partner);
    return { ok: true, digest: v.digest.name };
  } catch (err) {
    if (hasBareLineFeed(mdn.signature.content)) {
      try {
        const v = await verifyDetached(toCanonicalLineBreaks(mdn.signature.content), mdn.signature.der, partner);
        return { ok: true, digest: v.digest.name };
      } catch {
        // report the first failure
      }
    }
    return { ok: false, reason: err instanceof CmsError ? err.message : `the MDN signature does not verify: ${(err as Error).message}` };
  }
}

/** What the sender knows about a message when its receipt arrives. */
export interface MdnExpectation {
  /** The message id we sent (angle brackets optional). */
  readonly messageId: string;
  /** The MIC we computed; null when none can be compared. */
  readonly mic: Mic | null;
  /** The receipt must carry the MIC (the message was signed, so every receiver computes one). */
  readonly micRequired: boolean;
  /** We asked for a signed receipt: an unsigned one is refused. */
  readonly signedReceipt: boolean;
}

export type MdnStatus = 'processed' | 'failed';

/** Our judgement of a receipt. */
export interface MdnVerdict {
  readonly status: MdnStatus;
  /** Why a receipt is `failed`, or the warning of a processed one; null otherwise. */
  readonly reason: string | null;
  /** The Disposition field as received. */
  readonly disposition: string | null;
  /** The partner's modifier of a negative disposition (`authentication-failed`...). */
  readonly modifier: string | null;
  /** The MIC the partner returned (`<base64>, <alg>`), or null. */
  readonly returnedMic: string | null;
  /** True/false when a MIC was compared; null when none was. */
  readonly micMatched: boolean | null;
  readonly signed: boolean;
  /** The receipt is signed and its signature verified with the partner's certificate. */
  readonly authenticated: boolean;
  readonly mdnMessageId: string | null;
  readonly originalMessageId: string | null;
}

/** Parses, verifies and judges a receipt against what was sent. Never throws for a bad receipt: it is `failed`. */
export async function evaluateMdn(headers: readonly MimeHeader[], body: Buffer, expected: MdnExpectation, partner: pkijs.Certificate): Promise<MdnVerdict> {
  let mdn: ParsedMdn;
  try {
    mdn = parseMdn(headers, body);
  } catch (err) {
    return { status: 'failed', reason: `the receipt is not a readable MDN (${(err as Error).message})`, disposition: null, modifier: null, returnedMic: null, micMatched: null, signed: false, authenticated: false, mdnMessageId: headerValue(headers, 'message-id') ?? null, originalMessageId: null };
  }
  const base = {
    disposition: mdn.disposition?.text ?? null,
    modifier: mdn.disposition && !isPositive(mdn.disposition) ? mdn.disposition.modifier : null,
    returnedMic: mdn.mic ? `${mdn.mic.value}, ${mdn.mic.token}` : null,
    signed: mdn.signature !== null,
    mdnMessageId: mdn.messageId,
    originalMessageId: mdn.originalMessageId,
  };
  let authenticated = false;
  const fail = (reason: string, micMatched: boolean | null = null): MdnVerdict => ({ ...base, status: 'failed', reason, micMatched, authenticated });
  if (mdn.originalMessageId !== bareMessageId(expected.messageId)) {
    return fail(`the MDN answers message ${mdn.originalMessageId ?? '(none)'}, not ${bareMessageId(expected.messageId)}`);
  }
  if (mdn.signature) {
    const v = await verifyMdnSignature(mdn, partner);
    if (!v.ok) return fail(`the MDN signature is not valid: ${v.reason}`);
    authenticated = true;
  } else if (expected.signedReceipt) {
    return fail('the MDN is unsigned where a signed receipt was asked for');
  }
  if (!mdn.disposition) return fail('the MDN has no Disposition field');
  if (!isPositive(mdn.disposition)) return fail(`the partner reports ${mdn.disposition.text.split(';').pop()?.trim() ?? mdn.disposition.text}${mdn.text ? ` (${mdn.text.slice(0, 300)})` : ''}`);
  let micMatched: boolean | null = null;
  if (expected.mic) {
    if (mdn.mic) {
      micMatched = micMatches(expected.mic, mdn.mic);
      if (!micMatched) return fail(`the returned MIC ${mdn.mic.value} (${mdn.mic.token || 'no algorithm'}) differs from ours ${expected.mic.value} (${DIGESTS[expected.mic.algorithm].micalg})`, false);
    } else if (expected.micRequired) {
      return fail('the MDN returns no MIC for a signed message');
    }
  }
  const warning = mdn.disposition.modifierKind === 'warning' ? `warning: ${mdn.disposition.modifier ?? ''}`.trim() : null;
  return { ...base, status: 'processed', reason: warning, micMatched, authenticated };
}
