/**
 * The console's only way to the service: the public /platform API, called with the key the user
 * entered. Its types are generated from the service's OpenAPI document (api-schema.ts, written by
 * `npm run console:api-types`), so a change of the API breaks the console's type-check; the
 * console never sees more than the key allows because it asks nothing else.
 */
import type { components, paths } from './api-schema.ts';

type Schemas = components['schemas'];

export type Pagination = Schemas['Pagination'];
export type TransactionRow = Schemas['TransactionRow'];
export type ArtifactRole = NonNullable<Schemas['ArtifactRole']>;
export type CompactResult = Schemas['ResultCompact'];
export type LogEntry = Schemas['LogEntry'];
export type Payload = Schemas['Payload'];
export type Trace = Schemas['Trace'];

/**
 * The query parameters GET /platform/edi_transactions takes, as the OpenAPI document names them:
 * the console can send no other. `order` among them is the service's extension (oldest first
 * with `asc`); the contract's lists take no order parameter.
 */
export type TransactionListQuery = NonNullable<paths['/platform/edi_transactions']['get']['parameters']['query']>;

/**
 * A warning. The document leaves its `detail` an open object; the console reads the segment
 * and element a finding names from it (docs/api.md, "Warnings").
 */
export type Warning = Omit<Schemas['Warning'], 'detail'> & { readonly detail?: Readonly<Record<string, unknown>> };

/** An artifact a result's `detail.artifacts` points to (or a transaction's artifact role that has one). */
export type ArtifactPointer = Pick<Trace['artifacts'][number], 'id' | 'usage'> & Partial<Pick<Trace['artifacts'][number], 'contentType' | 'filename'>>;

/**
 * The fields of a result's `detail` the console reads. The OpenAPI document gives `detail` as an
 * open object (what it holds depends on the step); these are the fields the contract names
 * ("Result"), every one optional, so a detail without them still reads.
 */
export interface ResultDetail {
  readonly errorMessage?: string;
  readonly errors?: readonly string[];
  readonly resend?: boolean;
  readonly warnings?: readonly Warning[];
  readonly artifacts?: readonly ArtifactPointer[];
  readonly partner?: { readonly key: string };
  readonly [k: string]: unknown;
}

export type Result = Omit<Schemas['Result'], 'detail'> & { readonly detail: ResultDetail };

export type TransactionDetail = Omit<Schemas['TransactionDetail'], 'results' | 'warnings'> & {
  readonly results: readonly Result[];
  readonly warnings: readonly Warning[];
};

export type FeedEntry = Omit<Schemas['FeedEntry'], 'detail'> & { readonly detail: Result };

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
