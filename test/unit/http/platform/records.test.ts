/* eslint-disable @typescript-eslint/require-await -- fakes implement async ports synchronously */
/**
 * The records API's logic over in-memory stores: payload answers and their 404s, the results
 * status sift, the feed's withholding point, parameter checks, the streamed bodies, and the
 * OpenAPI document of a router that serves the records endpoints.
 */
import { describe, expect, it } from 'vitest';
import { TdxError, isTdxError } from '../../../../src/errors.ts';
import { CursorCodec } from '../../../../src/http/middleware/cursor.ts';
import { RecordsReader, type Caller, type RecordsDeps } from '../../../../src/http/platform/records.ts';
import { contentDisposition, jsonStringChunks, payloadBody } from '../../../../src/http/platform/records-routes.ts';
import { recordOperations } from '../../../../src/http/platform/records-operations.ts';
import { createPlatformRouter } from '../../../../src/http/platform/router.ts';
import { openApiDocument } from '../../../../src/http/platform/openapi.ts';
import { createLogger } from '../../../../src/logger.ts';
import { x12ImplementationEngine } from '../../../../src/domain/x12-implementation-engine.ts';
import { EARLIEST_MICROS, LATEST_MICROS, type ArtifactRecord, type ResultRecord } from '../../../../src/domain/records.ts';
import type { FeedFilters, ListOrder, Position, RecordLists, ResultScanRow, TransactionListRow } from '../../../../src/domain/records-query.ts';
import { FakeConfig, FakeOrgs, FakeRateLimits } from './fakes.ts';

const ORG = 'org-1';
const me: Caller = { organizationId: ORG, kind: 'standard' };
const id = (n: number): string => `01a20aca-0000-7000-8000-${String(n).padStart(12, '0')}`;

async function text(chunks: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
}

async function* from(...parts: (string | Buffer)[]): AsyncIterable<Buffer> {
  for (const p of parts) yield Buffer.isBuffer(p) ? p : Buffer.from(p);
}

