/**
 * Traces end to end: the service runs with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP
 * receiver in this test process, one document goes from the partner endpoint through splitting,
 * mapping and validation to its webhook, and the spans it exported must form one trace: one per
 * step, each step's span the child of the step before it (linked by the `traceparent` header of
 * the Kafka message between them), all carrying the document's trace GUID. Then the same with
 * in-house steps run inline (the default): the steps run in the partner endpoint's pass have
 * their own spans, children of the pass's span one after the other, the webhook's span is the
 * child of the last of them, and the submission's HTTP request has a SERVER span named by its
 * route template.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { statusOf } from '../../../src/domain/records.ts';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { interchange, po850, startPipeline, type Pipeline } from '../pipeline/support.ts';

const SECRET = 'whsec_dGR4LXRyYWNpbmctdGVzdC1zZWNyZXQtMDAwMDAwMDA=';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: string } }[];
  status: { code: number };
}

function doc(base: string): ConfigDocument {
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    webhooks: [
      { name: 'in-traced', kind: 'standard', url: `${base}/in/traced`, contentType: 'application/json', signingSecret: SECRET },
      { name: 'errors', kind: 'standard', url: `${base}/errors`, contentType: 'application/json', signingSecret: SECRET },
    ],
    implementations: [{ name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: [
      {
        key: 'TRACED',
        name: 'Traced Inc',
        deliveryMethod: 'webhook',
        envelopes: { internal: 'us', external: 'them' },
        webhooks: { inbound: 'in-traced', error: 'errors' },
        transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
      },
    ],
  };
}

const spans: OtlpSpan[] = [];
const contentTypes: string[] = [];
let otlp: Server;
let rx: Receiver;
let otlpUrl: string;

beforeAll(async () => {
  otlp = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        contentTypes.push(String(req.headers['content-type']));
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((r) => otlp.listen(0, '127.0.0.1', () => r()));
  const { port } = otlp.address() as AddressInfo;
  otlpUrl = `http://127.0.0.1:${port}`;
  rx = await startReceiver(SECRET);
}, 240_000);

afterAll(async () => {
  await rx?.close();
  await new Promise<void>((r) => (otlp ? otlp.close(() => r()) : r()));
});

const attr = (s: OtlpSpan, key: string): string | undefined => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v?.stringValue ?? v?.intValue;
};

describe('OpenTelemetry traces', () => {
  let p: Pipeline;
  beforeAll(async () => {
    // every step through its stage topic (TDX_INLINE_STEPS=off), so the document crosses a
    // Kafka hop between each two steps
    p = await startPipeline(doc(rx.url), { env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl, OTEL_SERVICE_NAME: 'tdx-trace-test', TDX_INLINE_STEPS: 'off' }, sharedKeyspace: true });
  }, 240_000);
  afterAll(async () => {
    await p?.stop();
  });

  it("one document's steps form one trace across the Kafka hops", async () => {
    const r = await p.submitEdi('TRACED', interchange({ control: 901, groups: [{ sets: [po850('PO-TRACED')] }] }));
    expect(r.status).toBe(202);
    const trace = r.body['traceGuid'] as string;
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('delivered');
    const steps = ['node:partner_endpoint', 'node:x12_split', 'node:mapping', 'node:validation', 'node:webhook'];
    const mine = await eventually(() => {
      // the pipeline's spans (the submission's HTTP request has a SERVER span of its own trace)
      const found = spans.filter((s) => attr(s, 'tdx.trace_guid') === trace && s.kind !== 2);
      return steps.every((c) => found.some((s) => attr(s, 'tdx.consumer') === c)) ? found : undefined;
    }, 30_000, 'a span of every step');
    expect(contentTypes[0]).toBe('application/json');

    // one trace, whose id is the trace GUID's
    expect(new Set(mine.map((s) => s.traceId))).toEqual(new Set([trace.replace(/-/g, '').toLowerCase()]));
    const byStep = new Map(steps.map((c) => [c, mine.find((s) => attr(s, 'tdx.consumer') === c)!]));
    // the first step has no parent; each next step is the child of the step before it
    expect(byStep.get('node:partner_endpoint')!.parentSpanId).toBeUndefined();
    for (let i = 1; i < steps.length; i++) {
      expect(byStep.get(steps[i]!)!.parentSpanId, `${steps[i]} is the child of ${steps[i - 1]}`).toBe(byStep.get(steps[i - 1]!)!.spanId);
    }
    for (const s of byStep.values()) {
      expect(s.name).toBe(`${attr(s, 'tdx.consumer')!} process`);
      expect(s.kind).toBe(5);
      expect(s.status.code).toBe(1);
      expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
      expect(attr(s, 'messaging.system')).toBe('kafka');
      expect(attr(s, 'messaging.destination.name')).toBe(`stage.${attr(s, 'tdx.consumer')!.slice(5)}`);
    }
    // span ids are unique
    expect(new Set(mine.map((s) => s.spanId)).size).toBe(mine.length);
  });
});

describe('OpenTelemetry traces with in-house steps inline', () => {
  let p: Pipeline;
  beforeAll(async () => {
    p = await startPipeline(doc(rx.url), { env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl, OTEL_SERVICE_NAME: 'tdx-trace-test', TDX_INLINE_STEPS: 'on' }, sharedKeyspace: true });
  }, 240_000);
  afterAll(async () => {
    await p?.stop();
  });

  it('gives each inline step its own span in the pass, and the HTTP request a SERVER span by route template', async () => {
    const r = await p.submitEdi('TRACED', interchange({ control: 902, groups: [{ sets: [po850('PO-TRACED-INLINE')] }] }));
    expect(r.status).toBe(202);
    const trace = r.body['traceGuid'] as string;
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('delivered');
    const names = ['node:partner_endpoint process', 'node:x12_split process', 'node:mapping process', 'node:validation process', 'node:webhook process'];
    const mine = await eventually(() => {
      const found = spans.filter((s) => attr(s, 'tdx.trace_guid') === trace);
      return names.every((n) => found.some((s) => s.name === n)) && found.some((s) => s.kind === 2) ? found : undefined;
    }, 30_000, 'a span of every step and of the request');

    const byName = new Map(names.map((n) => [n, mine.find((s) => s.name === n)!]));
    const pass = byName.get('node:partner_endpoint process')!;
    const webhook = byName.get('node:webhook process')!;
    const inline = names.slice(1, 4).map((n) => byName.get(n)!);
    // the pass and the webhook are consumer spans of their own consumers; the steps between
    // them ran inline in the pass: INTERNAL spans of the pass's consumer
    for (const s of [pass, webhook]) {
      expect(s.kind).toBe(5);
      expect(attr(s, 'tdx.consumer')).toBe(s.name.replace(/ process$/, ''));
    }
    for (const s of inline) {
      expect(s.kind).toBe(1);
      expect(attr(s, 'tdx.inline')).toBe('true');
      expect(attr(s, 'tdx.step')).toBe(s.name.replace(/ process$/, ''));
      expect(attr(s, 'tdx.consumer')).toBe('node:partner_endpoint');
      expect(s.status.code).toBe(1);
      expect(BigInt(s.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(pass.startTimeUnixNano));
      expect(BigInt(s.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(pass.endTimeUnixNano));
    }
    // one trace; each step the child of the one before
    const pipeline = mine.filter((s) => s.kind !== 2);
    expect(new Set(pipeline.map((s) => s.traceId))).toEqual(new Set([trace.replace(/-/g, '').toLowerCase()]));
    const chain = [pass, ...inline, webhook];
    expect(pass.parentSpanId).toBeUndefined();
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.parentSpanId, `${chain[i]!.name} is the child of ${chain[i - 1]!.name}`).toBe(chain[i - 1]!.spanId);

    // the request that submitted it: named by the route template, not the path
    const request = mine.find((s) => s.kind === 2)!;
    expect(request.name).toBe('POST /platform/partners/:key/edi');
    expect(attr(request, 'http.route')).toBe('/platform/partners/:key/edi');
    expect(attr(request, 'http.request.method')).toBe('POST');
    expect(attr(request, 'http.response.status_code')).toBe('202');
    expect(JSON.stringify(request)).not.toContain('TRACED');
  });
});
