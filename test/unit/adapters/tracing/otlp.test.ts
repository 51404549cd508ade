import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { OtlpTracer } from '../../../../src/adapters/tracing/otlp.ts';
import { WireEmitter } from '../../../../src/adapters/kafka/emitter.ts';
import type { BatchingProducer } from '../../../../src/adapters/kafka/client.ts';
import type { WireRegistry } from '../../../../src/adapters/kafka/registry.ts';

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
