/**
 * The console's only way to the service: the public /platform API, called with the key the user
 * entered. Types follow the contract (shared spec, docs/api.md); the console never sees more than
 * the key allows because it asks nothing else.
 */

export interface Pagination {
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
}

export interface Warning {
  readonly code: string;
  readonly message: string;
  readonly detail?: Record<string, unknown>;
  readonly resultId?: string;
}

export interface TransactionRow {
  readonly id: string;
  readonly createdAt: string;
  readonly direction: 'inbound' | 'outbound';
  readonly usageIndicator: string;
  readonly partnerKey: string | null;
  readonly transactionSetIdentifier: string;
  readonly reference: string | null;
  readonly status: 'processing' | 'error' | 'delivered';
  readonly acknowledgmentStatus: 'accepted' | 'rejected' | 'unacknowledged' | null;
  readonly warningCount: number;
  readonly deliveredAt: string | null;
  readonly traceGuid: string;
}

export interface ArtifactRole {
  readonly id?: string;
  readonly usage?: string;
  readonly contentType?: string;
  readonly filename?: string;
  readonly resultId: string;
  readonly nodeName: string;
}

export interface ArtifactPointer {
  readonly id: string;
  readonly usage: string;
  readonly contentType?: string;
  readonly filename?: string;
}

export interface Result {
  readonly id: string;
  readonly traceGuid: string;
  readonly createdAt: string;
  readonly nodeName: string;
  readonly nodeId: string;
  readonly status: 'success' | 'error';
  readonly detail: {
    readonly errorMessage?: string;
    readonly errors?: readonly string[];
    readonly resend?: boolean;
    readonly warnings?: readonly Warning[];
    readonly artifacts?: readonly ArtifactPointer[];
    readonly partner?: { readonly key: string };
    readonly [k: string]: unknown;
  };
}

export interface CompactResult {
  readonly id: string;
  readonly traceGuid: string;
  readonly createdAt: string;
  readonly nodeName: string;
  readonly status: 'success' | 'error';
  readonly partnerKey: string | null;
  readonly errorMessage: string | null;
}

export interface TransactionDetail extends TransactionRow {
  readonly incoming: boolean;
  readonly senderExtid: string;
  readonly senderQualifier: string;
  readonly receiverExtid: string;
  readonly receiverQualifier: string;
  readonly interchangeControlNumber: string;
  readonly groupControlNumber: string;
  readonly transactionSetControlNumber: string;
  readonly resendCount: number;
  readonly lastResentAt: string | null;
  readonly updatedAt: string;
  readonly duplicateOf?: string;
  readonly acknowledgedBy: string | null;
  readonly acknowledges: string | null;
  readonly warnings: readonly Warning[];
  readonly flowName: string | null;
  readonly traceErroredElsewhere: boolean;
  readonly traceErroredElsewhereNodeName: string | null;
  readonly artifacts: Readonly<Record<'input' | 'output' | 'errored' | 'acknowledged', ArtifactRole | null>>;
  readonly results: readonly Result[];
}

export interface FeedEntry {
  readonly id: string;
  readonly direction: 'inbound' | 'outbound';
  readonly status: 'success' | 'error';
  readonly createdAt: string;
  readonly partnerKey: string;
  readonly traceGuid: string;
  readonly resultId: string;
  readonly detail: Result;
}

export interface LogEntry {
  readonly id: string;
  readonly level: string;
  readonly message: string;
  readonly nodeName: string | null;
  readonly traceGuid: string;
  readonly createdAt: string;
}

export interface Payload {
  readonly format: 'json' | 'edi' | 'error';
  readonly contents: unknown;
  readonly jsonPath?: string;
}

/** GET /platform/traces/:guid (the contract names it without its shape; docs/api.md gives it). */
export interface Trace {
  readonly traceGuid: string;
  readonly flow: { readonly id: string; readonly name: string } | null;
}

