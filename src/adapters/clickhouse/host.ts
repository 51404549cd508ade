/**
 * The embedded engine (chDB) served over ClickHouse's HTTP interface, for the `clickhouse` role.
 *
 * chDB binds one data folder to one process, so without this the API and the materializer must
 * share a process with the engine, and only one API process can serve a data folder. With it,
 * one process holds the engine and every other process (API replicas, the materializer, an
 * analyst's `clickhouse-client --protocol http` or `curl`) reaches it with `CLICKHOUSE_URL` as it
 * would reach a ClickHouse server.
 *
 * The subset of the interface served (what @clickhouse/client and a person with curl use):
 * `GET /ping` and `GET /` answer `Ok.`; `POST /` runs the body as one query, or, when the URL has
 * `query`, runs it with the body as its data (inserts); `GET /?query=` runs a read-only query.
 * URL parameters: `query_id`, `default_format` (TabSeparated when the query names none),
 * `param_<name>` (query parameters), `user`/`password`; every other parameter is a setting.
 * Credentials: `X-ClickHouse-User`/`X-ClickHouse-Key`, basic authentication or the URL, checked
 * against CLICKHOUSE_USER and CLICKHOUSE_PASSWORD. Request bodies may be gzip (`Content-Encoding`);
 * answers are gzip when the client asks (`enable_http_compression=1` and `Accept-Encoding: gzip`).
 * Errors answer as a server does: the status, `X-ClickHouse-Exception-Code`, and the text
 * `Code: <n>. DB::Exception: <message>. (<NAME>)`. `database` is not applied: name tables as
 * `<database>.<table>` (the service always does). Multipart bodies (parameters in the body) are
 * refused.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createGunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import type { Config } from '../../config.ts';
import { sameSecret } from '../../domain/constant-time.ts';
import { chdbConnection } from './client.ts';

const gzipAsync = promisify(gzip);

/** Largest request body taken (a materializer batch is a few megabytes). */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;

/** Distinct sets of settings that keep a connection of their own; a request with another set gets one for itself. */
const MAX_SETTING_SETS = 32;

/** URL parameters that are not settings. */
const NOT_SETTINGS = new Set(['query', 'query_id', 'database', 'default_format', 'user', 'password', 'session_id', 'session_timeout', 'session_check', 'compress', 'decompress', 'role', 'quota_key']);

export interface ClickHouseHost {
  /** The port it listens on (the configured one, or the one taken for port 0). */
  readonly port: number;
  close(): Promise<void>;
}

interface Failure {
  readonly status: number;
  readonly code: number;
  readonly name: string;
  readonly message: string;
}

const fail = (status: number, code: number, name: string, message: string): Failure => ({ status, code, name, message });

/** The HTTP status a server gives an error code (the ones a client's mistake causes; the rest are 500). */
function statusOf(code: number): number {
  if (code === 62 || code === 27 || code === 36 || code === 26 || code === 53 || code === 457 || code === 456) return 400; // syntax, parse, bad argument, type, parameters
  if (code === 60 || code === 81 || code === 47 || code === 46) return 404; // unknown table, database, identifier, function
  if (code === 164 || code === 497 || code === 516) return 403; // readonly, access denied, authentication
  return 500;
}

function credentialsOf(req: IncomingMessage, url: URL): { user: string; key: string } {
  const header = (name: string): string | undefined => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const auth = header('authorization');
  if (auth?.startsWith('Basic ')) {
    const text = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    const at = text.indexOf(':');
    return { user: at < 0 ? text : text.slice(0, at), key: at < 0 ? '' : text.slice(at + 1) };
  }
  return {
    user: header('x-clickhouse-user') ?? url.searchParams.get('user') ?? 'default',
    key: header('x-clickhouse-key') ?? url.searchParams.get('password') ?? '',
  };
}

