import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { OtlpTracer } from '../../../../src/adapters/tracing/otlp.ts';
import { WireEmitter } from '../../../../src/adapters/kafka/emitter.ts';
import type { BatchingProducer } from '../../../../src/adapters/kafka/client.ts';
import type { WireRegistry } from '../../../../src/adapters/kafka/registry.ts';
import Router from '@koa/router';
import { createApp } from '../../../../src/http/app.ts';
import { effects } from '../../../../src/nodes/step.ts';
import type { StageMessage } from '../../../../src/wire/stage.v1.ts';

type Sent = { topic: string; key: string; headers?: Record<string, string> };
const sent: Sent[] = [];
const producer = { send: (m: Sent[]) => (sent.push(...m), Promise.resolve()) } as unknown as BatchingProducer;
const wire = { topic: (t: string) => `p.${t}`, encode: () => Buffer.from('x') } as unknown as WireRegistry;
const GUID = '019ab3c4-5d6e-7f80-9123-456789abcdef';

let server: Server | undefined;
afterEach(async () => {
  sent.length = 0;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function collector(): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  server = createServer((req, res) => {
    let s = '';
    req.on('data', (c: Buffer) => (s += c.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(s));
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

describe('OtlpTracer', () => {
  it('makes a span per item, parented by its traceparent, and gives what the step emits the span’s traceparent', async () => {
    const c = await collector();
    const tracer = new OtlpTracer({ endpoint: c.url, serviceName: 'tdx-unit', logger: pino({ level: 'silent' }), flushIntervalMs: 60_000 });
    const emitter = new WireEmitter(producer, wire);
    const parent = '00-0123456789abcdef0123456789abcdef-0011223344556677-01';
    const spans = tracer.consume('node:mapping process', [{ key: GUID, headers: {} }, { key: 'other', headers: { traceparent: parent } }], { 'tdx.consumer': 'node:mapping' });
    await spans.run(() => emitter.produce([{ topic: 'stage.validation', key: GUID, value: {} }, { topic: 'stage.validation', key: 'unrelated', value: {} }]));
    await emitter.produce([{ topic: 'stage.validation', key: GUID, value: {} }]); // outside the step: no header
    spans.fail([1], new Error('boom'));
    spans.end();
    spans.end();
    await tracer.close();

    expect(sent[0]!.headers!['traceparent']).toMatch(/^00-019ab3c45d6e7f809123456789abcdef-[0-9a-f]{16}-01$/);
    expect(sent[1]!.headers).toBeUndefined();
    expect(sent[2]!.headers).toBeUndefined();
    const body = c.bodies[0] as { resourceSpans: { resource: { attributes: { key: string; value: { stringValue: string } }[] }; scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
    expect(c.bodies).toHaveLength(1);
    expect(body.resourceSpans[0]!.resource.attributes).toEqual([{ key: 'service.name', value: { stringValue: 'tdx-unit' } }]);
    const [first, second] = body.resourceSpans[0]!.scopeSpans[0]!.spans as { traceId: string; spanId: string; parentSpanId?: string; status: { code: number; message?: string } }[];
    expect(first!.traceId).toBe('019ab3c45d6e7f809123456789abcdef');
    expect(first!.parentSpanId).toBeUndefined();
    expect(sent[0]!.headers!['traceparent']).toBe(`00-${first!.traceId}-${first!.spanId}-01`);
    expect(first!.status).toEqual({ code: 1 });
    expect(second!.traceId).toBe('0123456789abcdef0123456789abcdef');
    expect(second!.parentSpanId).toBe('0011223344556677');
    expect(second!.status).toEqual({ code: 2, message: 'boom' });
  });

  it('drops spans whose export fails, without throwing', async () => {
    const tracer = new OtlpTracer({ endpoint: 'http://127.0.0.1:1', serviceName: 'x', logger: pino({ level: 'silent' }) });
    const spans = tracer.consume('c', [{ key: GUID, headers: {} }], {});
    spans.end();
    await expect(tracer.close()).resolves.toBeUndefined();
  });
});

type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: { key: string; value: { stringValue?: string; intValue?: string } }[]; status: { code: number; message?: string } };
const spansOf = (bodies: unknown[]): OtlpSpan[] =>
  (bodies as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }[]).flatMap((b) => b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
const attr = (s: OtlpSpan, key: string): string | undefined => s.attributes.find((a) => a.key === key)?.value.stringValue ?? s.attributes.find((a) => a.key === key)?.value.intValue;

describe('OtlpTracer: inline steps', () => {
  it('gives each inline step a span, the child of the span that emitted its work item, and what it emits that span', async () => {
    const c = await collector();
    const tracer = new OtlpTracer({ endpoint: c.url, serviceName: 'tdx-unit', logger: pino({ level: 'silent' }), flushIntervalMs: 60_000 });
    const emitter = new WireEmitter(producer, wire);
    const item = (service: string, id: string): StageMessage => ({ id, traceGuid: GUID, service }) as unknown as StageMessage;
    const split = item('x12_split', 'w1');
    const mapping = item('mapping', 'w2');
    const validation = item('validation', 'w3');
    const webhook = item('webhook', 'w4');
    const pass = tracer.consume('node:partner_endpoint process', [{ key: GUID, headers: {} }], { 'tdx.consumer': 'node:partner_endpoint' });
    await pass.run(async () => {
      await tracer.inline('x12_split', split, () => Promise.resolve({ ...effects(), emit: [{ topic: 'stage.mapping', key: GUID, value: mapping }] }));
      await tracer.inline('mapping', mapping, () => Promise.resolve({ ...effects(), emit: [{ topic: 'stage.validation', key: GUID, value: validation }, { topic: 'stage.webhook', key: GUID, value: webhook }] }));
      await expect(tracer.inline('validation', validation, () => Promise.reject(new Error('inline failure')))).rejects.toThrow('inline failure');
      // the failed item goes through its topic as the child of the step that emitted it; an
      // item no inline step emitted is the child of the pass
      await emitter.produce([
        { topic: 'stage.webhook', key: GUID, value: webhook },
        { topic: 'stage.validation', key: GUID, value: validation },
        { topic: 'stage.feed', key: GUID, value: { id: 'w5' } },
      ]);
    });
    pass.end();
    await tracer.close();

    const spans = spansOf(c.bodies);
    const byName = new Map(spans.map((s) => [s.name, s]));
    const passSpan = byName.get('node:partner_endpoint process')!;
    const splitSpan = byName.get('node:x12_split process')!;
    const mappingSpan = byName.get('node:mapping process')!;
    const validationSpan = byName.get('node:validation process')!;
    expect(spans).toHaveLength(4);
    expect(passSpan.kind).toBe(5);
    for (const s of [splitSpan, mappingSpan, validationSpan]) {
      expect(s.kind).toBe(1);
      expect(s.traceId).toBe(passSpan.traceId);
      expect(attr(s, 'tdx.trace_guid')).toBe(GUID);
      expect(attr(s, 'tdx.inline')).toBe('true');
      expect(attr(s, 'tdx.consumer')).toBe('node:partner_endpoint');
      expect(attr(s, 'tdx.step')).toBe(s.name.replace(/ process$/, ''));
    }
    expect(splitSpan.parentSpanId).toBe(passSpan.spanId);
    expect(mappingSpan.parentSpanId).toBe(splitSpan.spanId);
    expect(validationSpan.parentSpanId).toBe(mappingSpan.spanId);
    expect(splitSpan.status).toEqual({ code: 1 });
    expect(validationSpan.status).toEqual({ code: 2, message: 'inline failure' });
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(4);
    const header = (topic: string): string | undefined => sent.find((m) => m.topic === `p.${topic}`)?.headers?.['traceparent'];
    expect(header('stage.webhook')).toBe(`00-${passSpan.traceId}-${mappingSpan.spanId}-01`);
    expect(header('stage.validation')).toBe(`00-${passSpan.traceId}-${mappingSpan.spanId}-01`);
    expect(header('stage.feed')).toBe(`00-${passSpan.traceId}-${passSpan.spanId}-01`);
  });
});

describe('OtlpTracer: HTTP server spans', () => {
  it('makes a SERVER span per request named by the route template, never the raw path', async () => {
    const c = await collector();
    const tracer = new OtlpTracer({ endpoint: c.url, serviceName: 'tdx-unit', logger: pino({ level: 'silent' }), flushIntervalMs: 60_000 });
    const router = new Router();
    router.get('/platform/results/:id', (ctx) => {
      ctx.body = { id: ctx.params['id'] };
    });
    router.post('/platform/partners/:key/edi', (ctx) => {
      ctx.status = 202;
      ctx.body = { traceGuid: GUID };
    });
    router.get('/platform/broken', () => {
      throw new Error('internal detail');
    });
    const app = createApp({ logger: pino({ level: 'silent' }), checks: [], routers: [router], tracer });
    const api = await new Promise<Server>((r) => {
      const s = app.listen(0, '127.0.0.1', () => r(s));
    });
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    try {
      const parent = '00-0123456789abcdef0123456789abcdef-0011223344556677-01';
      expect((await fetch(`${base}/platform/results/r-4711`, { headers: { traceparent: parent } })).status).toBe(200);
      expect((await fetch(`${base}/platform/partners/ACME/edi`, { method: 'POST' })).status).toBe(202);
      expect((await fetch(`${base}/nowhere/r-4711`)).status).toBe(404);
      expect((await fetch(`${base}/platform/broken`)).status).toBe(500);
    } finally {
      await new Promise<void>((r) => api.close(() => r()));
    }
    await tracer.close();

    const spans = spansOf(c.bodies);
    expect(spans.map((s) => s.name)).toEqual(['GET /platform/results/:id', 'POST /platform/partners/:key/edi', 'GET', 'GET /platform/broken']);
    expect(JSON.stringify(spans)).not.toContain('r-4711');
    const [get, post, unmatched, broken] = spans as [OtlpSpan, OtlpSpan, OtlpSpan, OtlpSpan];
    for (const s of spans) expect(s.kind).toBe(2);
    expect(get.traceId).toBe('0123456789abcdef0123456789abcdef');
    expect(get.parentSpanId).toBe('0011223344556677');
    expect(attr(get, 'http.route')).toBe('/platform/results/:id');
    expect(attr(get, 'http.request.method')).toBe('GET');
    expect(attr(get, 'http.response.status_code')).toBe('200');
    expect(get.status).toEqual({ code: 1 });
    expect(post.parentSpanId).toBeUndefined();
    expect(post.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(attr(post, 'tdx.trace_guid')).toBe(GUID);
    expect(attr(post, 'http.response.status_code')).toBe('202');
    expect(attr(unmatched, 'http.route')).toBeUndefined();
    expect(attr(unmatched, 'http.response.status_code')).toBe('404');
    expect(unmatched.status).toEqual({ code: 1 });
    expect(broken.status.code).toBe(2);
    expect(attr(broken, 'http.response.status_code')).toBe('500');
  });
});