/** An answer other than 2xx, with the contract's error code and the rate budget headers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly reason: string | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}

export interface Answer<T> {
  readonly body: T;
  /** X-RateLimit-Remaining of the answer, when the endpoint counts against a budget. */
  readonly remaining: number | undefined;
  readonly limit: number | undefined;
}

type Query = Readonly<Record<string, string | number | boolean | undefined | null>>;

export function withQuery(path: string, query: Query = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export class Api {
  constructor(private readonly key: string) {}

  private async call(method: 'GET' | 'POST', path: string): Promise<Response> {
    const res = await fetch(path, { method, headers: { authorization: `Key ${this.key}`, accept: 'application/json' }, cache: 'no-store' });
    if (res.ok) return res;
    let code = 'http_error';
    let message = `The service answered ${res.status}.`;
    let reason: string | undefined;
    try {
      const body = (await res.json()) as { error?: { code?: string; message?: string; reason?: string } };
      code = body.error?.code ?? code;
      message = body.error?.message ?? message;
      reason = body.error?.reason;
    } catch {
      /* not JSON */
    }
    const retry = res.headers.get('retry-after');
    throw new ApiError(res.status, code, message, reason, retry === null ? undefined : Number(retry));
  }

  private static budget(res: Response): { remaining: number | undefined; limit: number | undefined } {
    const r = res.headers.get('x-ratelimit-remaining');
    const l = res.headers.get('x-ratelimit-limit');
    return { remaining: r === null ? undefined : Number(r), limit: l === null ? undefined : Number(l) };
  }

  async get<T>(path: string, query?: Query): Promise<T> {
    return (await this.answer<T>('GET', path, query)).body;
  }

  async answer<T>(method: 'GET' | 'POST', path: string, query?: Query): Promise<Answer<T>> {
    const res = await this.call(method, withQuery(path, query));
    return { body: (await res.json()) as T, ...Api.budget(res) };
  }

  /** The raw bytes of an artifact, as text and as a Blob for download. */
  async artifact(id: string): Promise<{ text: string; blob: Blob; filename: string | undefined }> {
    const res = await this.call('GET', `/platform/artifacts/${encodeURIComponent(id)}`);
    const blob = await res.blob();
    const cd = res.headers.get('content-disposition') ?? '';
    const m = /filename="?([^";]+)"?/.exec(cd);
    return { text: await blob.text(), blob, filename: m?.[1] };
  }
}

/** Every 422 code of resend and redeliver, in words (contract: Errors, Resend and Redeliver). */
export const replayReasons: Readonly<Record<string, string>> = {
  not_outbound: 'Only outbound documents can be resent; this one is inbound (use Redeliver).',
  not_inbound: 'Only inbound documents can be redelivered; this one is outbound (use Resend).',
  document_not_generated: 'The document failed before its delivery step, so no EDI was ever produced to resend.',
  content_unavailable: 'The stored copy of the document is gone (documents are kept 45 days).',
  delivery_node_missing: 'The flow step that delivered it no longer exists (the flow was rebuilt without it).',
  not_flow_delivered: 'It did not go out through an outbound flow (an automatic 997 sent before copies were stored).',
  delivery_target_missing: 'The connection or webhook it was delivered to has been removed.',
  delivery_not_reached: 'It failed before reaching delivery (for example a mapping failure), so there is nothing to deliver again.',
  poll_delivery: 'The partner is set to polling delivery: nothing to repeat, the document is on the feed.',
};

/** A sentence for any API error a page shows. */
export function describeError(e: unknown): string {
  if (!(e instanceof ApiError)) return e instanceof Error ? e.message : String(e);
  if (e.status === 401) return 'The API key was refused (missing, unknown or revoked). Sign in again.';
  if (e.status === 403) return `This key may not do this (${e.message}) Read-only keys change nothing; sandbox keys see only what their sandbox received.`;
  if (e.status === 422) return replayReasons[e.code] ?? e.message;
  if (e.status === 429) return `Rate limit reached: ${e.message}${e.retryAfterSeconds === undefined ? '' : ` Try again in ${e.retryAfterSeconds} s.`}`;
  return e.message;
}
