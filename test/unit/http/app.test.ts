import { describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import Router from '@koa/router';
import { pino } from 'pino';
import { createApp } from '../../../src/http/app.ts';
import { TdxError } from '../../../src/errors.ts';

async function serve(routers: Router[], failing = false): Promise<{ url: string; close: () => Promise<void> }> {
  const app = createApp({
    logger: pino({ level: 'silent' }),
    checks: [{ name: 'store', check: () => (failing ? Promise.reject(new Error('down')) : Promise.resolve()) }],
    routers,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe('createApp', () => {
  const router = new Router();
  router.get('/boom', () => {
    throw new Error('secret table name leaked');
  });
  router.get('/missing', () => {
    throw new TdxError('not_found', 'No such flow.', { reason: 'flow' });
  });
  router.get('/store-down', () => {
    throw new TdxError('store_unavailable', 'Cassandra proc_results read failed: All host(s) tried for query failed (tried: 10.0.0.7:9042)');
  });
  router.get('/slow-down', () => {
    throw new TdxError('rate_limited', 'Too many requests.', { details: { retryAfterSeconds: 7 } });
  });

  it('answers a store outage with 503 service_unavailable JSON, never the driver text', async () => {
    const s = await serve([router]);
    try {
      const res = await fetch(`${s.url}/store-down`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ error: { message: expect.stringMatching(/^Service unavailable/) as string, code: 'service_unavailable' } });
      expect(text).not.toMatch(/Cassandra|10\.0\.0\.7|proc_results/);
    } finally {
      await s.close();
    }
  });

  it('renders contract errors with code and reason', async () => {
    const s = await serve([router]);
    try {
      const res = await fetch(`${s.url}/missing`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { message: 'No such flow.', code: 'not_found', reason: 'flow' } });
      const limited = await fetch(`${s.url}/slow-down`);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('7');
    } finally {
      await s.close();
    }
  });

  it('never leaks the text of a 5xx', async () => {
    const s = await serve([router]);
    try {
      const res = await fetch(`${s.url}/boom`);
      expect(res.status).toBe(500);
      const body = await res.text();
      expect(body).not.toContain('secret');
      expect(JSON.parse(body)).toEqual({ error: { message: 'Internal error.', code: 'internal_error' } });
    } finally {
      await s.close();
    }
  });

  it('answers unknown routes with the error body', async () => {
    const s = await serve([]);
    try {
      const res = await fetch(`${s.url}/platform/nothing`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    } finally {
      await s.close();
    }
  });

  it('answers a method a path does not take, known or not (TRACE), with 405 method_not_allowed and Allow, never 501', async () => {
    const r = new Router();
    r.get('/things/:id', (ctx) => {
      ctx.body = { id: ctx.params['id'] };
    });
    const s = await serve([r]);
    try {
      for (const method of ['PUT', 'DELETE', 'PATCH', 'TRACE', 'QUERY', 'PROPFIND']) {
        // node:http, since fetch refuses TRACE
        const res = await new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
          const req = request(`${s.url}/things/1`, { method }, (m) => {
            let body = '';
            m.on('data', (c: Buffer) => (body += c.toString()));
            m.on('end', () => resolve({ status: m.statusCode ?? 0, headers: m.headers, body }));
          });
          req.on('error', reject);
          req.end();
        });
        expect(res.status, method).toBe(405);
        expect(res.headers['allow'], method).toMatch(/GET/);
        expect(res.headers['content-type'], method).toMatch(/^application\/json/);
        expect(JSON.parse(res.body), method).toEqual({ error: { message: expect.stringContaining(`${method} is not allowed on /things/1`) as string, code: 'method_not_allowed' } });
      }
      expect((await fetch(`${s.url}/things/1`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('readyz is 503 when a check fails and 200 when all pass', async () => {
    const down = await serve([], true);
    const up = await serve([]);
    try {
      expect((await fetch(`${down.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${up.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${up.url}/healthz`)).status).toBe(200);
    } finally {
      await down.close();
      await up.close();
    }
  });
});
