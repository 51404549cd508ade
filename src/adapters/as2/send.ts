/**
 * The send side of AS2, independent of the pipeline: builds the message for a connection,
 * POSTs it once, and judges the synchronous receipt; or returns what to remember until the
 * asynchronous receipt arrives (`receiveAsyncMdn`). Transient failures come back `retryable`;
 * nothing here waits or retries.
 */
import type { As2Settings } from '../../domain/configuration.ts';
import { loadedCredentialsOf, type As2ConnectionLookup } from './connection.ts';
import { bareMessageId, mimeHeadersOf, newMessageId, type HttpHeaders, type HttpReply } from './headers.ts';
import type { As2Credentials } from './keys.ts';
import { evaluateMdn, looksLikeMdn, parseMdn, type BuiltMdn, type MdnVerdict } from './mdn.ts';
import { buildMessage } from './message.ts';
import { formatMic, type Mic } from './mic.ts';
import { post } from './transport.ts';

export interface As2SendInput {
  readonly payload: Buffer;
  /** Sent as the Content-Disposition filename. */
  readonly filename: string | null;
  readonly connectionId: string;
  readonly settings: As2Settings;
  readonly credentials: As2Credentials;
  /**
   * The Message-ID (with angle brackets). Give the same one when retrying after a transient
   * failure (the partner then recognizes a duplicate); leave it out for a new transmission,
   * including a resend, which gets a fresh one.
   */
  readonly messageId?: string;
  /** Overrides the connection's `contentType`. */
  readonly contentType?: string;
  readonly now?: Date;
  /** Request deadline in sync mode. @default settings.mdn.waitSeconds */
  readonly timeoutMs?: number;
  /**
   * Async mode: called with what the receipt will be checked against once the message is built
   * and before it is posted, so a partner that answers at once finds it recorded. A rejection
   * stops the send (nothing is posted).
   */
  readonly beforePost?: (pending: PendingMdn) => Promise<void>;
}

/** What must be kept until an asynchronous receipt arrives (see `As2PendingMdns`). */
export interface PendingMdn {
  readonly connectionId: string;
  /** Without angle brackets. */
  readonly messageId: string;
  readonly mic: Mic;
  readonly micRequired: boolean;
  readonly signedReceipt: boolean;
  readonly sentAt: string;
  /** After this time a missing receipt makes the delivery an error. */
  readonly deadline: string;
}

/** Fields for the result's `detail`. */
export interface As2SendDetail {
  readonly as2MessageId: string;
  readonly as2From: string;
  readonly as2To: string;
  readonly url: string;
  readonly mic: string | null;
  readonly mdnStatus: As2SendOutcome['mdnStatus'];
  readonly mdnMode: 'sync' | 'async';
  readonly httpStatus: number | null;
  readonly disposition: string | null;
  readonly returnedMic: string | null;
  readonly micMatched: boolean | null;
  readonly mdnMessageId: string | null;
  readonly error: string | null;
}

export interface As2SendOutcome {
  /** Without angle brackets. */
  readonly messageId: string;
  /** The MIC the partner must return; null when the message could not be built. */
  readonly mic: Mic | null;
  /**
   * `processed`: the partner's receipt is positive, signed as asked, with our MIC.
   * `failed`: not delivered, or the receipt is negative or invalid (`error` says why).
   * `pending-async`: sent; the receipt comes later (persist `pending`).
   */
  readonly mdnStatus: 'processed' | 'failed' | 'pending-async';
  readonly httpStatus: number | null;
  /** A failure that may succeed if the same message is sent again later (refused, reset, timeout, 5xx, 429). */
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | null;
  readonly error: string | null;
  readonly mdn: MdnVerdict | null;
  readonly pending: PendingMdn | null;
  readonly detail: As2SendDetail;
}

