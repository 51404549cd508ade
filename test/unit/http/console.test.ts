import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/app.ts';
import { consoleRouter } from '../../../src/http/console.ts';

async function serve(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const app = createApp({ logger: pino({ level: 'silent' }), checks: [], routers: [await consoleRouter(dir)] });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe('consoleRouter', () => {
  let dir: string;
  let s: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'console-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console page</title>');
    writeFileSync(path.join(dir, 'main-ABC.js'), 'console.log(1)');
    writeFileSync(path.join(dir, 'notes.txt'), 'not served');
    mkdirSync(path.join(dir, 'sub'));
    s = await serve(dir);
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page at /console with a policy that allows only its own scripts', async () => {
    for (const p of ['/console', '/console/']) {
      const res = await fetch(`${s.url}${p}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('console page');
    }
  });

  it('serves a built asset with its type and a long cache, and answers any other name with the page', async () => {
    const js = await fetch(`${s.url}/console/main-ABC.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(await js.text()).toBe('console.log(1)');
    for (const p of ['/console/notes.txt', '/console/..%2Fpackage.json', '/console/nothing.js']) {
      const res = await fetch(`${s.url}${p}`);
      expect(await res.text()).toContain('console page');
    }
  });

  it('says the console is not built when the folder is missing', async () => {
    const other = await serve(path.join(dir, 'absent'));
    try {
      const res = await fetch(`${other.url}/console`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build');
    } finally {
      await other.close();
    }
  });
});
