/**
 * The chaos run's API client: a careful caller that submits each document until it is
 * accepted (202), and knows which failed attempts may still have been accepted.
 *
 * - 202: accepted, with its trace.
 * - an answer other than 202 (a 503 while a store is down), or a refused connection (the API
 *   process is down): not accepted; the document is sent again.
 * - no answer (the API process was killed mid-request, the connection reset, or our own
 *   deadline passed): ambiguous. The service may have taken it; the caller cannot tell and
 *   sends it again, so the document may be processed twice. The run records these and the
 *   checks allow exactly that one repeat for them (and nowhere else).
 */

export interface Attempt {
  readonly at: number;
  readonly outcome: 'accepted' | 'refused' | 'ambiguous';
  readonly status?: number;
  readonly detail?: string;
  readonly ms: number;
}

export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly text: string;
  readonly headers: Headers;
  readonly ms: number;
}

export interface ApiClient {
  readonly url: string;
  /** One request; throws on no answer (connection refused, reset, timeout). */
  request(path: string, init?: RequestInit & { timeoutMs?: number }): Promise<Answer>;
  /**
   * A read that waits out the rate limit as a well-behaved client does: on 429 it sleeps the
   * `Retry-After` seconds and asks again (the checks read more pages than one key's minute allows).
   */
  read(path: string): Promise<Answer>;
  /** Sends until accepted; returns the trace and every attempt. */
  submitUntilAccepted(path: string, body: string, contentType: string, opts?: { stop?: () => boolean }): Promise<{ traceGuid: string; attempts: Attempt[] }>;
}

/** The error code of a failed fetch (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET, TimeoutError...). */
export function failureCode(err: unknown): string {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string } };
  return e.cause?.code ?? e.code ?? e.cause?.name ?? e.name ?? 'unknown';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function apiClient(url: string, key: string, opts: { requestTimeoutMs?: number } = {}): ApiClient {
  const requestTimeoutMs = opts.requestTimeoutMs ?? 60_000;
  const request: ApiClient['request'] = async (path, init = {}) => {
    const started = Date.now();
    const { timeoutMs, ...rest } = init;
    const res = await fetch(`${url}${path}`, {
      ...rest,
      headers: { authorization: `Key ${key}`, ...(rest.headers ?? {}) },
      signal: AbortSignal.timeout(timeoutMs ?? requestTimeoutMs),
    });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body, text, headers: res.headers, ms: Date.now() - started };
  };
  return {
    url,
    request,
    async read(path) {
      for (let waited = 0; ; ) {
        const r = await request(path);
        if (r.status !== 429 || waited > 300_000) return r;
        const ms = Math.max(1, Number(r.headers.get('retry-after') ?? '1')) * 1000;
        waited += ms;
        await sleep(ms);
      }
    },
    async submitUntilAccepted(path, body, contentType, o = {}) {
      const attempts: Attempt[] = [];
      for (let i = 0; ; i++) {
        if (o.stop?.()) throw new Error('stopped');
        const at = Date.now();
        try {
          const r = await request(path, { method: 'POST', body, headers: { 'content-type': contentType } });
          if (r.status === 202 && typeof r.body['traceGuid'] === 'string') {
            attempts.push({ at, outcome: 'accepted', status: 202, ms: r.ms });
            return { traceGuid: r.body['traceGuid'], attempts };
          }
          attempts.push({ at, outcome: 'refused', status: r.status, detail: r.text.slice(0, 300), ms: r.ms });
          if (r.status !== 503 && r.status !== 429) throw new Error(`POST ${path} answered ${r.status}: ${r.text.slice(0, 500)}`);
          const after = Number(r.headers.get('retry-after') ?? '1');
          await sleep(Math.min(5_000, Math.max(200, after * 1000 * (0.5 + Math.random() / 2))));
        } catch (err) {
          if (err instanceof Error && err.message.startsWith(`POST ${path} answered`)) throw err;
          const code = failureCode(err);
          // A refused connection never reached the service; anything else may have.
          const outcome = code === 'ECONNREFUSED' ? 'refused' : 'ambiguous';
          attempts.push({ at, outcome, detail: code, ms: Date.now() - at });
          await sleep(Math.min(3_000, 200 * 2 ** Math.min(i, 4)));
        }
      }
    },
  };
}
