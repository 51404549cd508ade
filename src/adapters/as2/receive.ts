/**
 * The receive side of AS2, independent of any HTTP framework: given the raw request of
 * `POST /as2/:connectionId`, checks it against the connection's agreement, unwraps it, and
 * returns the payload with the receipt (MDN) to answer — or the negative receipt.
 *
 * The caller answers the request with `reply` only after it has stored the payload durably
 * (a positive MDN promises the message was taken in), and posts `asyncMdn` afterwards when the
 * sender asked for an asynchronous receipt.
 */
import type { DigestName } from './algorithms.ts';
import { loadedCredentialsOf, type As2ConnectionLookup } from './connection.ts';
import { bareMessageId, mimeHeadersOf, parseReceiptOptions, unquoteAs2Name, type HttpHeaders, type HttpReply, type ReceiptRequest } from './headers.ts';
import type { LoadedCredentials } from './keys.ts';
import { buildMdn, type BuiltMdn, type DispositionModifier } from './mdn.ts';
import { As2ProcessingError, unpackMessage, type UnpackedMessage } from './message.ts';
import { formatMic, type Mic } from './mic.ts';
import { createHash } from 'node:crypto';
import { entityOf, headerValue, type MimeHeader } from './mime.ts';
import type { As2EncryptionAlgorithm } from '../../domain/configuration.ts';

/** The raw HTTP request as received. */
export interface As2HttpRequest {
  readonly method: string;
  /** Node's `req.headers` (lower-case names) or any equivalent map. */
  readonly headers: HttpHeaders;
  readonly body: Buffer;
}

/**
 * Port: remembers which message ids a connection has taken in. The pipeline implements it over
 * Cassandra and records an id only once the payload is stored, so a message whose storing
 * failed is processed again when the partner resends it.
 */
export interface As2ReceivedMessages {
  /** True when this message id was already taken in on this connection. */
  seen(connectionId: string, messageId: string): Promise<boolean>;
  /**
   * SHA-256 (hex) of the payload taken in under this id, when known: a repeat of the id with
   * other content is refused (`processed/error`), never acknowledged as `processed`.
   */
  payloadDigest?(connectionId: string, messageId: string): Promise<string | null>;
}

export interface ReceiveOptions {
  /** Largest payload accepted after decompression. @default 256 MiB */
  readonly maxDecompressedBytes?: number;
  readonly now?: Date;
}

/** An asynchronous receipt to post after answering the request (see `postAsyncMdn`). */
export interface AsyncMdn {
  readonly url: string;
  readonly mdn: BuiltMdn;
}

/** Fields for the trace's `detail` (the AS2 message id, from, to, and what was checked). */
export interface As2ReceiveDetail {
  readonly as2MessageId: string | null;
  readonly as2From: string | null;
  readonly as2To: string | null;
  readonly mic: string | null;
  readonly signed: DigestName | null;
  readonly encrypted: As2EncryptionAlgorithm | null;
  readonly compressed: boolean;
  /** How the receipt goes: `async` (posted later), `sync` (in the response), `none`. */
  readonly mdnMode: 'sync' | 'async' | 'none';
  readonly mdnSigned: boolean;
  readonly mdnMessageId: string | null;
  readonly disposition: string;
  readonly duplicate: boolean;
}

export interface As2Accepted {
  readonly ok: true;
  /** The message id was already taken in: it is acknowledged again and must not be processed again. */
  readonly duplicate: boolean;
  readonly payload: Buffer;
  readonly filename: string | null;
  readonly contentType: string;
  /** Without angle brackets. */
  readonly messageId: string;
  readonly from: string;
  readonly to: string;
  readonly mic: Mic;
  /** Answer the request with this (a sync MDN, or an empty 200 for an async or no receipt). */
  readonly reply: HttpReply;
  readonly asyncMdn: AsyncMdn | null;
  readonly detail: As2ReceiveDetail;
  /**
   * A negative receipt (`unexpected-processing-error`) for when taking the message in fails
   * after this point (storing it, for example): answer with its `reply` instead.
   */
  fail(reason: string): Promise<{ readonly reply: HttpReply; readonly asyncMdn: AsyncMdn | null }>;
}

export interface As2Rejected {
  readonly ok: false;
  readonly modifier: DispositionModifier;
  /** Why (for logs and the error result; the MDN carries it too). */
  readonly reason: string;
  readonly messageId: string | null;
  readonly from: string | null;
  readonly to: string | null;
  /** The negative MDN (sync), or a plain error when no receipt was asked for. */
  readonly reply: HttpReply;
  /** Only for a sender whose signature verified; anyone else gets the receipt in `reply`. */
  readonly asyncMdn: AsyncMdn | null;
  readonly detail: As2ReceiveDetail;
}

export type As2ReceiveOutcome = As2Accepted | As2Rejected;

const DEFAULT_MAX_DECOMPRESSED = 256 * 1024 * 1024;
const EMPTY_OK: HttpReply = { status: 200, headers: { 'Content-Type': 'text/plain' }, body: Buffer.alloc(0) };

