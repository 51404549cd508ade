/**
 * AS2 (RFC 4130) for tdx: the public surface the pipeline calls. docs/as2.md describes the
 * protocol as this service speaks it.
 *
 * Receiving (`as2_receive`, route `POST /as2/:connectionId` of the api role):
 * 1. `receiveAs2Message(connectionId, {method, headers, body}, lookup, received)`.
 * 2. Accepted and not `duplicate`: store `payload` as the input artifact (deterministic id
 *    from connection id and `messageId`), record the id in the `As2ReceivedMessages` store,
 *    start the inbound flow with `detail`; if storing fails, answer `await outcome.fail(why)`.
 *    Accepted and `duplicate`: store nothing, start nothing.
 * 3. Answer the request with `reply` (only after step 2), then, when `asyncMdn` is set, post it
 *    with `postAsyncMdn` (retry a `retryable` failure through the delay topics).
 * A rejected message (`ok: false`) is answered with its `reply` too; nothing is stored.
 *
 * Sending (`as2_send`):
 * 1. `sendAs2Message({payload, filename, connectionId, settings, credentials, messageId?})`.
 * 2. `processed` → success result with `detail`; `failed` and `retryable` → retry through the
 *    delay topics with the same `messageId`; `failed` otherwise → error result;
 *    `pending-async` → persist `pending` (an `As2PendingMdns` store) and schedule a check at
 *    `pending.deadline`: still no receipt then → error result ("no MDN within N s").
 * 3. Async receipts arrive on `POST /as2/mdn`: `receiveAsyncMdn(request, pending, lookup)`,
 *    answer with `reply`, write the result from `mdnStatus`/`verdict`.
 */
export { receiveAs2Message, payloadSha256 } from './receive.ts';
export type { As2HttpRequest, As2ReceivedMessages, As2ReceiveOutcome, As2Accepted, As2Rejected, As2ReceiveDetail, AsyncMdn, ReceiveOptions } from './receive.ts';
export { sendAs2Message, receiveAsyncMdn, postAsyncMdn } from './send.ts';
export type { As2SendInput, As2SendOutcome, As2SendDetail, PendingMdn, As2PendingMdns, As2AsyncMdnOutcome } from './send.ts';
export type { As2ConnectionLookup, As2ConnectionMaterial } from './connection.ts';
export { credentialsFromSecrets, fingerprintOf } from './keys.ts';
export type { As2Credentials } from './keys.ts';
export { generateAs2KeyPair } from './keygen.ts';
export type { KeygenOptions, GeneratedKeyPair } from './keygen.ts';
export { looksLikeMdn, DISPOSITION_MODIFIERS } from './mdn.ts';
export type { DispositionModifier, MdnVerdict, BuiltMdn } from './mdn.ts';
export { mimeHeadersOf } from './headers.ts';
export type { HttpReply, HttpHeaders } from './headers.ts';
export type { Mic } from './mic.ts';
export { formatMic } from './mic.ts';

import { looksLikeMdn } from './mdn.ts';
import { mimeHeadersOf, unquoteAs2Name, type HttpHeaders } from './headers.ts';
import { headerValue } from './mime.ts';

/** The AS2-From and AS2-To of a request (unquoted), as a receiver routes by them (RFC 4130 §6.2). */
export function as2PartiesOf(headers: HttpHeaders): { readonly from: string | null; readonly to: string | null } {
  const h = mimeHeadersOf(headers);
  const from = headerValue(h, 'as2-from');
  const to = headerValue(h, 'as2-to');
  return { from: from === undefined ? null : unquoteAs2Name(from), to: to === undefined ? null : unquoteAs2Name(to) };
}

/** True when a request posted to the message endpoint is an MDN (some partners post async receipts there). */
export function isMdnRequest(request: { readonly headers: HttpHeaders; readonly body: Buffer }): boolean {
  return looksLikeMdn(mimeHeadersOf(request.headers), request.body);
}

/** An in-memory `As2ReceivedMessages` (tests, single-process tools). */
export class InMemoryReceivedMessages {
  private readonly ids = new Map<string, string | null>();
  seen(connectionId: string, messageId: string): Promise<boolean> {
    return Promise.resolve(this.ids.has(`${connectionId}\0${messageId}`));
  }
  payloadDigest(connectionId: string, messageId: string): Promise<string | null> {
    return Promise.resolve(this.ids.get(`${connectionId}\0${messageId}`) ?? null);
  }
  remember(connectionId: string, messageId: string, payloadSha256: string | null = null): void {
    this.ids.set(`${connectionId}\0${messageId}`, payloadSha256);
  }
}
