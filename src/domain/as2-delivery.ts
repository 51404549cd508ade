/**
 * AS2 in the pipeline, the pure part shared by the AS2 adapter, the as2_send and as2_receive
 * steps, the AS2 routes and the receipt-wait job: what a transmission reports, the ids that
 * make AS2 traffic idempotent, and the `detail.as2` of results (docs/as2.md, "In the pipeline").
 */
import { deterministicId } from './ids.ts';
import type { Micros } from './records.ts';

/**
 * The receipt of a message we sent, as the delivery result records it: `processed` (a positive
 * MDN, signed as asked, with our MIC), `failed` (negative, invalid, or none in a sync
 * response), `pending` (sent; the asynchronous MDN is awaited), `timeout` (no asynchronous
 * MDN within the connection's `mdn.waitSeconds`).
 */
export type As2MdnStatus = 'processed' | 'failed' | 'pending' | 'timeout';

/** `detail.as2` of an as2_send result (every field a plain value, so the API shows it as is). */
export interface As2DeliveryDetail {
  /** Without angle brackets. */
  readonly messageId: string;
  readonly from: string;
  readonly to: string;
  readonly url: string;
  readonly mdnMode: 'sync' | 'async';
  readonly mdnStatus: As2MdnStatus;
  /** Our MIC (`<base64>, <micalg>`), what the partner must return. */
  readonly mic: string | null;
  /** The MIC the partner returned. */
  readonly returnedMic: string | null;
  readonly micMatched: boolean | null;
  /** The receipt's Disposition field as received. */
  readonly disposition: string | null;
  readonly mdnMessageId: string | null;
  readonly httpStatus: number | null;
  /** Why the delivery failed (null on success). */
  readonly error: string | null;
}

/** What one transmission attempt of as2_send reports. */
export interface As2SendReport {
  readonly status: 'processed' | 'failed' | 'pending';
  /** The same message may be accepted if sent again later (refused, reset, timeout, 5xx, 429). */
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | null;
  readonly error: string | null;
  readonly detail: As2DeliveryDetail;
  /** `pending`: when a missing receipt fails the delivery. */
  readonly deadline: Micros | null;
}

/** How the asynchronous receipt of a message ended (recorded once; repeated receipts reuse it). */
export interface As2ReceiptOutcome {
  readonly status: 'processed' | 'failed' | 'timeout';
  /** When it ended: the receipt's arrival, or the deadline (microseconds); the delivery result's time. */
  readonly at: Micros;
  readonly detail: As2DeliveryDetail;
}

/** An AS2 identifier as the host part of a message id (RFC 5322 `id-right`). */
function messageIdHost(localId: string): string {
  // dot-atom-text: atoms of letters, digits and '-' joined by single dots (no '..', none at either end)
  return localId.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/\.{2,}/g, '.').replace(/^[-.]+|[-.]+$/g, '') || 'as2';
}

/** A message id (with angle brackets) naming our AS2 identifier, unique by `token`. */
export function as2MessageId(localId: string, token: string): string {
  return `<tdx-${token}@${messageIdHost(localId)}>`;
}

/**
 * The message id of a transmission by as2_send: derived from the work item that first asked for
 * it, so a work item redelivered after a crash posts the same id (the partner recognizes the
 * duplicate), while every new transmission (a new document, a 997, a resend: each a work item
 * of its own) gets a fresh one.
 */
export function as2MessageIdForWork(localId: string, workItemId: string): string {
  return as2MessageId(localId, deterministicId('as2-message', workItemId));
}

/**
 * The trace of a message received on a connection: the same for every delivery of the same
 * message id, so a partner retrying after a failure of ours rewrites the same artifact, work
 * item and rows instead of starting a second run.
 */
export function as2TraceGuid(connectionId: string, messageId: string): string {
  return deterministicId('as2-trace', connectionId, messageId);
}
