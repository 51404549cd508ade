/**
 * One webhook call: sign the body the Standard Webhooks way with the time of this attempt,
 * `POST` it, and classify what happened. One call is one attempt; the retry schedule and the
 * waiting belong to the pipeline (delay topics), so nothing here sleeps or tries again.
 *
 * Classification (the webhook contract):
 * - 2xx: delivered.
 * - 500, 502, 503, 504, 429, the 10 s timeout, a refused or reset connection: retryable, with a
 *   `Retry-After` of at most 60 s passed on. An unreachable host or a name that does not
 *   resolve (yet) counts as a refused connection.
 * - any other status (3xx included: redirects are not followed), a TLS failure, a host that
 *   resolves to a link-local address, a secret that cannot sign: final.
 *
 * The response body is read and thrown away, never kept or returned. The signing secret
 * appears in no outcome, error or log line.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { isLinkLocalAddress, webhookUrlProblem } from '../../domain/link-local.ts';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from '../../domain/retry-policy.ts';
import { parseRetryAfter } from '../../domain/webhook-delivery.ts';
import { NETWORK_RESET_CODES, NETWORK_UNREACHABLE_CODES, NETWORK_UNRESOLVED_CODES, WEBHOOK_RETRYABLE_STATUSES } from '../transient.ts';

/** The default timeout of one call (the retry policy's per-attempt timeout). */
export const WEBHOOK_TIMEOUT_MS = DEFAULT_ATTEMPT_TIMEOUT_MS;

/** Statuses worth another attempt (../transient.ts); every other non-2xx status is final on the first answer. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = WEBHOOK_RETRYABLE_STATUSES;

export interface SendWebhookInput {
  /** The webhook's URL (http or https). */
  readonly url: string;
  /** The webhook's signing secret, `whsec_<base64>`. Never logged or returned. */
  readonly secret: string;
  /** `webhook-id`: the same on every attempt of one delivery (see `webhookMessageId`). */
  readonly messageId: string;
  /** The exact body sent and signed (the contract's JSON, serialised once by the caller). */
  readonly body: string;
  /** Request `Content-Type`. @default "application/json" */
  readonly contentType?: string;
  /** Deadline of the whole call up to the response status. @default 15000 */
  readonly timeoutMs?: number;
  /** Clock of this attempt: `webhook-timestamp` is its time. @default () => new Date() */
  readonly now?: () => Date;
}

interface Answered {
  /** HTTP status of the answer. */
  readonly statusCode: number;
  /** The answer's `Content-Type`, when it had one. */
  readonly contentType?: string;
}

/** Common to every outcome: when this attempt was signed and sent. */
interface Attempted {
  /** `webhook-timestamp` sent (Unix seconds); absent when nothing was sent. */
  readonly timestamp?: number;
}

/** The receiver answered 2xx. */
export interface WebhookDelivered extends Answered, Attempted {
  readonly kind: 'delivered';
}

/** Worth another attempt (per the retry policy, src/domain/retry-policy.ts). */
export interface WebhookRetryable extends Partial<Answered>, Attempted {
  readonly kind: 'retryable';
  /** The receiver's `Retry-After`, in ms, when it gave one (at most a day). */
  readonly retryAfterMs?: number;
  /** Why, in words: `status 503`, `timeout after 10000 ms`, `connection refused`... */
  readonly reason: string;
}

/** Another attempt cannot help. `statusCode` is absent when nothing answered. */
export interface WebhookFinal extends Partial<Answered>, Attempted {
  readonly kind: 'final';
  readonly reason: string;
}

export type WebhookOutcome = WebhookDelivered | WebhookRetryable | WebhookFinal;

const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** DNS lookup that refuses link-local answers, so a host name cannot lead to a metadata service. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, options, (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
    if (err) return callback(err, '', 0);
    const list = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
    const bad = list.find((a) => isLinkLocalAddress(a.address));
    if (bad) {
      const e = Object.assign(new Error(`${hostname} resolves to the link-local address ${bad.address}`), { code: 'ELINKLOCAL' });
      return callback(e, '', 0);
    }
    // net passes { all: true } when it tries several addresses (autoSelectFamily)
    if (Array.isArray(address)) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    else callback(null, address, family ?? 4);
  });
};

// the transient network failures of every transport (../transient.ts)
const RESET_CODES = NETWORK_RESET_CODES;
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([...NETWORK_UNREACHABLE_CODES, ...NETWORK_UNRESOLVED_CODES]);

