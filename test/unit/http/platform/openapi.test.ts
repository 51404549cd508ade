import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.ts';
import { openApiDocument } from '../../../../src/http/platform/openapi.ts';
import { wholeRouter } from '../../../../bin/console-api-types.ts';

let h: Awaited<ReturnType<typeof startHarness>>;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

function registered(): string[] {
  const out = new Set<string>();
  for (const layer of h.platform.router.stack) {
    const methods = layer.methods.filter((m) => m !== 'HEAD');
    if (methods.length === 0) continue; // router.use middleware
    const path = String(layer.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    for (const m of methods) out.add(`${m} ${path}`);
  }
  return [...out].sort();
}

function documented(router = h.platform.router): string[] {
  const doc = openApiDocument(router, 'http://x') as { paths: Record<string, Record<string, unknown>> };
  const out: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) for (const m of Object.keys(ops)) out.push(`${m.toUpperCase()} ${path}`);
  return out.sort();
}

describe('GET /platform/openapi.json', () => {
  it('documents every registered route, and every documented route is registered', () => {
    expect(registered().length).toBeGreaterThan(20);
    expect(documented()).toEqual(registered());
  });

  it('of one router names none of the routes another router of the same process serves', () => {
    // the api role's router also serves the records, submission and replay endpoints; the
    // harness's serves configuration only
    const whole = documented(wholeRouter());
    expect(whole).toContain('GET /platform/edi_transactions');
    expect(whole).toContain('POST /platform/mcp');
    expect(documented()).not.toContain('GET /platform/edi_transactions');
    expect(documented()).toEqual(registered());
  });

  it('serves an OpenAPI 3.1 document whose schema references all resolve', async () => {
    const r = await h.get('/platform/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const refs = [...r.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const name of refs) expect(r.body.components.schemas, name).toHaveProperty(name);
  });
});
