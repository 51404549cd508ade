/**
 * The webhook sender against a real HTTP receiver the test starts: every answer class of the
 * contract (delivered, retryable with and without Retry-After, final, redirect, reset, refused,
 * a stall past the attempt timeout), each request verified with `standardwebhooks` exactly as a
 * receiver would, and the signing secret absent from everything the sender returns.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_RETRY_POLICY, nextRetryDelayMs, sendWebhook, webhookMessageId, type WebhookOutcome } from '../../../src/adapters/webhook/index.ts';

const SECRET = 'whsec_dGR4LWludGVncmF0aW9uLXRlc3Qtc2lnbmluZy1zZWNyZXQ=';
const SECRET_KEY = SECRET.slice('whsec_'.length);

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  verified: unknown;
  error?: string;
}

let server: Server;
let base: string;
const received: Received[] = [];
const outcomes: WebhookOutcome[] = [];

/** Each path answers one way. */
const behaviours: Record<string, (res: ServerResponse, req: IncomingMessage) => void> = {
  '/ok': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true,"echo":"RESPONSE-BODY-MARKER"}'),
  '/ok-big': (res) => res.writeHead(202, { 'content-type': 'text/plain' }).end(Buffer.alloc(5 * 1024 * 1024, 0x61)),
  '/503': (res) => res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>down</h1>'),
  '/500': (res) => res.writeHead(500).end(),
  '/502': (res) => res.writeHead(502).end(),
  '/504': (res) => res.writeHead(504).end(),
  '/501': (res) => res.writeHead(501).end(),
  '/400': (res) => res.writeHead(400, { 'content-type': 'application/problem+json' }).end('{"title":"bad"}'),
  '/404': (res) => res.writeHead(404).end(),
  '/410': (res) => res.writeHead(410).end(),
  '/429': (res) => res.writeHead(429, { 'retry-after': '3' }).end(),
  '/429-long': (res) => res.writeHead(429, { 'retry-after': '120' }).end(),
  '/503-date': (res) => res.writeHead(503, { 'retry-after': new Date(Date.now() + 20_000).toUTCString() }).end(),
  '/301': (res) => res.writeHead(301, { location: '/moved-here' }).end(),
  '/moved-here': (res) => res.writeHead(200).end(),
  '/reset': (_res, req) => req.socket.destroy(),
  '/stall': (res) => {
    const t = setTimeout(() => res.writeHead(200).end(), 5_000);
    res.on('close', () => clearTimeout(t));
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { path: req.url ?? '', headers: req.headers, body, verified: undefined };
      try {
        r.verified = new Webhook(SECRET).verify(body, req.headers as Record<string, string>);
      } catch (err) {
        r.error = (err as Error).message;
      }
      received.push(r);
      const b = behaviours[req.url ?? ''];
      if (b) b(res, req);
      else res.writeHead(418).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
  // nothing the sender returned carries the secret, nor the response bodies
  const all = JSON.stringify(outcomes);
  expect(all).not.toContain(SECRET_KEY);
  expect(all).not.toMatch(/whsec_[A-Za-z0-9+/=]{4,}/);
  expect(all).not.toContain('RESPONSE-BODY-MARKER');
});

const body = JSON.stringify({ resultId: '0190f0c2-0000-8000-8000-000000000001', traceGuid: 't-1', partnerKey: 'ACME', transactionSetIdentifier: '850', document: { orderNumber: 'PO-1' } });
const messageId = webhookMessageId('0190f0c2-0000-8000-8000-000000000001', 'erp-inbound');

async function send(path: string, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}): Promise<WebhookOutcome> {
  const o = await sendWebhook({ url: `${base}${path}`, secret: SECRET, messageId, body, ...extra });
  outcomes.push(o);
  return o;
}
const lastTo = (path: string) => received.filter((r) => r.path === path).at(-1)!;

