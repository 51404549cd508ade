/**
 * One definition per operation: the served OpenAPI document and the query validation come from
 * the same parameter schemas. These tests hold the served document against the validation
 * value by value, and pin the contract's messages for each kind of refusal.
 */
import type Router from '@koa/router';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseIsoMicros } from '../../../../src/domain/records.ts';
import type { RecordLists } from '../../../../src/domain/records-query.ts';
import { x12ImplementationEngine } from '../../../../src/domain/x12-implementation-engine.ts';
import { createPlatformRouter } from '../../../../src/http/platform/router.ts';
import { createLogger } from '../../../../src/logger.ts';
import { TdxError } from '../../../../src/errors.ts';
import { configOperations } from '../../../../src/http/platform/config-operations.ts';
import { openApiDocument } from '../../../../src/http/platform/openapi.ts';
import { timestampMicros, type Operation, type ParamDef } from '../../../../src/http/platform/operation.ts';
import { recordOperations } from '../../../../src/http/platform/records-operations.ts';
import { FakeConfig, FakeOrgs, FakeRateLimits } from './fakes.ts';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020, formats: string[]) => void;

function refusal(f: () => unknown): TdxError {
  try {
    f();
  } catch (err) {
    if (err instanceof TdxError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const operations: Operation<readonly ParamDef[]>[] = [...Object.values(recordOperations), ...Object.values(configOperations)];

// values of every kind a parameter takes or refuses
const SAMPLES = ['', 'x', 'ACME', '0', '1', '50', '100', '101', '-1', '1.5', 'true', 'false', 'inbound', 'outbound', 'error', 'success', 'delivered', 'acknowledged', 'markdown', 'info', 'debug', '850', '85', 'a.0.b', 'a..b', '.a', '2026-03-01T10:00:00Z', '2026-03-01', '2026-03-01 10:00:00+05', 'yesterday', 'eyJ2IjoxfQ.c2ln', 'not a cursor', 'x'.repeat(3000)];

describe('the served document and the query validation', () => {
  let router: Router;
  beforeAll(() => {
    // a router serving every operation registers them all in its document
    router = createPlatformRouter({
      api: { cursorSecret: 'unit', rateLimitPerMinute: 100, replayRateLimitPerMinute: 10, publicUrl: 'http://x' },
      keys: new FakeOrgs(),
      rateLimits: new FakeRateLimits(),
      configStore: new FakeConfig(),
      engine: x12ImplementationEngine,
      logger: createLogger({ logLevel: 'silent', serviceName: 'unit' }),
      records: {
        transactions: { get: () => Promise.resolve(null), byTrace: () => Promise.resolve([]), traceErrors: () => Promise.resolve([]) },
        results: { get: () => Promise.resolve(null), byTrace: () => Promise.resolve([]), transactionResults: () => Promise.resolve(null) },
        artifacts: { get: () => Promise.resolve(null), chunks: () => Readable.from([]) },
        lists: {} as RecordLists,
        receipts: { receivedResults: () => Promise.resolve(new Set<string>()), receivedArtifact: () => Promise.resolve(false) },
        config: { get: () => Promise.resolve(null) },
        settings: { feedVisibilityLagMs: 0, logVisibilityLagMs: 0, resultsStatusScanLimit: 500 },
      },
    }).router;
  });

  it('agree on every query parameter of every operation, value by value', () => {
    const doc = openApiDocument(router, 'http://x') as { paths: Record<string, Record<string, { parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[] }>> };
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv, ['date-time', 'date']);
    let compared = 0;
    for (const op of operations) {
      const documented = doc.paths[op.path]?.[op.method];
      expect(documented, `${op.method} ${op.path}`).toBeDefined();
      for (const p of documented!.parameters ?? []) {
        if (p.in !== 'query') continue;
        const valid = ajv.compile(p.schema);
        for (const value of SAMPLES) {
          // the other required parameters given a valid value, so only this one decides
          const query: Record<string, string> = { [p.name]: value };
          for (const other of documented!.parameters ?? []) if (other.in === 'query' && other.required && other.name !== p.name) query[other.name] = 'x';
          const typed = p.schema['type'] === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
          let accepted = true;
          try {
            op.parseQuery(query);
          } catch (err) {
            expect(err, `${op.path} ${p.name}=${value}`).toBeInstanceOf(TdxError);
            expect([400], `${op.path} ${p.name}=${value}`).toContain((err as TdxError).status);
            accepted = false;
          }
          expect(accepted, `${op.method} ${op.path}: ${p.name}=${JSON.stringify(value).slice(0, 40)}`).toBe(valid(typed));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('documents the cursor as opaque and says arbitrary strings are refused', () => {
    const doc = openApiDocument(router, 'http://x') as { paths: Record<string, Record<string, { parameters?: { name: string; description: string }[] }>>; components: { schemas: { Pagination: { properties: { nextCursor: { description: string } } } } } };
    const cursors = Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((o) => (o.parameters ?? []).filter((p) => p.name === 'cursor')));
    expect(cursors.length).toBeGreaterThan(10);
    for (const c of cursors) expect(c.description).toMatch(/Opaque.*any other string, however well formed, is refused with 400 invalid_parameter/s);
    expect(doc.components.schemas.Pagination.properties.nextCursor.description).toMatch(/unchanged/);
  });
});

describe('refusals keep the contract codes and messages', () => {
  const tx = recordOperations.listTransactions;
  it.each([
    [{ limit: '0' }, 'limit', 'Query parameter "limit" must be an integer from 1 to 100; got "0".'],
    [{ limit: '1.5' }, 'limit', 'Query parameter "limit" must be an integer from 1 to 100; got "1.5".'],
    [{ partner: '' }, 'partner', 'Query parameter "partner" is empty.'],
    [{ transaction_set_identifier: '' }, 'transaction_set_identifier', 'Query parameter "transaction_set_identifier" is empty.'],
    [{ direction: 'in' }, 'direction', 'Query parameter "direction" must be one of inbound, outbound; got "in".'],
    [{ since: 'yesterday' }, 'since', 'Query parameter "since" must be an ISO 8601 timestamp with a time zone, such as 2026-03-01T10:00:00Z; got "yesterday".'],
    [{ cursor: '' }, 'cursor', 'Query parameter "cursor" is empty.'],
    [{ cursor: 'not a cursor' }, 'cursor', 'Query parameter "cursor" is not valid for this request: pass nextCursor unchanged, with the same filters, to the endpoint that returned it.'],
    [{ status: ['error', 'delivered'] }, 'status', 'Query parameter "status" may be given once.'],
    [{ color: 'red' }, 'color', 'Unknown query parameter "color".'],
  ])('%j: 400 invalid_parameter naming %s', (query, name, message) => {
    const e = refusal(() => tx.parseQuery(query));
    expect([e.code, e.status, e.details['parameter'], e.message]).toEqual(['invalid_parameter', 400, name, message]);
  });

  it('names the first refused parameter in the order of the definition, then unknown ones', () => {
    expect(refusal(() => tx.parseQuery({ color: 'red', limit: '0', direction: 'in' })).details['parameter']).toBe('direction');
    expect(refusal(() => tx.parseQuery({ color: 'red', limit: '0' })).details['parameter']).toBe('limit');
  });

  it('answers an absent or empty trace of the logs with 400 missing_parameter', () => {
    for (const query of [{}, { trace: '' }]) {
      const e = refusal(() => recordOperations.logs.parseQuery(query));
      expect([e.code, e.status, e.message]).toEqual(['missing_parameter', 400, 'Query parameter "trace" is required.']);
    }
  });

  it('fills in the defaults of the schemas and reads integers', () => {
    expect(tx.parseQuery({})).toEqual({ limit: 50 });
    expect(tx.parseQuery({ limit: '007', partner: 'acme' })).toEqual({ limit: 7, partner: 'acme' });
    expect(configOperations.implementationGuide.parseQuery({})).toEqual({ variant: 'console' });
    // the flows and mappings lists take an empty partner key (an unknown key: an empty page)
    expect(configOperations.listFlows.parseQuery({ partner: '' })).toEqual({ partner: '', limit: 50 });
  });
});

describe('timestamps', () => {
  it('reads every form of RFC 3339 date-time the schema takes, as microseconds', () => {
    const at = (s: string): number => parseIsoMicros(s)!;
    expect(timestampMicros('2026-03-01T10:00:00Z')).toBe(at('2026-03-01T10:00:00Z'));
    expect(timestampMicros('2026-03-01 10:00:00z')).toBe(at('2026-03-01T10:00:00Z'));
    expect(timestampMicros('2026-03-01t10:00:00+05')).toBe(at('2026-03-01T05:00:00Z'));
    expect(timestampMicros('2026-03-01T10:00:00.1234567891-0130')).toBe(at('2026-03-01T11:30:00.123456Z'));
    expect(timestampMicros('2016-12-31T23:59:60Z')).toBe(at('2016-12-31T23:59:59.999999Z'));
  });

  it('gives a safe integer for every date-time the format accepts', () => {
    const ajv = new Ajv2020();
    addFormats(ajv, ['date-time']);
    const valid = ajv.compile({ type: 'string', format: 'date-time' });
    const two = (n: number): string => String(n).padStart(2, '0');
    const text = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 60 }),
        fc.stringMatching(/^(\.\d{1,12})?$/),
        fc.constantFrom('T', 't', ' '),
        fc.constantFrom('Z', 'z', '+05', '-0130', '+23:59', '-00:00'),
      )
      .map(([y, mo, d, h, mi, s, frac, sep, zone]) => `${String(y).padStart(4, '0')}-${two(mo)}-${two(d)}${sep}${two(h)}:${two(mi)}:${two(s)}${frac}${zone}`);
    fc.assert(
      fc.property(text, (t) => {
        if (!valid(t)) return;
        expect(Number.isSafeInteger(timestampMicros(t)), t).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
