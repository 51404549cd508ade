import { describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { pino } from 'pino';
import { PrometheusMeters, metricsAuthorized } from '../../../../src/adapters/metrics/prometheus.ts';
import { meteredPollStates, meteredWebhooks } from '../../../../src/adapters/metrics/delivery.ts';
import { createApp } from '../../../../src/http/app.ts';
import { TdxError } from '../../../../src/errors.ts';
import { documentCounts, statusClass } from '../../../../src/domain/metrics.ts';
import client from 'prom-client';
import type { WebhookCall } from '../../../../src/nodes/ports.ts';
import type { PollState } from '../../../../src/domain/sftp-polling.ts';

/** The value of one series in a text exposition, or undefined. */
function valueOf(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  return undefined;
}

describe('PrometheusMeters', () => {
  it('counts a consumer: handled, failed, retried by reason, dead letters, batch time, and each partition’s position', async () => {
    const m = new PrometheusMeters({ processMetrics: false, roles: ['node:mapping'] });
    const c = m.consumer('node:mapping', 'node.mapping');
    c.handled(3, 0.02);
    c.handled(2, 0.5);
    c.failed(1);
    c.retried(1, 'failure');
    c.retried(4, 'outage');
    c.deadLettered();
    c.position('stage.mapping', 2, 17, 4.5);
    const text = await m.render();
    expect(valueOf(text, 'tdx_pipeline_items_handled_total{consumer="node:mapping",group="node.mapping"}')).toBe(5);
    expect(valueOf(text, 'tdx_pipeline_items_failed_total{consumer="node:mapping",group="node.mapping"}')).toBe(1);
    expect(valueOf(text, 'tdx_pipeline_items_retried_total{consumer="node:mapping",group="node.mapping",reason="failure"}')).toBe(1);
    expect(valueOf(text, 'tdx_pipeline_items_retried_total{consumer="node:mapping",group="node.mapping",reason="outage"}')).toBe(4);
    expect(valueOf(text, 'tdx_pipeline_dead_letters_total{consumer="node:mapping",group="node.mapping"}')).toBe(1);
    expect(valueOf(text, 'tdx_pipeline_batch_duration_seconds_count{consumer="node:mapping"}')).toBe(2);
    expect(valueOf(text, 'tdx_pipeline_batch_duration_seconds_bucket{le="0.025",consumer="node:mapping"}')).toBe(1);
    expect(valueOf(text, 'tdx_consumer_lag_messages{consumer="node:mapping",group="node.mapping",topic="stage.mapping",partition="2"}')).toBe(17);
    expect(valueOf(text, 'tdx_consumer_oldest_unprocessed_age_seconds{consumer="node:mapping",group="node.mapping",topic="stage.mapping",partition="2"}')).toBe(4.5);
    expect(valueOf(text, 'tdx_process_role{role="node:mapping"}')).toBe(1);
    c.position('stage.mapping', 2, 0, 0);
    expect(valueOf(await m.render(), 'tdx_consumer_lag_messages{consumer="node:mapping",group="node.mapping",topic="stage.mapping",partition="2"}')).toBe(0);
  });

  it('includes the process metrics (event-loop lag, heap, GC) unless turned off', async () => {
    const on = await new PrometheusMeters().render();
    expect(on).toContain('nodejs_eventloop_lag_seconds');
    expect(on).toContain('nodejs_heap_size_used_bytes');
    expect(on).toContain('nodejs_gc_duration_seconds');
    expect(await new PrometheusMeters({ processMetrics: false }).render()).not.toContain('nodejs_heap_size_used_bytes');
  });

  it('sets tdx_store_up from the health checks at each scrape', async () => {
    const m = new PrometheusMeters({ processMetrics: false });
    let cassandraUp = true;
    m.storeHealth(() => [
      { name: 'cassandra', check: () => (cassandraUp ? Promise.resolve() : Promise.reject(new Error('down'))) },
      { name: 'kafka', check: () => new Promise<void>(() => undefined) }, // never answers
    ], 50);
    let text = await m.render();
    expect(valueOf(text, 'tdx_store_up{store="cassandra"}')).toBe(1);
    expect(valueOf(text, 'tdx_store_up{store="kafka"}')).toBe(0);
    cassandraUp = false;
    text = await m.render();
    expect(valueOf(text, 'tdx_store_up{store="cassandra"}')).toBe(0);
  });

  it('counts webhook attempts by outcome: a retryable answer on the last attempt is exhausted', async () => {
    const m = new PrometheusMeters({ processMetrics: false });
    const answers = [{ kind: 'retryable', statusCode: 503, reason: 'x' }, { kind: 'retryable', reason: 'timeout' }, { kind: 'delivered', statusCode: 204 }, { kind: 'final', statusCode: 410, reason: 'gone' }] as const;
    let i = 0;
    const sender = meteredWebhooks({ send: () => Promise.resolve(answers[i++]!) }, m.delivery);
    const call: WebhookCall = { url: 'http://127.0.0.1:1/x', secret: 'whsec_x', messageId: 'm', body: '{}', contentType: 'application/json' };
    await sender.send({ ...call, attempt: 1 });
    await sender.send({ ...call, attempt: 6 });
    await sender.send({ ...call, attempt: 2 });
    await sender.send(call);
    const text = await m.render();
    expect(valueOf(text, 'tdx_webhook_attempts_total{outcome="retry",status_class="5xx"}')).toBe(1);
    expect(valueOf(text, 'tdx_webhook_attempts_total{outcome="exhausted",status_class="none"}')).toBe(1);
    expect(valueOf(text, 'tdx_webhook_attempts_total{outcome="delivered",status_class="2xx"}')).toBe(1);
    expect(valueOf(text, 'tdx_webhook_attempts_total{outcome="failed",status_class="4xx"}')).toBe(1);
  });

  it('counts SFTP polls and files per connection name from the saved poll state', async () => {
    const m = new PrometheusMeters({ processMetrics: false });
    const saved: PollState[] = [];
    class Store {
      readonly prefix = 'kept';
      #own = 'private fields keep working';
      savePollState(s: PollState): Promise<void> {
        saved.push({ ...s, host: this.#own });
        return Promise.resolve();
      }
    }
    const store = meteredPollStates(new Store(), m.delivery);
    const base = { organizationId: 'o', connectionId: 'c1', connectionName: 'acme-sftp', lastPollOk: true, lastPollFiles: 3 } as unknown as PollState;
    await store.savePollState(base);
    await store.savePollState({ ...base, lastPollOk: false, lastPollFiles: 0 });
    expect(saved).toHaveLength(2);
    expect(saved[0]!.host).toBe('private fields keep working');
    expect(store.prefix).toBe('kept');
    const text = await m.render();
    expect(valueOf(text, 'tdx_sftp_polls_total{connection="acme-sftp",outcome="ok"}')).toBe(1);
    expect(valueOf(text, 'tdx_sftp_polls_total{connection="acme-sftp",outcome="failed"}')).toBe(1);
    expect(valueOf(text, 'tdx_sftp_files_fetched_total{connection="acme-sftp"}')).toBe(3);
  });

  it('maps statuses to classes', () => {
    expect([statusClass(204), statusClass(302), statusClass(429), statusClass(503), statusClass(undefined), statusClass(null)]).toEqual(['2xx', '3xx', '4xx', '5xx', 'none', 'none']);
  });
});

describe('metricsAuthorized', () => {
  it('lets everyone in without a token, and only the right bearer token with one', () => {
    expect(metricsAuthorized(undefined, undefined)).toBe(true);
    expect(metricsAuthorized('s3cret', undefined)).toBe(false);
    expect(metricsAuthorized('s3cret', 'Bearer wrong')).toBe(false);
    expect(metricsAuthorized('s3cret', 'Basic s3cret')).toBe(false);
    expect(metricsAuthorized('s3cret', 'Bearer s3cret')).toBe(true);
  });
});

describe('/metrics on the API', () => {
  async function serve(token?: string): Promise<{ url: string; meters: PrometheusMeters; close: () => Promise<void> }> {
    const meters = new PrometheusMeters({ processMetrics: false });
    const router = new Router();
    router.get('/platform/partners/:key', (ctx) => {
      ctx.body = { key: ctx.params['key'] };
    });
    router.get('/platform/limited', () => {
      throw new TdxError('rate_limited', 'Too many requests.', { details: { retryAfterSeconds: 1 } });
    });
    const app = createApp({
      logger: pino({ level: 'silent' }),
      checks: [],
      routers: [router],
      metrics: { http: meters.http, contentType: meters.contentType, render: () => meters.render(), authorized: (a) => metricsAuthorized(token, a) },
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, meters, close: () => new Promise((r) => server.close(() => r())) };
  }

  it('labels requests by route template, never by the raw path, and counts rate-limit refusals', async () => {
    const s = await serve();
    try {
      for (const key of ['ACME', 'GLOBEX', 'ACME']) expect((await fetch(`${s.url}/platform/partners/${key}`)).status).toBe(200);
      expect((await fetch(`${s.url}/platform/limited`)).status).toBe(429);
      expect((await fetch(`${s.url}/no/such/${Math.random()}`)).status).toBe(404);
      const res = await fetch(`${s.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      expect(valueOf(text, 'tdx_http_requests_total{route="/platform/partners/:key",method="GET",status="200"}')).toBe(3);
      expect(valueOf(text, 'tdx_http_requests_total{route="/platform/limited",method="GET",status="429"}')).toBe(1);
      expect(valueOf(text, 'tdx_http_rate_limited_total{route="/platform/limited"}')).toBe(1);
      expect(valueOf(text, 'tdx_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
      expect(valueOf(text, 'tdx_http_request_duration_seconds_count{route="/platform/partners/:key",method="GET"}')).toBe(3);
      expect(text).not.toContain('ACME');
    } finally {
      await s.close();
    }
  });

  it('requires the bearer token when one is configured', async () => {
    const s = await serve('t0ken');
    try {
      const refused = await fetch(`${s.url}/metrics`);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      const ok = await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer t0ken' } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('tdx_http_requests_total');
    } finally {
      await s.close();
    }
  });
});

/** The lines of one metric family in a text exposition (without HELP and TYPE). */
const family = (text: string, name: string): string[] => text.split('\n').filter((l) => l.startsWith(`${name}_`) || l.startsWith(`${name}{`));

describe('metrics off the per-set path', () => {
  it('counts store requests exactly from plain tallies, folded in at each scrape as prom-client would have counted them', async () => {
    const m = new PrometheusMeters({ processMetrics: false });
    const cassandra = m.stores.store('cassandra');
    const kafka = m.stores.store('kafka');
    expect(m.stores.store('cassandra')).toBe(cassandra);
    // the same requests observed by a prom-client histogram and counter, the reference
    const reference = new client.Registry();
    const refCount = new client.Counter({ name: 'tdx_store_requests_total', help: 'x', labelNames: ['store', 'outcome'], registers: [reference] });
    const refLatency = new client.Histogram({ name: 'tdx_store_request_duration_seconds', help: 'x', labelNames: ['store'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers: [reference] });
    const record = (store: string, r: typeof cassandra, seconds: number, ok: boolean): void => {
      r.request(seconds, ok);
      refCount.inc({ store, outcome: ok ? 'ok' : 'error' });
      refLatency.observe({ store }, seconds);
    };
    const latencies = [0, 0.0005, 0.0007, 0.001, 0.003, 0.0101, 0.25, 0.2501, 4.9, 5, 7.5, 120];
    latencies.forEach((s, i) => record('cassandra', cassandra, s, i % 5 !== 0));
    record('kafka', kafka, 0.002, true);
    record('kafka', kafka, 0, false);
    const first = await m.render();
    expect(valueOf(first, 'tdx_store_requests_total{store="cassandra",outcome="ok"}')).toBe(9);
    expect(valueOf(first, 'tdx_store_requests_total{store="cassandra",outcome="error"}')).toBe(3);
    expect(valueOf(first, 'tdx_store_request_duration_seconds_count{store="cassandra"}')).toBe(12);
    expect(valueOf(first, 'tdx_store_request_duration_seconds_bucket{le="0.001",store="cassandra"}')).toBe(4);
    expect(valueOf(first, 'tdx_store_request_duration_seconds_bucket{le="5",store="cassandra"}')).toBe(10);
    expect(valueOf(first, 'tdx_store_request_duration_seconds_bucket{le="+Inf",store="cassandra"}')).toBe(12);
    const expected = await reference.metrics();
    for (const name of ['tdx_store_requests_total', 'tdx_store_request_duration_seconds']) expect(family(first, name).sort()).toEqual(family(expected, name).sort());

    // a second scrape counts what came since, once
    record('cassandra', cassandra, 0.02, true);
    const second = await m.render();
    const again = await m.render();
    expect(valueOf(second, 'tdx_store_requests_total{store="cassandra",outcome="ok"}')).toBe(10);
    expect(valueOf(again, 'tdx_store_requests_total{store="cassandra",outcome="ok"}')).toBe(10);
    expect(valueOf(again, 'tdx_store_request_duration_seconds_count{store="cassandra"}')).toBe(13);
    const expectedAgain = await reference.metrics();
    for (const name of ['tdx_store_requests_total', 'tdx_store_request_duration_seconds']) expect(family(again, name).sort()).toEqual(family(expectedAgain, name).sort());
  });

  it('counts documents once per label set of a batch, and exactly', async () => {
    const m = new PrometheusMeters({ processMetrics: false });
    const entry = (direction: string, partnerKey: string | null, status: string, tx: string) => ({ direction, partnerKey, status, tx });
    const batch = [
      entry('inbound', 'ACME', 'success', '850'),
      entry('inbound', 'ACME', 'success', '850'),
      entry('inbound', 'ACME', 'error', '850'),
      entry('outbound', 'ACME', 'success', '810'),
      entry('inbound', null, 'error', 'none'),
      entry('inbound', 'ACME', 'success', '850'),
      entry('inbound', 'GLOBEX', 'success', '850'),
    ];
    const counts = documentCounts(batch, (e) => e.tx);
    expect(counts).toHaveLength(5);
    expect(counts.reduce((n, c) => n + c.count, 0)).toBe(batch.length);
    let calls = 0;
    for (const c of counts) {
      calls += 1;
      m.business.documents(c.direction, c.partner, c.set, c.status, c.count);
    }
    // a second batch adds to the same series
    for (const c of documentCounts(batch.slice(0, 2), (e) => e.tx)) m.business.documents(c.direction, c.partner, c.set, c.status, c.count);
    expect(calls).toBe(5);
    const text = await m.render();
    expect(valueOf(text, 'tdx_documents_total{direction="inbound",partner="ACME",set="850",status="success"}')).toBe(5);
    expect(valueOf(text, 'tdx_documents_total{direction="inbound",partner="ACME",set="850",status="error"}')).toBe(1);
    expect(valueOf(text, 'tdx_documents_total{direction="outbound",partner="ACME",set="810",status="success"}')).toBe(1);
    expect(valueOf(text, 'tdx_documents_total{direction="inbound",partner="none",set="none",status="error"}')).toBe(1);
    expect(valueOf(text, 'tdx_documents_total{direction="inbound",partner="GLOBEX",set="850",status="success"}')).toBe(1);
  });
});