describe('sendWebhook against a real receiver', () => {
  it('200: delivered; the receiver verifies the Standard Webhooks signature over the exact body', async () => {
    const o = await send('/ok');
    expect(o).toEqual({ kind: 'delivered', statusCode: 200, contentType: 'application/json', timestamp: expect.any(Number) });
    const r = lastTo('/ok');
    expect(r.error).toBeUndefined();
    expect(r.verified).toEqual(JSON.parse(body));
    expect(r.body).toBe(body);
    expect(r.headers['webhook-id']).toBe(messageId);
    expect(r.headers['webhook-timestamp']).toBe(String(o.timestamp));
    expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    // a receiver holding another secret rejects it
    expect(() => new Webhook('whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldA==').verify(r.body, r.headers as Record<string, string>)).toThrow(/No matching signature/);
  });

  it('a large answer body is read and thrown away; nothing of it comes back', async () => {
    const o = await send('/ok-big');
    expect(o).toEqual({ kind: 'delivered', statusCode: 202, contentType: 'text/plain', timestamp: expect.any(Number) });
  });

  it.each([
    ['/503', 503, 'text/html'],
    ['/500', 500, undefined],
    ['/502', 502, undefined],
    ['/504', 504, undefined],
  ])('%s: retryable', async (path, statusCode, contentType) => {
    const o = await send(path);
    expect(o).toEqual({ kind: 'retryable', statusCode, ...(contentType ? { contentType } : {}), reason: `status ${statusCode}`, timestamp: expect.any(Number) });
    expect(lastTo(path).error).toBeUndefined();
  });

  it.each([
    ['/400', 400, 'application/problem+json'],
    ['/404', 404, undefined],
    ['/410', 410, undefined],
    ['/501', 501, undefined],
  ])('%s: final on the first answer', async (path, statusCode, contentType) => {
    const o = await send(path);
    expect(o).toEqual({ kind: 'final', statusCode, ...(contentType ? { contentType } : {}), reason: `status ${statusCode}`, timestamp: expect.any(Number) });
  });

  it('429 with Retry-After: 3 and 120 s are read; the policy waits the longer of the schedule and the receiver\'s ask', async () => {
    const policy = { ...DEFAULT_RETRY_POLICY, jitterPercent: 0, delaysMs: [1000, 2000, 4000, 8000, 60_000] };
    const o = await send('/429');
    expect(o).toMatchObject({ kind: 'retryable', statusCode: 429, retryAfterMs: 3000 });
    expect(o.kind === 'retryable' && nextRetryDelayMs(policy, { attempt: 1, retryAfterMs: o.retryAfterMs ?? null, seed: 's' })).toBe(3000);
    const long = await send('/429-long');
    expect(long).toMatchObject({ kind: 'retryable', statusCode: 429, retryAfterMs: 120_000 });
    // honoured up to the longest delay of the policy (60 s here)
    expect(nextRetryDelayMs(policy, { attempt: 1, retryAfterMs: long.kind === 'retryable' ? (long.retryAfterMs ?? null) : null, seed: 's' })).toBe(60_000);
    const dated = await send('/503-date');
    expect(dated.kind === 'retryable' && dated.retryAfterMs).toBeGreaterThan(15_000);
    expect(dated.kind === 'retryable' && dated.retryAfterMs).toBeLessThanOrEqual(20_000);
  });

  it('301: final, and the redirect is not followed', async () => {
    const before = received.filter((r) => r.path === '/moved-here').length;
    const o = await send('/301');
    expect(o).toEqual({ kind: 'final', statusCode: 301, reason: 'status 301: redirects are not followed', timestamp: expect.any(Number) });
    await new Promise((r) => setTimeout(r, 200));
    expect(received.filter((r) => r.path === '/moved-here').length).toBe(before);
  });

  it('a connection reset by the receiver: retryable, no status', async () => {
    const o = await send('/reset');
    expect(o).toEqual({ kind: 'retryable', reason: 'connection reset', timestamp: expect.any(Number) });
  });

  it('a refused connection: retryable, no status', async () => {
    const port = await new Promise<number>((ok) => {
      const s = createTcpServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => ok(p));
      });
    });
    const o = await sendWebhook({ url: `http://127.0.0.1:${port}/x`, secret: SECRET, messageId, body });
    outcomes.push(o);
    expect(o).toEqual({ kind: 'retryable', reason: 'connection refused', timestamp: expect.any(Number) });
  });

  it('a receiver that stalls 5 s: a retryable timeout at the attempt\'s timeout (2 s here; 15 s by default)', async () => {
    const started = Date.now();
    const o = await send('/stall', { timeoutMs: 2_000 });
    const took = Date.now() - started;
    expect(o).toEqual({ kind: 'retryable', reason: 'timeout after 2000 ms', timestamp: expect.any(Number) });
    expect(took).toBeGreaterThanOrEqual(1_900);
    expect(took).toBeLessThan(3_500);
  }, 30_000);

  it('each attempt is signed with its own timestamp, under one webhook-id, and each verifies', async () => {
    const firstAt = new Date(Date.now() - 2_000);
    const secondAt = new Date();
    const a = await send('/ok', { now: () => firstAt });
    const one = lastTo('/ok');
    const b = await send('/ok', { now: () => secondAt });
    const two = lastTo('/ok');
    expect([a.timestamp, b.timestamp]).toEqual([Math.floor(firstAt.getTime() / 1000), Math.floor(secondAt.getTime() / 1000)]);
    expect([one.headers['webhook-timestamp'], two.headers['webhook-timestamp']]).toEqual([String(a.timestamp), String(b.timestamp)]);
    expect(one.headers['webhook-id']).toBe(two.headers['webhook-id']);
    expect(one.headers['webhook-signature']).not.toBe(two.headers['webhook-signature']);
    expect([one.error, two.error]).toEqual([undefined, undefined]);
  });

  it('a late retry still verifies, where a signature carrying the first attempt time would be refused', async () => {
    // the first attempt was 10 minutes ago: a receiver's 5-minute tolerance refuses its time
    const firstAttempt = new Date(Date.now() - 10 * 60_000);
    const stale = new Webhook(SECRET).sign(messageId, firstAttempt, body);
    expect(() =>
      new Webhook(SECRET).verify(body, { 'webhook-id': messageId, 'webhook-timestamp': String(Math.floor(firstAttempt.getTime() / 1000)), 'webhook-signature': stale }),
    ).toThrow(/too old/);
    const o = await send('/ok');
    expect(o.kind).toBe('delivered');
    expect(lastTo('/ok').error).toBeUndefined();
  });

  it('a host name goes through the guarded resolver and is delivered', async () => {
    const o = await sendWebhook({ url: base.replace('127.0.0.1', 'localhost') + '/ok', secret: SECRET, messageId, body });
    outcomes.push(o);
    // localhost may resolve to ::1 first where nothing listens: then it is a refused connection
    expect(['delivered', 'retryable']).toContain(o.kind);
    if (o.kind === 'retryable') expect(o.reason).toBe('connection refused');
  });

  it('link-local targets, bad secrets and bad ids are final without any request, and quote no secret', async () => {
    const count = received.length;
    const cases = [
      await sendWebhook({ url: 'http://169.254.169.254/latest/meta-data/', secret: SECRET, messageId, body }),
      await sendWebhook({ url: 'http://[fe80::1]:9901/', secret: SECRET, messageId, body }),
      await sendWebhook({ url: `${base}/ok`, secret: 'whsec_', messageId, body }),
      await sendWebhook({ url: `${base}/ok`, secret: 'whsec_!!not-base64-SECRETPART!!', messageId, body }),
      await sendWebhook({ url: `${base}/ok`, secret: SECRET, messageId: 'msg with spaces', body }),
    ];
    outcomes.push(...cases);
    expect(cases.map((c) => c.kind)).toEqual(['final', 'final', 'final', 'final', 'final']);
    expect(cases.every((c) => c.statusCode === undefined)).toBe(true);
    expect(cases[0]!.kind === 'final' && cases[0]!.reason).toMatch(/link-local address 169\.254\.169\.254/);
    expect(cases[1]!.kind === 'final' && cases[1]!.reason).toMatch(/link-local address \[fe80::1\]/);
    expect(cases[2]!.kind === 'final' && cases[2]!.reason).toBe('the signing secret is not a whsec_<base64> secret');
    expect(JSON.stringify(cases)).not.toContain('SECRETPART');
    expect(received.length).toBe(count);
  });
});
