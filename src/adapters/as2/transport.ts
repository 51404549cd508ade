/**
 * One HTTP POST (node:http/https): a deadline for the whole exchange, no redirects followed, a
 * bounded response body, and failures classified as retryable or not. It never retries or
 * sleeps itself: the caller schedules a retry (the pipeline's delay topics).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseRetryAfter } from '../../domain/webhook-delivery.ts';
import { NETWORK_TRANSIENT_CODES, isRetryableHttpStatus } from '../transient.ts';

export interface PostOptions {
  /** Deadline of the whole exchange (connect, send, response). */
  readonly timeoutMs: number;
  /** Largest response body read; more is an error. @default 10 MiB */
  readonly maxResponseBytes?: number;
}

export type PostResult =
  | { readonly ok: true; readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: Buffer }
  | {
      readonly ok: false;
      /** The HTTP status when a response arrived. */
      readonly status: number | null;
      readonly retryable: boolean;
      /** Seconds from a Retry-After header, when given. */
      readonly retryAfterSeconds: number | null;
      readonly error: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: Buffer;
    };

/** Network errors after which the same request may succeed (../transient.ts). */
const TRANSIENT_CODES = NETWORK_TRANSIENT_CODES;

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function retryAfter(value: string | undefined, now: number): number | null {
  const ms = parseRetryAfter(value, new Date(now));
  return ms === undefined ? null : Math.ceil(ms / 1000);
}

/** True for HTTP statuses worth retrying: 408, 425, 429 and every 5xx (../transient.ts). */
export const isRetryableStatus = isRetryableHttpStatus;

/** POSTs `body` to `url`. Resolves for every outcome (never rejects). */
export function post(url: string, headers: Readonly<Record<string, string>>, body: Buffer, options: PostOptions): Promise<PostResult> {
  const maxBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ ok: false, status: null, retryable: false, retryAfterSeconds: null, error: `not a URL: ${url}`, headers: {}, body: Buffer.alloc(0) });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.resolve({ ok: false, status: null, retryable: false, retryAfterSeconds: null, error: `unsupported URL scheme ${target.protocol}`, headers: {}, body: Buffer.alloc(0) });
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (r: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const fail = (error: string, retryable: boolean, status: number | null = null, extra: Partial<{ headers: Record<string, string>; body: Buffer; retryAfterSeconds: number | null }> = {}): void =>
      finish({ ok: false, status, retryable, retryAfterSeconds: extra.retryAfterSeconds ?? null, error, headers: extra.headers ?? {}, body: extra.body ?? Buffer.alloc(0) });
    const req = send(target, { method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) } }, (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) {
          req.destroy();
          fail(`the response is larger than ${maxBytes} bytes`, false, status);
          return;
        }
        chunks.push(c);
      });
      res.on('error', (err: NodeJS.ErrnoException) => fail(`the response broke off: ${err.code ?? err.message}`, true, status));
      res.on('end', () => {
        const h = flatHeaders(res);
        const b = Buffer.concat(chunks);
        if (status >= 200 && status < 300) finish({ ok: true, status, headers: h, body: b });
        else if (status >= 300 && status < 400) fail(`HTTP ${status}: redirects are not followed (Location: ${h['location'] ?? 'none'}); configure the partner's final URL`, false, status, { headers: h, body: b });
        else fail(`HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`, isRetryableStatus(status), status, { headers: h, body: b, retryAfterSeconds: retryAfter(h['retry-after'], Date.now()) });
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      fail(`no complete response within ${options.timeoutMs} ms`, true);
    }, options.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? '';
      fail(`${code || 'request failed'}: ${err.message}`, TRANSIENT_CODES.has(code) || /socket hang up/i.test(err.message));
    });
    req.end(body);
  });
}
