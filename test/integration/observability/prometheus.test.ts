/**
 * Metrics end to end: a real Prometheus server (Debian's `prometheus` package) scrapes the
 * running service every second and evaluates the project's alert rules
 * (deploy/observability/alerts.yml), while documents go through the pipeline: one delivered to
 * its webhook, one whose webhook keeps answering 503, and one that always fails in the mapping
 * step (the node is wrapped for the test) and ends in the dead-letter topic. Every check asks
 * Prometheus's own HTTP query API, so it covers the exposition format, the labels and the rules
 * together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { statusOf } from '../../../src/domain/records.ts';
import type { ConfigDocument, PartnerDoc } from '../../../src/domain/configuration.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { startPrometheus, type PromServer } from '../helpers/prometheus.ts';
import { interchange, po850, poisonedMappingParts, startPipeline, type Pipeline } from '../pipeline/support.ts';

const SECRET = 'whsec_dGR4LW9ic2VydmFiaWxpdHktdGVzdC1zZWNyZXQtMDE=';
const RULES = fileURLToPath(new URL('../../../deploy/observability/alerts.yml', import.meta.url));
const PARTNERS = ['OK', 'DOWN'] as const;
const path = (key: string): string => `/in/${key.toLowerCase()}`;

function doc(base: string): ConfigDocument {
  const partner = (key: string): PartnerDoc => ({
    key,
    name: `${key} Inc`,
    deliveryMethod: 'webhook',
    envelopes: { internal: 'us', external: 'them' },
    webhooks: { inbound: `in-${key.toLowerCase()}`, error: 'errors' },
    transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
  });
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    webhooks: [
      ...PARTNERS.map((k) => ({ name: `in-${k.toLowerCase()}`, kind: 'standard' as const, url: `${base}${path(k)}`, contentType: 'application/json', signingSecret: SECRET })),
      { name: 'errors', kind: 'standard' as const, url: `${base}/errors`, contentType: 'application/json', signingSecret: SECRET },
    ],
    implementations: [{ name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: PARTNERS.map(partner),
  };
}

let p: Pipeline;
let rx: Receiver;
let prom: PromServer;

beforeAll(async () => {
  rx = await startReceiver(SECRET);
  rx.script(path('DOWN'), [503]);
  p = await startPipeline(doc(rx.url), {
    // every step through its stage topic, so each node service's consumer series moves
    env: { TDX_CONSUMER_ATTEMPTS: '2', TDX_CONSUMER_RETRY_MIN_MS: '50', TDX_CONSUMER_RETRY_MAX_MS: '200', TDX_INLINE_STEPS: 'off' },
    // test interchanges (ISA15 T) always fail in the mapping step
    parts: poisonedMappingParts(() => new TypeError('always fails')),
    sharedKeyspace: true,
  });
  prom = await startPrometheus({ targets: [new URL(p.url).host], ruleFiles: [RULES] });
}, 240_000);

afterAll(async () => {
  await prom?.stop();
  await p?.stop();
  await rx?.close();
});

/** Waits until Prometheus answers at least `min` for `expr` (summed over its series). */
const atLeast = (expr: string, min: number, timeoutMs = 30_000): Promise<number> =>
  eventually(async () => {
    const v = await prom.sum(expr);
    return v >= min ? v : undefined;
  }, timeoutMs, `${expr} >= ${min}`);