async function readBody(req: IncomingMessage): Promise<string | Failure> {
  const encoding = (req.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding && encoding !== 'gzip' && encoding !== 'identity') return fail(400, 36, 'BAD_ARGUMENTS', `Content-Encoding ${encoding} is not supported here: send the body as it is or gzip`);
  const source: Readable = encoding === 'gzip' ? req.pipe(createGunzip()) : req;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        return fail(413, 36, 'BAD_ARGUMENTS', `The request body is over ${MAX_BODY_BYTES} bytes: insert in smaller batches`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    return fail(400, 36, 'BAD_ARGUMENTS', `The request body could not be read: ${(err as Error).message}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A ClickHouseError's code and name (parsed by @clickhouse/client from chDB's text), or an internal error. */
function failureOf(err: unknown): Failure {
  const e = err as { code?: unknown; type?: unknown; message?: unknown };
  const code = Number(e.code);
  const message = typeof e.message === 'string' ? e.message.trim().replace(/\.$/, '') : String(err);
  if (Number.isInteger(code) && code > 0) return fail(statusOf(code), code, typeof e.type === 'string' ? e.type : 'UNKNOWN_EXCEPTION', message);
  return fail(500, 1001, 'STD_EXCEPTION', message);
}

/** Serves the embedded engine at config.clickhouse.chdbPath on hostAddress:hostPort. */
export async function serveEmbeddedClickHouse(config: Config, onError: (err: unknown) => void): Promise<ClickHouseHost> {
  const ch = config.clickhouse;
  const open = chdbConnection();
  // chDB applies a query's settings to the connection it runs on (SET before the query), and they
  // stay there: each set of settings gets a connection of its own on the one engine, so a request
  // never runs with settings another gave. A client sends the same few sets again and again; past
  // MAX_SETTING_SETS of them, a request's connection is opened for it and closed after it.
  type Connection = ReturnType<typeof open>;
  const connections = new Map<string, Connection>();
  const keptFor = (key: string): Connection | undefined => {
    let connection = connections.get(key);
    if (!connection && connections.size < MAX_SETTING_SETS) connections.set(key, (connection = open({ path: ch.chdbPath })));
    return connection;
  };
  // the engine opens with the connection of requests without settings: a folder another process
  // holds fails the start here
  keptFor('[]');

  /** Sends `body`, gzip when the request asked for compression and accepts gzip. */
  const answer = async (req: IncomingMessage, res: ServerResponse, gz: boolean, status: number, body: Buffer | string, headers: Record<string, string>): Promise<void> => {
    let out = typeof body === 'string' ? Buffer.from(body) : body;
    const head: Record<string, string> = { 'content-type': 'text/plain; charset=UTF-8', ...headers };
    if (gz && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      out = await gzipAsync(out);
      head['content-encoding'] = 'gzip';
    }
    res.writeHead(status, { ...head, 'content-length': String(out.length) }).end(out);
  };

  const sendFailure = (req: IncomingMessage, res: ServerResponse, f: Failure, gz: boolean): Promise<void> =>
    answer(req, res, gz, f.status, `Code: ${f.code}. DB::Exception: ${f.message}. (${f.name})\n`, { 'x-clickhouse-exception-code': String(f.code) });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://host');
    const gz = url.searchParams.get('enable_http_compression') === '1';
    if (req.method === 'GET' && (url.pathname === '/ping' || (url.pathname === '/' && !url.searchParams.has('query')))) {
      await answer(req, res, false, 200, 'Ok.\n', {});
      return;
    }
    if (url.pathname !== '/') return sendFailure(req, res, fail(404, 1001, 'STD_EXCEPTION', `There is no handler for ${url.pathname}: queries go to / (and /ping answers Ok.)`), gz);
    if (req.method !== 'GET' && req.method !== 'POST') return sendFailure(req, res, fail(405, 1001, 'STD_EXCEPTION', `Method ${req.method} is not served: use GET for read-only queries, POST for the rest`), gz);
    const who = credentialsOf(req, url);
    if (who.user !== ch.username || !sameSecret(who.key, ch.password)) {
      return sendFailure(req, res, fail(403, 516, 'AUTHENTICATION_FAILED', `${who.user}: Authentication failed: password is incorrect, or there is no user with such name`), gz);
    }
    if (/^multipart\//i.test(String(req.headers['content-type'] ?? ''))) {
      return sendFailure(req, res, fail(400, 36, 'BAD_ARGUMENTS', 'A multipart body (query parameters sent in the body) is not served here: send the query as the body and each parameter as param_<name> in the URL'), gz);
    }
    const body = await readBody(req);
    if (typeof body !== 'string') return sendFailure(req, res, body, gz);
    const inUrl = url.searchParams.get('query');
    const query = inUrl ?? body;
    if (query.trim() === '') return sendFailure(req, res, fail(400, 62, 'SYNTAX_ERROR', 'Empty query: send it as the request body or as the URL parameter query'), gz);
    const settings: Record<string, string | number> = {};
    const params: Record<string, string> = {};
    for (const [k, v] of url.searchParams) {
      if (k.startsWith('param_')) params[k.slice(6)] = v;
      else if (!NOT_SETTINGS.has(k)) settings[k] = /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
    }
    // GET is read-only, as on a server
    if (req.method === 'GET') settings['readonly'] = 1;
    const queryId = url.searchParams.get('query_id') ?? randomUUID();
    // the connection is chosen by the settings chDB sets on it; the output format is the query's own
    const key = JSON.stringify(Object.entries(settings).sort(([a], [b]) => (a < b ? -1 : 1)));
    const connection = keptFor(key) ?? open({ path: ch.chdbPath });
    try {
      const result = await connection.exec({
        query,
        ...(inUrl !== null && body.length > 0 ? { values: body } : {}),
        query_params: params,
        clickhouse_settings: { ...settings, default_format: url.searchParams.get('default_format') ?? 'TabSeparated' },
        query_id: queryId,
      } as Parameters<typeof connection.exec>[0]);
      const chunks: Buffer[] = [];
      for await (const chunk of result.stream) chunks.push(chunk as Buffer);
      await answer(req, res, gz, 200, Buffer.concat(chunks), { 'x-clickhouse-query-id': queryId, 'x-clickhouse-summary': JSON.stringify(result.summary ?? {}) });
    } catch (err) {
      const f = failureOf(err);
      if (f.status >= 500) onError(err);
      await sendFailure(req, res, f, gz);
    } finally {
      if (connections.get(key) !== connection) await connection.close();
    }
  };

  const closeAll = async (): Promise<void> => {
    const all = [...connections.values()];
    connections.clear();
    await Promise.all(all.map((c) => c.close()));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      onError(err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=UTF-8', 'x-clickhouse-exception-code': '1001' }).end('Code: 1001. DB::Exception: Internal error. (STD_EXCEPTION)\n');
      else res.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ch.hostPort, ch.hostAddress, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await closeAll();
    throw err;
  }
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : ch.hostPort,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await closeAll();
    },
  };
}
