/**
 * AS2 header fields (RFC 4130 §6): identifiers, message ids, receipt requests, and HTTP header
 * maps turned into MIME header lists.
 */
import { randomUUID } from 'node:crypto';
import { digestByMicalg, type DigestName } from './algorithms.ts';
import { as2MessageId } from '../../domain/as2-delivery.ts';
import type { MimeHeader } from './mime.ts';

export const AS2_VERSION = '1.2';

/** HTTP request or response headers as Node gives them (lower-case names; repeated values in arrays). */
export type HttpHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A raw HTTP message: what the receive side is given and the send side produces. */
export interface HttpMessage {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** An HTTP response to write back: status, headers, body. */
export interface HttpReply extends HttpMessage {
  readonly status: number;
}

/** The MIME headers of an HTTP message (first value of a repeated header). */
export function mimeHeadersOf(headers: HttpHeaders): MimeHeader[] {
  const out: MimeHeader[] = [];
  for (const [name, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    const value = typeof v === 'string' ? v : v[0];
    if (value !== undefined) out.push({ name, value });
  }
  return out;
}

/** An HTTP header map of MIME headers. */
export function httpHeadersOf(headers: readonly MimeHeader[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers) out[h.name] = h.value;
  return out;
}

/** An AS2 identifier as a header value: quoted when it holds spaces, quotes or backslashes (RFC 4130 §6.2). */
export function quoteAs2Name(name: string): string {
  return /[\s"\\]/.test(name) ? `"${name.replace(/(["\\])/g, '\\$1')}"` : name;
}

/** An AS2 identifier from a header value (quotes and escapes removed). */
export function unquoteAs2Name(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1).replace(/\\(.)/g, '$1');
  return v;
}

/** A fresh RFC 5322 message id (angle brackets included) naming our AS2 identifier. */
export function newMessageId(localId: string): string {
  return as2MessageId(localId, randomUUID());
}

/** A message id without its angle brackets (how ids are compared and stored). */
export function bareMessageId(value: string): string {
  return value.trim().replace(/^<(.*)>$/, '$1');
}

/** What a sender asked of the receipt, from Disposition-Notification-Options (RFC 4130 §7.3). */
export interface ReceiptRequest {
  /** The MDN must be signed (pkcs7-signature requested). */
  readonly signed: boolean;
  /** Digests the sender accepts for the MIC and the MDN signature, in its order of preference. */
  readonly micalgs: readonly DigestName[];
  /** Algorithms asked for that are not supported here. */
  readonly unsupportedMicalgs: readonly string[];
  /** The sender marked `signed-receipt-micalg` required (RFC 4130 §7.3). */
  readonly micalgRequired: boolean;
}

/** Parses `signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256, sha1`. */
export function parseReceiptOptions(value: string | undefined): ReceiptRequest {
  let signed = false;
  let micalgRequired = false;
  const micalgs: DigestName[] = [];
  const unsupported: string[] = [];
  for (const param of (value ?? '').split(';')) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    const name = param.slice(0, eq).trim().toLowerCase();
    const values = param
      .slice(eq + 1)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    // the first value is the importance (required|optional)
    const items = values.slice(1);
    if (name === 'signed-receipt-protocol') signed = items.some((i) => i.toLowerCase() === 'pkcs7-signature');
    if (name === 'signed-receipt-micalg') {
      micalgRequired = values[0]?.toLowerCase() === 'required';
      for (const i of items) {
        const d = digestByMicalg(i);
        if (d) micalgs.push(d.name);
        else unsupported.push(i);
      }
    }
  }
  return { signed, micalgs, unsupportedMicalgs: unsupported, micalgRequired };
}

/** The Disposition-Notification-Options value asking for a signed receipt with these digests. */
export function formatReceiptOptions(micalgs: readonly string[]): string {
  return `signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, ${micalgs.join(', ')}`;
}