interface Requested {
  readonly mode: 'sync' | 'async' | 'none';
  readonly asyncUrl: string | null;
  readonly options: ReceiptRequest;
}

function requestedReceipt(headers: readonly MimeHeader[]): Requested {
  const dnt = headerValue(headers, 'disposition-notification-to');
  const rdo = headerValue(headers, 'receipt-delivery-option');
  const options = parseReceiptOptions(headerValue(headers, 'disposition-notification-options'));
  if (!dnt) return { mode: 'none', asyncUrl: null, options };
  if (rdo && /^https?:\/\//i.test(rdo.trim())) return { mode: 'async', asyncUrl: rdo.trim(), options };
  return { mode: 'sync', asyncUrl: null, options };
}

/** How the receipt actually goes: posted later, in the response, or not at all. */
function modeOf(r: { readonly asyncMdn: AsyncMdn | null; readonly mdn: BuiltMdn | null }): 'sync' | 'async' | 'none' {
  return r.asyncMdn ? 'async' : r.mdn ? 'sync' : 'none';
}

function plainReply(status: number, text: string): HttpReply {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Buffer.from(`${text}\n`) };
}

const TEXT_OK = 'The AS2 message was received and its signature and content checked. This receipt does not mean the document was accepted by the application.';

/**
 * Receives one AS2 message for a connection. A bad message never throws: every problem
 * becomes a negative MDN (or a plain HTTP error when no receipt was asked for). The promise
 * rejects only when a port fails (`lookup`, `received`: a store unavailable): answer 503 then,
 * so the partner sends the message again rather than taking a negative receipt as final.
 */
