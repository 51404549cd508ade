/**
 * A real HTTP receiver for webhook tests: listens on a loopback port, verifies every request
 * with the `standardwebhooks` package exactly as an organization's receiver would, records
 * when it arrived, and answers as the test scripted it per path (a status list consumed one
 * per call, the last one repeating; or a handler of its own: stall, reset, slow).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedCall {
  readonly path: string;
  /** Arrival of the request's headers (ms). */
  readonly at: number;
  /** When the whole body had arrived (ms). */
  readonly bodyAt: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** The verified payload (parsed JSON), or undefined when verification failed. */
  readonly payload: Record<string, unknown> | undefined;
  readonly error?: string;
}

export type Behaviour = (res: ServerResponse, req: IncomingMessage, call: number) => void;

/** An answer: a status, a status with headers, or a handler. */
export type Answer = number | { status: number; headers?: Record<string, string> } | Behaviour;

export interface Receiver {
  readonly url: string;
  readonly calls: ReceivedCall[];
  /** Scripts the answers of a path (one per call; the last repeats). Default: 200. */
  script(path: string, answers: readonly Answer[]): void;
  callsTo(path: string): ReceivedCall[];
  /** Waits until `path` got at least `n` calls. */
  waitFor(path: string, n: number, timeoutMs?: number): Promise<ReceivedCall[]>;
  close(): Promise<void>;
}

export async function startReceiver(secret: string): Promise<Receiver> {
  const verifier = new Webhook(secret);
  const scripts = new Map<string, readonly Answer[]>();
  const counts = new Map<string, number>();
  const calls: ReceivedCall[] = [];
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const path = req.url ?? '/';
    const n = counts.get(path) ?? 0;
    counts.set(path, n + 1);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let payload: Record<string, unknown> | undefined;
      let error: string | undefined;
      try {
        payload = verifier.verify(body, {
          'webhook-id': String(req.headers['webhook-id'] ?? ''),
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        }) as Record<string, unknown>;
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
      calls.push({ path, at, bodyAt: Date.now(), headers: req.headers, body, payload, ...(error ? { error } : {}) });
      const list = scripts.get(path) ?? [200];
      const answer = list[Math.min(n, list.length - 1)] ?? 200;
      if (typeof answer === 'function') return answer(res, req, n);
      if (typeof answer === 'number') return void res.writeHead(answer, { 'content-type': 'text/plain' }).end(`answer ${answer}: RESPONSE-BODY-MARKER`);
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...(answer.headers ?? {}) }).end('RESPONSE-BODY-MARKER');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const callsTo = (path: string): ReceivedCall[] => calls.filter((c) => c.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    script: (path, answers) => void scripts.set(path, answers),
    callsTo,
    waitFor: async (path, n, timeoutMs = 90_000) => {
      const deadline = Date.now() + timeoutMs;
      while (callsTo(path).length < n) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} call(s) to ${path}; got ${callsTo(path).length}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return callsTo(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers after `ms` (a slow receiver). */
export const slow =
  (ms: number, status = 200): Behaviour =>
  (res) => {
    const t = setTimeout(() => res.writeHead(status).end('slow'), ms);
    res.on('close', () => clearTimeout(t));
  };

/** Drops the connection without an answer. */
export const reset: Behaviour = (_res, req) => req.socket.destroy();
