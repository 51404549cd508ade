/**
 * GET against the HTTP API with an optional `Authorization: Key` header; the body is parsed as
 * JSON when it is JSON and kept as text otherwise. Shared by the unit harness (in-process app)
 * and the integration tests (real API processes).
 */
export interface ApiResponse {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
  readonly text: string;
  readonly headers: Headers;
}

export async function apiGet(base: string, path: string, key: string | null, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const res = await fetch(base + path, { headers: { ...(key === null ? {} : { authorization: `Key ${key}` }), ...headers } });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* a text body */
  }
  return { status: res.status, body, text, headers: res.headers };
}