async function refusal(p: Promise<unknown>): Promise<TdxError> {
  try {
    await p;
  } catch (err) {
    if (isTdxError(err)) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

function result(n: number, over: Partial<ResultRecord> = {}): ResultRecord {
  return {
    id: id(n),
    organizationId: ORG,
    traceGuid: id(900),
    transactionId: null,
    flowId: null,
    nodeId: 'n1',
    nodeName: 'Mapping',
    service: 'mapping',
    status: 'success',
    direction: 'inbound',
    partnerKey: 'ACME',
    resend: false,
    detail: {},
    payload: null,
    createdAt: 1_000_000 * n,
    updatedAt: 1_000_000 * n,
    ...over,
  };
}

/** The fakes of a reader: results and artifacts by id, a scan of the results list, a feed. */
function harness(opts: { results?: ResultRecord[]; artifacts?: Record<string, { record: ArtifactRecord; bytes: string | null }>; scan?: ResultScanRow[]; txs?: TransactionListRow[]; watermark?: number; newest?: Position | null; now?: number } = {}) {
  const calls: {
    feed: { bound: number; after: Position | null; since: number | null; filters: FeedFilters }[];
    scan: { before: Position | null; scan: number }[];
    tx: { from: Position | null; order: ListOrder | undefined }[];
  } = { feed: [], scan: [], tx: [] };
  const results = new Map((opts.results ?? []).map((r) => [r.id, r]));
  const lists: RecordLists = {
    // the rows of `txs` in the order asked, strictly past `from` in that order
    transactions: async (_org, _f, from, limit, order) => {
      calls.tx.push({ from, order });
      const asc = [...(opts.txs ?? [])].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      const all = order === 'asc' ? asc : asc.reverse();
      const start = from ? all.findIndex((r) => r.id === from.id) + 1 : 0;
      const rows = all.slice(start, start + limit);
      return { rows, more: start + limit < all.length };
    },
    scanResults: async (_org, _f, before, scan) => {
      calls.scan.push({ before, scan });
      const all = opts.scan ?? [];
      const start = before ? all.findIndex((r) => r.id === before.id) + 1 : 0;
      return all.slice(start, start + scan);
    },
    resultsPage: async () => ({ rows: [], more: false }),
    results: async (_org, positions) => positions.map((p) => result(Number(p.id.slice(-12)), { createdAt: p.createdAt })),
    feed: async (_org, filters, after, since, bound) => {
      calls.feed.push({ bound, after, since, filters });
      return { rows: [], more: false };
    },
    feedReadable: async () => ({ watermark: opts.watermark ?? 0, newest: opts.newest ?? null }),
    logs: async () => ({ rows: [], more: false }),
  };
  const deps: RecordsDeps = {
    transactions: { get: async () => null, byTrace: async () => [], traceErrors: async () => [] },
    results: { get: async (_o, rid) => results.get(rid) ?? null, byTrace: async () => [], transactionResults: async () => null },
    artifacts: {
      get: async (_o, aid) => opts.artifacts?.[aid]?.record ?? null,
      chunks: (a) =>
        (async function* () {
          const bytes = opts.artifacts?.[a.id]?.bytes;
          if (bytes === null || bytes === undefined) throw new TdxError('not_found', 'gone');
          yield Buffer.from(bytes);
        })(),
    },
    lists,
    receipts: { receivedResults: async () => new Set(), receivedArtifact: async () => false },
    config: { get: async () => null },
    settings: { feedVisibilityLagMs: 2000, logVisibilityLagMs: 5000, resultsStatusScanLimit: 3 },
    now: () => opts.now ?? 100_000_000_000,
  };
  return { reader: new RecordsReader(deps, new CursorCodec('unit')), calls };
}

const artifact = (aid: string, size: number): ArtifactRecord => ({
  id: aid,
  organizationId: ORG,
  traceGuid: id(900),
  resultId: id(1),
  nodeName: 'Mapping',
  usage: 'output',
  contentType: 'application/json',
  filename: 'x.json',
  size,
  sha256: '',
  blobId: aid,
  createdAt: 1,
});

describe('streamed bodies', () => {
  it('escapes EDI text into a JSON string chunk by chunk, a character split across chunks included', async () => {
    const original = 'ISA*00*"quoted"\\path~\nN1*ST*Café Ünïcode\u0001~';
    const bytes = Buffer.from(original, 'utf8');
    const cut = bytes.indexOf(0xc3) + 1; // inside the two bytes of "é"
    const escaped = await text(jsonStringChunks(from(bytes.subarray(0, cut), bytes.subarray(cut))));
    expect(JSON.parse(`"${escaped}"`)).toBe(original);
  });

  it('wraps stored JSON and EDI in {format, contents}', async () => {
    expect(JSON.parse(await text(payloadBody('json', from('{"a":', '[1,2]}'))))).toEqual({ format: 'json', contents: { a: [1, 2] } });
    expect(JSON.parse(await text(payloadBody('edi', from('ST*850~', 'SE*2~'))))).toEqual({ format: 'edi', contents: 'ST*850~SE*2~' });
  });

  it('names the original file in Content-Disposition, with an ASCII fallback', () => {
    expect(contentDisposition('PO é "1".edi')).toBe(`attachment; filename="PO _ _1_.edi"; filename*=UTF-8''PO%20%C3%A9%20%221%22.edi`);
  });
});

describe('payloads', () => {
  it('answers 404 when a step kept no payload, when its bytes are gone, and for an unknown id, naming the id', async () => {
    const { reader } = harness({
      results: [result(1), result(2, { payload: { artifactId: 'a-gone', format: 'json' } }), result(3, { payload: { artifactId: 'a-missing', format: 'json' } })],
      artifacts: { 'a-gone': { record: artifact('a-gone', 10), bytes: null } },
    });
    const none = await refusal(reader.payload(me, id(1), {}));
    expect([none.code, none.reason]).toEqual(['not_found', 'payload']);
    expect(none.message).toMatch(/kept no payload/);
    expect((await refusal(reader.payload(me, id(2), {}))).message).toMatch(/no longer stored/);
    expect((await refusal(reader.payload(me, id(3), {}))).message).toMatch(/no longer stored/);
    const unknown = await refusal(reader.payload(me, id(4), {}));
    expect(unknown.reason).toBe('result');
    expect(unknown.message).toContain(id(4));
    expect((await refusal(reader.payload(me, id(1), { jsonPath: 'a..b' }))).code).toBe('invalid_parameter');
    expect((await refusal(reader.payload(me, id(1), { keysOnly: 'yes' }))).code).toBe('invalid_parameter');
  });

  it('refuses over a size limit (the MCP tool) with a pointer to jsonPath and keysOnly, for the whole payload and for a selection', async () => {
    const big = JSON.stringify({ lines: Array.from({ length: 100 }, (_, i) => ({ i, text: 'x'.repeat(50) })) });
    const { reader } = harness({ results: [result(1, { payload: { artifactId: 'big', format: 'json' } })], artifacts: { big: { record: artifact('big', big.length), bytes: big } } });
    const whole = await refusal(reader.payload(me, id(1), {}, 1024));
    expect(whole.code).toBe('payload_too_large');
    expect(whole.message).toMatch(/jsonPath/);
    expect(whole.message).toMatch(/keysOnly/);
    expect((await refusal(reader.payload(me, id(1), { jsonPath: 'lines' }, 1024))).code).toBe('payload_too_large');
    const one = await reader.payload(me, id(1), { jsonPath: 'lines.99.i' }, 1024);
    expect(one).toEqual({ kind: 'value', body: { format: 'json', contents: 99, jsonPath: 'lines.99.i' } });
    const shape = await reader.payload(me, id(1), { keysOnly: 'true' }, 1024);
    expect(shape.kind === 'value' && shape.body['contents']).toEqual({ type: 'object', keys: { lines: { type: 'array', length: 100, sample: { type: 'object', keys: { i: { type: 'number' }, text: { type: 'string' } } } } } });
    // without a limit the whole payload streams
    const streamed = await reader.payload(me, id(1), {});
    expect(streamed.kind).toBe('stream');
  });
});

describe('results status sift', () => {
  it('examines at most the scan limit per page and puts the cursor at the last row examined', async () => {
    const scan: ResultScanRow[] = ['success', 'error', 'success', 'success', 'success', 'success', 'error', 'error'].map((status, i) => ({ id: id(10 + i), createdAt: 1000 - i, status: status as 'success' | 'error' }));
    const { reader, calls } = harness({ scan });
    const first = await reader.listResults(me, { status: 'error', limit: '2' });
    expect((first['results'] as { id: string }[]).map((r) => r.id)).toEqual([id(11)]);
    const p1 = first['pagination'] as { hasMore: boolean; nextCursor: string };
    expect(p1.hasMore).toBe(true);
    // three rows examined (the scan limit), one more read to know more follow
    expect(calls.scan[0]!.scan).toBe(4);
    const second = await reader.listResults(me, { status: 'error', limit: '2', cursor: p1.nextCursor });
    expect(calls.scan[1]!.before).toEqual({ createdAt: 1000 - 2, id: id(12) });
    expect(second['results']).toEqual([]);
    expect((second['pagination'] as { hasMore: boolean }).hasMore).toBe(true);
    const third = await reader.listResults(me, { status: 'error', limit: '2', cursor: (second['pagination'] as { nextCursor: string }).nextCursor });
    expect((third['results'] as { id: string }[]).map((r) => r.id)).toEqual([id(16), id(17)]);
    expect(third['pagination']).toEqual({ hasMore: false, nextCursor: null });
    // a cursor is bound to its filters
    expect((await refusal(reader.listResults(me, { status: 'success', cursor: p1.nextCursor }))).code).toBe('invalid_parameter');
  });
});

describe('feed', () => {
  it('withholds entries after min(now - lag, watermark)', async () => {
    const now = 100_000_000_000;
    const behind = harness({ watermark: now - 60_000_000, now });
    await behind.reader.feed(me, {});
    expect(behind.calls.feed[0]!.bound).toBe(now - 60_000_000);
    const ahead = harness({ watermark: now, now });
    await ahead.reader.feed(me, { partner: 'Acme', since: '2026-03-01T00:00:00Z' });
    expect(ahead.calls.feed[0]).toMatchObject({ bound: now - 2_000_000, since: Date.parse('2026-03-01T00:00:00Z') * 1000, filters: { partner: 'Acme' } });
  });

  it('takes a since before 1900 or after 2254 (valid ISO 8601) as the edge of the stored span, never an unsafe integer', async () => {
    for (const [since, expected] of [
      ['0594-04-27T07:52:58.4Z', EARLIEST_MICROS],
      ['1010-07-25T09:42:03.0Z', EARLIEST_MICROS],
      ['2977-08-14T16:06:21.8-08:00', LATEST_MICROS],
      ['9999-12-31T23:59:59Z', LATEST_MICROS],
    ] as const) {
      const { reader, calls } = harness({ watermark: 1 });
      const page = await reader.feed(me, { since });
      expect(calls.feed[0]!.since, since).toBe(expected);
      expect(Number.isSafeInteger(calls.feed[0]!.since), since).toBe(true);
      expect(page['feedEntries']).toEqual([]);
    }
    const { reader, calls } = harness({ watermark: 1 });
    await reader.feed(me, { since: '2026-03-01T00:00:00.123456Z' });
    expect(calls.feed[0]!.since).toBe(Date.parse('2026-03-01T00:00:00Z') * 1000 + 123_456);
  });

  it('answers a cursor at or past the organization\'s newest entry with the empty page, without reading the entries', async () => {
    const now = 100_000_000_000;
    const since = Date.parse('2026-03-01T00:00:00Z') * 1000;
    const first = harness({ watermark: now, now });
    const cursor = ((await first.reader.feed(me, { since: '2026-03-01T00:00:00Z' }))['pagination'] as { nextCursor: string }).nextCursor;
    // the cursor's position is (since, ''): before an entry at `since`, after one just before it
    for (const [newest, reads] of [
      [{ createdAt: since, id: 'e1' }, 1],
      [{ createdAt: since + 1, id: '' }, 1],
      [{ createdAt: since - 1, id: 'e9' }, 0],
      [{ createdAt: since, id: '' }, 0],
      [null, 1],
    ] as const) {
      const { reader, calls } = harness({ watermark: now, now, newest });
      const page = await reader.feed(me, { cursor });
      expect(calls.feed.length, JSON.stringify(newest)).toBe(reads);
      expect(page['feedEntries']).toEqual([]);
      expect(page['pagination']).toEqual({ hasMore: false, nextCursor: cursor });
    }
  });

  it('keeps a high-water mark in nextCursor even on an empty page, and refuses sandbox keys', async () => {
    const { reader } = harness({ watermark: 1 });
    const page = await reader.feed(me, { since: '2026-03-01T00:00:00Z' });
    expect(page['feedEntries']).toEqual([]);
    expect(typeof (page['pagination'] as { nextCursor: unknown }).nextCursor).toBe('string');
    expect((await refusal(reader.feed({ organizationId: ORG, kind: 'sandbox' }, {}))).code).toBe('forbidden');
  });
});

describe('transaction list parameters', () => {
  it('names the parameter of each bad value, and of direction and incoming disagreeing', async () => {
    const { reader } = harness();
    const cases: [Record<string, string | string[]>, string][] = [
      [{ direction: 'in' }, 'direction'],
      [{ direction: 'inbound', incoming: 'false' }, 'incoming'],
      [{ ack_status: 'nope' }, 'ack_status'],
      [{ until: '2026-02-30T00:00:00Z' }, 'until'],
      [{ status: ['error', 'delivered'] }, 'status'],
    ];
    for (const [q, name] of cases) {
      const e = await refusal(reader.listTransactions(me, q));
      expect([e.code, e.details['parameter']]).toEqual(['invalid_parameter', name]);
    }
    expect(await reader.listTransactions(me, { direction: 'inbound', incoming: 'true' })).toEqual({ ediTransactions: [], pagination: { hasMore: false, nextCursor: null } });
  });
});

describe('transaction list order (extension)', () => {
  const row = (n: number): TransactionListRow => ({
    id: id(n),
    traceGuid: id(900),
    direction: 'inbound',
    usageIndicator: 'P',
    partnerKey: 'ACME',
    transactionSetIdentifier: '850',
    reference: `PO-${n}`,
    senderQualifier: 'ZZ',
    senderExtid: 'ACME',
    receiverQualifier: 'ZZ',
    receiverExtid: 'US',
    interchangeControlNumber: '1',
    groupControlNumber: '1',
    transactionSetControlNumber: '0001',
    status: 'delivered',
    deliveredAt: null,
    warningCount: 0,
    acknowledgmentStatus: null,
    resendCount: 0,
    lastResentAt: null,
    duplicateOf: null,
    createdAt: 1_000_000 * n,
    updatedAt: 1_000_000 * n,
  });
  type Page = { ediTransactions: { id: string }[]; pagination: { hasMore: boolean; nextCursor: string | null } };
  const walk = async (reader: RecordsReader, q: Record<string, string>): Promise<string[]> => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const page = (await reader.listTransactions(me, { ...q, limit: '2', ...(cursor ? { cursor } : {}) })) as unknown as Page;
      seen.push(...page.ediTransactions.map((t) => t.id));
      if (!page.pagination.hasMore) return seen;
      cursor = page.pagination.nextCursor;
    }
    throw new Error('more than 10 pages');
  };

  it('reads newest first without the parameter and with order=desc, oldest first with order=asc, paging by cursor in each', async () => {
    const txs = [3, 1, 5, 2, 4].map(row);
    const { reader, calls } = harness({ txs });
    const newest = [5, 4, 3, 2, 1].map(id);
    expect(await walk(reader, {})).toEqual(newest);
    expect(calls.tx.every((c) => c.order === 'desc')).toBe(true);
    expect(await walk(reader, { order: 'desc' })).toEqual(newest);
    calls.tx.length = 0;
    expect(await walk(reader, { order: 'asc' })).toEqual([1, 2, 3, 4, 5].map(id));
    expect(calls.tx.map((c) => [c.order, c.from?.id ?? null])).toEqual([
      ['asc', null],
      ['asc', id(2)],
      ['asc', id(4)],
    ]);
  });

  it('keeps the default cursors: desc and absent share them, and a cursor of the other order is refused naming cursor', async () => {
    const { reader } = harness({ txs: [1, 2, 3, 4, 5].map(row) });
    const next = async (q: Record<string, string>): Promise<string> => ((await reader.listTransactions(me, { ...q, limit: '2' })) as unknown as Page).pagination.nextCursor!;
    const plain = await next({});
    // the default's cursor is the one the contract's list always gave: desc reads it as its own
    expect(await next({ order: 'desc' })).toBe(plain);
    expect(((await reader.listTransactions(me, { order: 'desc', cursor: plain })) as unknown as Page).ediTransactions.map((t) => t.id)).toEqual([3, 2, 1].map(id));
    const asc = await next({ order: 'asc' });
    expect(asc).not.toBe(plain);
    for (const [q, cursor] of [
      [{ order: 'asc' }, plain],
      [{}, asc],
      [{ order: 'desc' }, asc],
    ] as const) {
      const e = await refusal(reader.listTransactions(me, { ...q, cursor }));
      expect([e.code, e.details['parameter']]).toEqual(['invalid_parameter', 'cursor']);
    }
  });

  it('refuses any other value naming order, and documents the parameter as an extension', async () => {
    const { reader } = harness();
    for (const v of ['ASC', 'newest', '', 'asc,desc']) {
      const e = await refusal(reader.listTransactions(me, { order: v }));
      expect([e.code, e.details['parameter']], v).toEqual(['invalid_parameter', 'order']);
      expect(e.message, v).toContain('"order"');
    }
    expect((await refusal(reader.listTransactions(me, { order: ['asc', 'asc'] }))).details['parameter']).toBe('order');
    const params = (recordOperations.listTransactions.openapi() as { parameters: Record<string, unknown>[] }).parameters;
    const order = params.find((x) => x['name'] === 'order');
    expect(order).toMatchObject({ in: 'query', required: false, schema: { type: 'string', enum: ['desc', 'asc'] } });
    expect(typeof order?.['x-tdx-extension']).toBe('string');
    // no schema default: absent, the list is the contract's; the contract's own parameters carry no mark
    expect((order?.['schema'] as Record<string, unknown>)['default']).toBeUndefined();
    expect(params.filter((x) => x['x-tdx-extension'] !== undefined).map((x) => x['name'])).toEqual(['order']);
  });
});