export async function receiveAs2Message(
  connectionId: string,
  request: As2HttpRequest,
  lookup: As2ConnectionLookup,
  received: As2ReceivedMessages,
  options: ReceiveOptions = {},
): Promise<As2ReceiveOutcome> {
  const headers = mimeHeadersOf(request.headers);
  const rawMessageId = headerValue(headers, 'message-id');
  const messageId = rawMessageId ? bareMessageId(rawMessageId) : null;
  const from = headerValue(headers, 'as2-from') === undefined ? null : unquoteAs2Name(headerValue(headers, 'as2-from')!);
  const to = headerValue(headers, 'as2-to') === undefined ? null : unquoteAs2Name(headerValue(headers, 'as2-to')!);
  const requested = requestedReceipt(headers);
  const baseDetail = { as2MessageId: messageId, as2From: from, as2To: to } as const;

  let creds: LoadedCredentials | null = null;
  let authenticated = false;

  /** The receipt for a disposition: sync in the reply, or async (posted later). */
  const receipt = async (modifier: DispositionModifier | null, text: string, mic: Mic | null): Promise<{ reply: HttpReply; asyncMdn: AsyncMdn | null; mdn: BuiltMdn | null }> => {
    if (requested.mode === 'none' || messageId === null || from === null || to === null) {
      return { reply: modifier === null ? EMPTY_OK : plainReply(modifier === 'unknown-trading-partner' ? 404 : 400, `AS2 message refused (${modifier}): ${text}`), asyncMdn: null, mdn: null };
    }
    const digest: DigestName = requested.options.micalgs[0] ?? mic?.algorithm ?? 'sha256';
    const mdn = await buildMdn({
      originalMessageId: messageId,
      from: to,
      to: from,
      mic,
      modifier,
      text,
      sign: requested.options.signed && creds ? { credentials: creds, digest } : null,
      ...(options.now ? { now: options.now } : {}),
    });
    // an asynchronous receipt goes only to a sender whose signature verified; anyone else could
    // name any URL and have this service post to it, so it gets the receipt in the response
    if (requested.mode === 'async' && requested.asyncUrl && authenticated) {
      return { reply: EMPTY_OK, asyncMdn: { url: requested.asyncUrl, mdn }, mdn };
    }
    return { reply: { status: 200, headers: mdn.headers, body: mdn.body }, asyncMdn: null, mdn };
  };

  const reject = async (modifier: DispositionModifier, reason: string, seen: UnpackedMessage | null = null): Promise<As2Rejected> => {
    const mic = seen?.mic ?? null;
    const r = await receipt(modifier, reason, mic);
    return {
      ok: false,
      modifier,
      reason,
      messageId,
      from,
      to,
      reply: r.reply,
      asyncMdn: r.asyncMdn,
      detail: { ...baseDetail, mdnMode: modeOf(r), mic: mic ? formatMic(mic) : null, signed: seen?.signedWith ?? null, encrypted: seen?.encryptedWith?.name ?? null, compressed: seen?.compressed ?? false, mdnSigned: r.mdn?.signed ?? false, mdnMessageId: r.mdn?.messageId ?? null, disposition: `processed/error: ${modifier}`, duplicate: false },
    };
  };

  const refuseUnsupportedMicalg = async (asked: readonly string[]): Promise<As2Rejected> => {
    const reason = `the receipt must be signed with ${asked.join(', ')}, which this side does not support (supported: sha1, sha224, sha256, sha384, sha512)`;
    const mdn = await buildMdn({ originalMessageId: messageId!, from: to!, to: from!, mic: null, modifier: null, failure: 'unsupported MIC-algorithms', text: `The message was not taken in: ${reason}.`, sign: null, ...(options.now ? { now: options.now } : {}) });
    const toAsync = requested.mode === 'async' && requested.asyncUrl !== null && authenticated;
    return {
      ok: false,
      modifier: 'unexpected-processing-error',
      reason,
      messageId,
      from,
      to,
      reply: toAsync ? EMPTY_OK : { status: 200, headers: mdn.headers, body: mdn.body },
      asyncMdn: toAsync && requested.asyncUrl !== null ? { url: requested.asyncUrl, mdn } : null,
      detail: { ...baseDetail, mdnMode: toAsync ? 'async' : 'sync', mic: null, signed: null, encrypted: null, compressed: false, mdnSigned: false, mdnMessageId: mdn.messageId, disposition: 'failed/Failure: unsupported MIC-algorithms', duplicate: false },
    };
  };

  if (request.method.toUpperCase() !== 'POST') return await reject('unexpected-processing-error', `AS2 messages are sent with POST, not ${request.method}`);
  if (!messageId) return await reject('unexpected-processing-error', 'the message has no Message-ID header');
  if (from === null || to === null) return await reject('unknown-trading-partner', 'the message lacks an AS2-From or AS2-To header');

  const conn = await lookup(connectionId);
  if (!conn) return await reject('unknown-trading-partner', `no AS2 connection ${connectionId}`);
  const s = conn.settings;
  if (conn.credentials) {
    try {
      creds = loadedCredentialsOf(conn.credentials);
    } catch {
      creds = null;
    }
  }
  if (to !== s.localId) return await reject('unknown-trading-partner', `AS2-To "${to}" is not this connection's AS2 identifier`);
  if (from !== s.partnerId) return await reject('unknown-trading-partner', `AS2-From "${from}" is not the partner of this connection`);
  if (s.setupStatus !== 'ready' || !creds) return await reject('unexpected-processing-error', 'the AS2 setup of this connection is not complete; the message cannot be read yet');

  const micalg: DigestName = requested.options.micalgs[0] ?? 'sha256';
  let unpacked: UnpackedMessage;
  try {
    unpacked = await unpackMessage(entityOf(headers, request.body), creds, micalg, options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED);
  } catch (err) {
    if (err instanceof As2ProcessingError) return await reject(err.modifier, err.message);
    throw err;
  }
  authenticated = unpacked.signedWith !== null;
  if (s.requireEncryption && !unpacked.encryptedWith) return await reject('insufficient-message-security', 'this connection accepts encrypted messages only', unpacked);
  if (s.requireSignature && !unpacked.signedWith) return await reject('insufficient-message-security', 'this connection accepts signed messages only', unpacked);
  if (requested.mode !== 'none' && requested.options.micalgRequired && requested.options.micalgs.length === 0 && requested.options.unsupportedMicalgs.length > 0) {
    // RFC 4130 §7.5.3: a required option this side cannot honour is answered `failed`, unsigned
    // (no digest the sender accepts can sign it), and the message is not taken in; checked after the
    // signature, so a verified sender that asked for an asynchronous receipt gets it posted
    return await refuseUnsupportedMicalg(requested.options.unsupportedMicalgs);
  }

  const duplicate = await received.seen(conn.connectionId, messageId);
  if (duplicate && received.payloadDigest) {
    const before = await received.payloadDigest(conn.connectionId, messageId);
    if (before !== null && before !== payloadSha256(unpacked.payload)) {
      return await reject('unexpected-processing-error', `message id ${messageId} was received before with other content; this content was not taken in: send it under a new Message-ID`, unpacked);
    }
  }
  const r = await receipt(null, duplicate ? `${TEXT_OK} (This message id was received before; it is acknowledged again and not processed twice.)` : TEXT_OK, unpacked.mic);
  const acceptedDetail: As2ReceiveDetail = {
    ...baseDetail,
    mdnMode: modeOf(r),
    mic: formatMic(unpacked.mic),
    signed: unpacked.signedWith,
    encrypted: unpacked.encryptedWith?.name ?? null,
    compressed: unpacked.compressed,
    mdnSigned: r.mdn?.signed ?? false,
    mdnMessageId: r.mdn?.messageId ?? null,
    disposition: 'processed',
    duplicate,
  };
  return {
    ok: true,
    duplicate,
    payload: unpacked.payload,
    filename: unpacked.filename,
    contentType: unpacked.contentType,
    messageId,
    from,
    to,
    mic: unpacked.mic,
    reply: r.reply,
    asyncMdn: r.asyncMdn,
    detail: acceptedDetail,
    fail: async (reason: string) => {
      const f = await receipt('unexpected-processing-error', reason, unpacked.mic);
      return { reply: f.reply, asyncMdn: f.asyncMdn };
    },
  };
}

/** SHA-256 (hex) of a payload, as `As2ReceivedMessages.payloadDigest` keeps it. */
export function payloadSha256(payload: Buffer): string {
  return createHash('sha256').update(payload).digest('hex');
}