/** Sends one document over AS2 and judges the synchronous receipt. Resolves for every outcome. */
export async function sendAs2Message(input: As2SendInput): Promise<As2SendOutcome> {
  const s = input.settings;
  const now = input.now ?? new Date();
  const messageId = input.messageId ?? newMessageId(s.localId);
  const bare = bareMessageId(messageId);
  const asyncMode = s.mdn.mode === 'async';
  const refused = (error: string): As2SendOutcome => ({
    messageId: bare,
    mic: null,
    mdnStatus: 'failed',
    httpStatus: null,
    retryable: false,
    retryAfterSeconds: null,
    error,
    mdn: null,
    pending: null,
    detail: { as2MessageId: bare, as2From: s.localId, as2To: s.partnerId, url: s.url, mic: null, mdnStatus: 'failed', mdnMode: s.mdn.mode, httpStatus: null, disposition: null, returnedMic: null, micMatched: null, mdnMessageId: null, error },
  });
  if (s.setupStatus !== 'ready') return refused(`the AS2 setup of this connection is ${s.setupStatus}${s.setupReason ? ` (${s.setupReason})` : ''}`);
  if (asyncMode && !s.mdn.asyncUrl) return refused('async MDN mode without mdn.asyncUrl');
  let creds;
  try {
    creds = loadedCredentialsOf(input.credentials);
  } catch (err) {
    return refused(`the connection's AS2 key material does not load: ${(err as Error).message}`);
  }
  const message = await buildMessage({
    payload: input.payload,
    filename: input.filename,
    contentType: input.contentType ?? s.contentType,
    from: s.localId,
    to: s.partnerId,
    messageId,
    signing: s.signing,
    encryption: s.encryption,
    compression: s.compression,
    receipt: { signed: s.mdn.signed, asyncUrl: asyncMode ? s.mdn.asyncUrl : null },
    credentials: creds,
    now,
  });
  const expectation = { messageId: bare, mic: message.mic, micRequired: message.micRequired, signedReceipt: s.mdn.signed };
  const pending: PendingMdn | null = asyncMode
    ? {
        connectionId: input.connectionId,
        messageId: bare,
        mic: message.mic,
        micRequired: message.micRequired,
        signedReceipt: s.mdn.signed,
        sentAt: now.toISOString(),
        deadline: new Date(now.getTime() + s.mdn.waitSeconds * 1000).toISOString(),
      }
    : null;
  if (pending && input.beforePost) await input.beforePost(pending);
  const result = await post(s.url, message.headers, message.body, { timeoutMs: input.timeoutMs ?? s.mdn.waitSeconds * 1000 });

  const outcome = (o: Omit<As2SendOutcome, 'messageId' | 'mic' | 'detail'>): As2SendOutcome => ({
    ...o,
    messageId: bare,
    mic: message.mic,
    detail: {
      as2MessageId: bare,
      as2From: s.localId,
      as2To: s.partnerId,
      url: s.url,
      mic: formatMic(message.mic),
      mdnStatus: o.mdnStatus,
      mdnMode: s.mdn.mode,
      httpStatus: o.httpStatus,
      disposition: o.mdn?.disposition ?? null,
      returnedMic: o.mdn?.returnedMic ?? null,
      micMatched: o.mdn?.micMatched ?? null,
      mdnMessageId: o.mdn?.mdnMessageId ?? null,
      error: o.error,
    },
  });

  if (!result.ok) {
    // a refusal may still carry a negative MDN: read it for the reason
    let mdn: MdnVerdict | null = null;
    const headers = mimeHeadersOf(result.headers);
    if (result.status !== null && result.body.length > 0 && looksLikeMdn(headers, result.body)) mdn = await evaluateMdn(headers, result.body, expectation, creds.pkiPartnerCertificate);
    return outcome({ mdnStatus: 'failed', httpStatus: result.status, retryable: result.retryable, retryAfterSeconds: result.retryAfterSeconds, error: mdn?.reason ?? result.error, mdn, pending: null });
  }
  const headers = mimeHeadersOf(result.headers);
  if (pending && !looksLikeMdn(headers, result.body)) {
    return outcome({ mdnStatus: 'pending-async', httpStatus: result.status, retryable: false, retryAfterSeconds: null, error: null, mdn: null, pending });
  }
  if (result.body.length === 0) {
    return outcome({ mdnStatus: 'failed', httpStatus: result.status, retryable: false, retryAfterSeconds: null, error: `HTTP ${result.status} without the synchronous MDN that was asked for`, mdn: null, pending: null });
  }
  // a receiver may answer an async request with a (negative) receipt at once: judge it as well
  const mdn = await evaluateMdn(headers, result.body, expectation, creds.pkiPartnerCertificate);
  return outcome({ mdnStatus: mdn.status, httpStatus: result.status, retryable: false, retryAfterSeconds: null, error: mdn.status === 'failed' ? mdn.reason : null, mdn, pending: null });
}