describe('OpenAPI of a router serving the records endpoints', () => {
  it('documents every registered route, and registers every documented one', () => {
    const router = createPlatformRouter({
      api: { cursorSecret: 'unit', rateLimitPerMinute: 100, replayRateLimitPerMinute: 10, publicUrl: 'http://x' },
      keys: new FakeOrgs(),
      rateLimits: new FakeRateLimits(),
      configStore: new FakeConfig(),
      engine: x12ImplementationEngine,
      logger: createLogger({ logLevel: 'silent', serviceName: 'unit' }),
      records: {
        transactions: { get: async () => null, byTrace: async () => [], traceErrors: async () => [] },
        results: { get: async () => null, byTrace: async () => [], transactionResults: async () => null },
        artifacts: { get: async () => null, chunks: () => from() },
        lists: {} as RecordLists,
        receipts: { receivedResults: async () => new Set(), receivedArtifact: async () => false },
        config: { get: async () => null },
        settings: { feedVisibilityLagMs: 0, logVisibilityLagMs: 0, resultsStatusScanLimit: 500 },
      },
    }).router;
    const registered = new Set<string>();
    for (const layer of router.stack) for (const m of layer.methods.filter((x) => x !== 'HEAD')) registered.add(`${m} ${String(layer.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    const doc = openApiDocument(router, 'http://x') as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)));
    for (const r of ['GET /platform/edi_transactions', 'GET /platform/results/{id}/payload', 'GET /platform/feed_entries', 'GET /platform/traces/{guid}', 'POST /platform/mcp']) expect(registered).toContain(r);
    expect([...registered].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((r) => !registered.has(r))).toEqual([]);
  });
});
