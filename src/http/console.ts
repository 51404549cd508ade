/**
 * The operator console (docs/console.md): static files built from console/ at build time and
 * served at /console by the api role. The console holds no privilege of its own: the browser
 * calls the /platform API with the key its user entered, so it sees and does what that key may.
 *
 * Only the files of the build folder are served (names are matched against the folder's listing,
 * never joined from the request path); any other name under /console answers the console's page.
 * The console routes in the fragment (/console#/transactions), so the server has one page.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/** The page's policy: its own scripts and styles only, API calls to this origin only. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const MISSING = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tdx console</title></head><body><main><h1>The console is not built</h1><p>Run <code>npm run build</code> (npm ci runs it) and reload.</p></main></body></html>`;

interface Asset {
  readonly body: Buffer;
  readonly type: string;
}

/** Loads the build folder once (it changes only with a new build, which restarts the process). */
async function load(dir: string): Promise<Map<string, Asset>> {
  const files = new Map<string, Asset>();
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch {
    return files;
  }
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    files.set(name.split('\\').join('/'), { body: await readFile(join(dir, name)), type });
  }
  return files;
}

export async function consoleRouter(dir: string): Promise<Router> {
  const files = await load(dir);
  const router = new Router();
  const page = files.get('index.html');
  const security = (ctx: Koa.Context): void => {
    ctx.set('Content-Security-Policy', CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
  };
  const index = (ctx: Koa.Context): void => {
    security(ctx);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.status = page ? 200 : 503;
    ctx.body = page ? page.body : MISSING;
  };
  router.get('/console', index);
  router.get('/console/', index);
  router.get('/console/:file', (ctx) => {
    const name = ctx.params['file'] ?? '';
    const asset = name === 'index.html' ? undefined : files.get(name);
    if (!asset) return index(ctx);
    security(ctx);
    // file names carry a hash of their content (console/build.mjs)
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
  return router;
}