describe('Prometheus scraping the service', () => {
  it('sees the documents, the failure, the failing webhook and the stores move', async () => {
    await atLeast('up{job="tdx"}', 1);
    const before = {
      accepted: await prom.sum('tdx_http_requests_total{route="/platform/partners/:key/edi",method="POST",status="202"}'),
      split: await prom.sum('tdx_pipeline_items_handled_total{consumer="node:x12_split"}'),
      dead: await prom.sum('tdx_pipeline_dead_letters_total{consumer="node:mapping"}'),
    };
    expect(before).toEqual({ accepted: 0, split: 0, dead: 0 });
    // nothing is labelled by trace, transaction or document
    expect(await prom.query('count by (__name__) ({job="tdx", traceGuid=~".+"})')).toEqual([]);

    let control = 500;
    const submit = async (key: string, po: string, usage: 'P' | 'T' = 'P'): Promise<string> => {
      const r = await p.submitEdi(key, interchange({ control: ++control, usage, groups: [{ sets: [po850(po)] }] }));
      expect(r.status).toBe(202);
      return r.body['traceGuid'] as string;
    };
    const ok = await submit('OK', 'PO-METRICS-OK');
    const down = await submit('DOWN', 'PO-METRICS-DOWN');
    const poison = await submit('OK', 'PO-METRICS-POISON', 'T');

    const [delivered] = await p.settled(ok, 1);
    expect(statusOf(delivered!)).toBe('delivered');
    const [failed] = await p.settled(poison, 1);
    expect(statusOf(failed!)).toBe('error');
    await rx.waitFor(path('DOWN'), 2, 30_000);
    expect(down).toBeTruthy();

    // HTTP: by route template, method and status, with a latency histogram
    expect(await atLeast('tdx_http_requests_total{route="/platform/partners/:key/edi",method="POST",status="202"}', 3)).toBe(3);
    await atLeast('tdx_http_request_duration_seconds_count{route="/platform/partners/:key/edi",method="POST"}', 3);
    // the pipeline: items handled per node service, step time, the poison item's failures, retry and dead letter
    await atLeast('tdx_pipeline_items_handled_total{consumer="node:x12_split"}', 3);
    await atLeast('tdx_pipeline_items_handled_total{consumer="node:webhook"}', 2);
    await atLeast('tdx_pipeline_batch_duration_seconds_count{consumer="node:validation"}', 1);
    await atLeast('tdx_pipeline_items_failed_total{consumer="node:mapping"}', 2);
    await atLeast('tdx_pipeline_items_retried_total{consumer="node:mapping",reason="failure"}', 1);
    expect(await atLeast('tdx_pipeline_dead_letters_total{consumer="node:mapping"}', 1)).toBe(1);
    expect(await prom.sum('tdx_pipeline_dead_letters_total{consumer!="node:mapping"}')).toBe(0);
    const lag = await prom.query('tdx_consumer_lag_messages{consumer="node:mapping"}');
    expect(lag.length).toBeGreaterThan(0);
    expect(lag[0]!.metric).toMatchObject({ group: 'node.mapping', topic: 'stage.mapping', partition: '0' });
    await atLeast('count(tdx_consumer_oldest_unprocessed_age_seconds{consumer="node:x12_split"})', 1);
    // delivery: the webhook that works and the one that keeps failing
    await atLeast('tdx_webhook_attempts_total{outcome="delivered",status_class="2xx"}', 1);
    await atLeast('tdx_webhook_attempts_total{outcome="retry",status_class="5xx"}', 2);
    expect(await prom.sum('tdx_webhook_attempts_total{outcome="exhausted"}')).toBe(0);
    // business: documents by partner and set, in and in error
    await atLeast('tdx_documents_total{partner="OK",set="850",status="success"}', 1);
    await atLeast('tdx_documents_total{status="error"}', 1);
    // stores: up, with requests counted and timed
    for (const store of ['cassandra', 'kafka', 'clickhouse', 'schema-registry']) expect(await atLeast(`tdx_store_up{store="${store}"}`, 1)).toBe(1);
    for (const store of ['cassandra', 'kafka', 'clickhouse']) await atLeast(`tdx_store_requests_total{store="${store}",outcome="ok"}`, 1);
    await atLeast('tdx_store_request_duration_seconds_count{store="cassandra"}', 1);
    // the process itself
    await atLeast('nodejs_heap_size_used_bytes', 1);
    await atLeast('nodejs_eventloop_lag_seconds >= 0', 0);
    // and the project's rules: the dead letter fires TdxDeadLetters, nothing else is firing
    await atLeast('ALERTS{alertname="TdxDeadLetters",alertstate="firing",consumer="node:mapping"}', 1);
    const firing = await prom.query('ALERTS{alertstate="firing"}');
    expect(firing.map((a) => a.metric['alertname'])).toEqual(['TdxDeadLetters']);
  });
});