/** Classifies a request that got no answer. */
function classifyFailure(err: NodeJS.ErrnoException, timedOut: boolean, timeoutMs: number, timestamp: number): WebhookOutcome {
  if (timedOut) return { kind: 'retryable', reason: `timeout after ${timeoutMs} ms`, timestamp };
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return { kind: 'retryable', reason: 'connection refused', timestamp };
  if (RESET_CODES.has(code)) return { kind: 'retryable', reason: 'connection reset', timestamp };
  if (UNREACHABLE_CODES.has(code)) {
    return { kind: 'retryable', reason: code.startsWith('EAI') || code === 'ENOTFOUND' ? `host name not resolved (${code})` : `host unreachable (${code})`, timestamp };
  }
  if (code === 'ELINKLOCAL') return { kind: 'final', reason: `refused: ${err.message}`, timestamp };
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO/.test(code) || /certificate|tls|ssl/i.test(err.message)) {
    return { kind: 'final', reason: `TLS failure (${code || err.message})`, timestamp };
  }
  if (code.startsWith('ERR_')) return { kind: 'final', reason: `request failed (${code})`, timestamp };
  // any other system-level socket error is a transport hiccup, like a reset
  return { kind: 'retryable', reason: `connection failed (${code || err.message})`, timestamp };
}

function classifyAnswer(res: IncomingMessage, now: Date, timestamp: number): WebhookOutcome {
  const statusCode = res.statusCode ?? 0;
  const ct = res.headers['content-type'];
  const answered = { statusCode, ...(ct === undefined ? {} : { contentType: ct }), timestamp };
  if (statusCode >= 200 && statusCode < 300) return { kind: 'delivered', ...answered };
  if (RETRYABLE_STATUSES.has(statusCode)) {
    const ra: string | string[] | undefined = res.headers['retry-after'];
    const retryAfterMs = parseRetryAfter(typeof ra === 'string' ? ra : ra?.[0], now);
    return { kind: 'retryable', ...answered, ...(retryAfterMs === undefined ? {} : { retryAfterMs }), reason: `status ${statusCode}` };
  }
  if (statusCode >= 300 && statusCode < 400) return { kind: 'final', ...answered, reason: `status ${statusCode}: redirects are not followed` };
  return { kind: 'final', ...answered, reason: `status ${statusCode}` };
}

/**
 * Makes one signed `POST` and classifies the outcome. Never throws for anything the receiver,
 * the network or the webhook's settings do; never sleeps; never retries.
 */
export function sendWebhook(input: SendWebhookInput): Promise<WebhookOutcome> {
  const timeoutMs = input.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const urlProblem = webhookUrlProblem(input.url);
  if (urlProblem) return Promise.resolve({ kind: 'final', reason: `webhook URL ${urlProblem}` });
  if (!HEADER_SAFE.test(input.messageId)) return Promise.resolve({ kind: 'final', reason: 'webhook-id must be printable ASCII without spaces' });
  let signer: Webhook;
  try {
    signer = new Webhook(input.secret);
  } catch {
    // the library's message may quote the input; say only what is wrong
    return Promise.resolve({ kind: 'final', reason: 'the signing secret is not a whsec_<base64> secret' });
  }
  const at = (input.now ?? (() => new Date()))();
  const timestamp = Math.floor(at.getTime() / 1000);
  const signature = signer.sign(input.messageId, at, input.body);
  const bytes = Buffer.from(input.body, 'utf8');
  const url = new URL(input.url);
  const options: RequestOptions = {
    method: 'POST',
    headers: {
      'content-type': input.contentType ?? 'application/json',
      'content-length': String(bytes.length),
      'user-agent': 'tdx-webhooks',
      'webhook-id': input.messageId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    },
    lookup: guardedLookup,
    // a fresh connection per attempt: a refused or reset connection then means this receiver
    // refused it, never that a pooled socket went stale
    agent: false,
  };

  return new Promise<WebhookOutcome>((resolve) => {
    let settled = false;
    let timedOut = false;
    const finish = (o: WebhookOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req: ClientRequest = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (res) => {
      finish(classifyAnswer(res, at, timestamp));
      // read and discard the body; a receiver that streams forever is cut at the deadline
      res.resume();
      res.on('error', () => undefined);
      const cut = setTimeout(() => res.destroy(), timeoutMs);
      cut.unref();
      res.on('close', () => clearTimeout(cut));
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(Object.assign(new Error(`timeout after ${timeoutMs} ms`), { code: 'ETIMEOUT_TDX' }));
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish(classifyFailure(err, timedOut, timeoutMs, timestamp)));
    req.end(bytes);
  });
}