// --- asynchronous receipts --------------------------------------------------------------------

/**
 * Port: the receipts awaited, by the id of the message sent. The pipeline persists
 * `As2SendOutcome.pending` when a message goes out in async mode and implements this lookup.
 */
export interface As2PendingMdns {
  get(messageId: string): Promise<PendingMdn | null>;
}

export type As2AsyncMdnOutcome =
  | {
      readonly ok: true;
      readonly connectionId: string;
      /** The message the receipt answers (without angle brackets). */
      readonly messageId: string;
      readonly mdnStatus: 'processed' | 'failed';
      readonly verdict: MdnVerdict;
      /** The receipt arrived after the deadline (the delivery may already be an error). */
      readonly late: boolean;
      readonly reply: HttpReply;
    }
  | { readonly ok: false; readonly reason: string; readonly reply: HttpReply };

const text = (status: number, t: string): HttpReply => ({ status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: Buffer.from(`${t}\n`) });

/**
 * Reads an asynchronous MDN posted to this service (`POST /as2/mdn`), finds the message it
 * answers, and judges it against what was sent (signature, disposition, MIC). Answer the
 * request with `reply`. Rejects only when a port fails (answer 503 then).
 */
export async function receiveAsyncMdn(
  request: { readonly headers: HttpHeaders; readonly body: Buffer },
  pending: As2PendingMdns,
  lookup: As2ConnectionLookup,
  now: Date = new Date(),
): Promise<As2AsyncMdnOutcome> {
  const headers = mimeHeadersOf(request.headers);
  let original: string | null;
  try {
    original = parseMdn(headers, request.body).originalMessageId;
  } catch (err) {
    return { ok: false, reason: (err as Error).message, reply: text(400, `not an AS2 MDN: ${(err as Error).message}`) };
  }
  if (!original) return { ok: false, reason: 'the MDN has no Original-Message-ID', reply: text(400, 'the MDN has no Original-Message-ID') };
  const p = await pending.get(original);
  if (!p) return { ok: false, reason: `no receipt is awaited for message ${original}`, reply: text(404, `no message ${original} awaits a receipt here`) };
  const conn = await lookup(p.connectionId);
  if (!conn?.credentials) return { ok: false, reason: `connection ${p.connectionId} has no AS2 key material`, reply: text(409, 'the connection of this message is not set up') };
  const creds = loadedCredentialsOf(conn.credentials);
  const verdict = await evaluateMdn(headers, request.body, p, creds.pkiPartnerCertificate);
  return { ok: true, connectionId: p.connectionId, messageId: original, mdnStatus: verdict.status, verdict, late: now.getTime() > Date.parse(p.deadline), reply: text(200, 'MDN received') };
}

/** Posts an asynchronous MDN (one attempt; `retryable` says whether another may succeed). */
export async function postAsyncMdn(asyncMdn: { readonly url: string; readonly mdn: BuiltMdn }, timeoutMs = 30_000): Promise<{ readonly ok: boolean; readonly httpStatus: number | null; readonly retryable: boolean; readonly error: string | null }> {
  const r = await post(asyncMdn.url, asyncMdn.mdn.headers, asyncMdn.mdn.body, { timeoutMs, maxResponseBytes: 1024 * 1024 });
  return r.ok ? { ok: true, httpStatus: r.status, retryable: false, error: null } : { ok: false, httpStatus: r.status, retryable: r.retryable, error: r.error };
}
