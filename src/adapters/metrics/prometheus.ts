/**
 * The metrics port (src/domain/metrics.ts) over prom-client: one registry per process, rendered
 * in the Prometheus text format at `/metrics` (the API's port, or the metrics port of a process
 * without the API; docs/observability.md lists every metric and alert).
 *
 * Cost on the hot path: a consumer's children are bound once when its runner is built and each
 * partition's gauges once when first seen, so counting a batch is a few increments with no
 * allocation; label sets of the other meters are bound on first use and kept (every label value
 * comes from a bounded set). Nothing is counted per set: the consumer meter moves once per
 * batch, documents once per label set and batch (`documentCounts`), and store requests, of
 * which a batch makes several, go into plain numbers per store client (`StoreTally`) that are
 * read into the registry when Prometheus scrapes. Series an alert watches start at 0 where their labels are known in
 * advance, so the first event is an increase. Gauges that need a look at a store (is Cassandra up, how many
 * outbound documents await their 997) are computed when Prometheus scrapes, never on a timer.
 */
import client from 'prom-client';
import type { BusinessMeter, ConsumerMeter, DeliveryMeter, HttpMeter, Meters, StoreMeter, StoreRequests, WebhookMeterOutcome } from '../../domain/metrics.ts';
import { sameSecret } from '../../domain/constant-time.ts';

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** A label set's child, bound on first use and kept. */
function bound<T>(make: (key: string) => T): (key: string) => T {
  const children = new Map<string, T>();
  return (key) => {
    let c = children.get(key);
    if (c === undefined) children.set(key, (c = make(key)));
    return c;
  };
}

const SEP = '\u0001';

/**
 * The requests of one store client, in plain numbers: a request costs two additions and a walk
 * over the bucket bounds, with no label lookup and no call into prom-client. Read into
 * `tdx_store_requests_total` and `tdx_store_request_duration_seconds` at each scrape.
 */
export class StoreTally implements StoreRequests {
  ok = 0;
  error = 0;
  sum = 0;
  /** Requests per bucket (not cumulative); the last is above the highest bound (+Inf). */
  readonly buckets: number[] = new Array<number>(STORE_BUCKETS.length + 1).fill(0);
  /** What the counter has been given so far. */
  private countedOk = 0;
  private countedError = 0;

  request(seconds: number, ok: boolean): void {
    if (ok) this.ok += 1;
    else this.error += 1;
    this.sum += seconds;
    let i = 0;
    while (i < STORE_BUCKETS.length && seconds > STORE_BUCKETS[i]!) i += 1;
    this.buckets[i]! += 1;
  }

  /** The requests since the last call, by outcome (for the counter, at scrape). */
  takeNew(): { ok: number; error: number } {
    const taken = { ok: this.ok - this.countedOk, error: this.error - this.countedError };
    this.countedOk = this.ok;
    this.countedError = this.error;
    return taken;
  }
}

/** A gauge computed when Prometheus scrapes. */
export interface ScrapeCollector {
  readonly name: string;
  /** Longest wait; a collector still running then keeps its last values. */
  readonly timeoutMs: number;
  collect(): Promise<void>;
}

export interface PrometheusMetricsOptions {
  /** Roles this process runs (`tdx_process_role`). */
  readonly roles?: readonly string[];
  /** Process metrics (event-loop lag, heap, GC, CPU): prom-client's default collectors. @default true */
  readonly processMetrics?: boolean;
}

export class PrometheusMeters implements Meters {
  readonly registry = new client.Registry();
  readonly http: HttpMeter;
  readonly delivery: DeliveryMeter;
  readonly business: BusinessMeter;
  readonly stores: StoreMeter;
  private readonly collectors: ScrapeCollector[] = [];
  private readonly pipeline;
  private readonly storeUp: client.Gauge<'store'>;
  private readonly unacknowledged: client.Gauge<'partner'>;

  constructor(opts: PrometheusMetricsOptions = {}) {
    const registers = [this.registry];
    if (opts.processMetrics !== false) client.collectDefaultMetrics({ register: this.registry });
    const roles = new client.Gauge({ name: 'tdx_process_role', help: 'Roles this process runs (1 per role).', labelNames: ['role'], registers });
    for (const r of opts.roles ?? []) roles.set({ role: r }, 1);

    // HTTP
    const requests = new client.Counter({ name: 'tdx_http_requests_total', help: 'HTTP requests answered, by route template, method and status.', labelNames: ['route', 'method', 'status'], registers });
    const latency = new client.Histogram({ name: 'tdx_http_request_duration_seconds', help: 'HTTP request latency, by route template and method.', labelNames: ['route', 'method'], buckets: HTTP_BUCKETS, registers });
    const limited = new client.Counter({ name: 'tdx_http_rate_limited_total', help: 'Requests refused by the rate limit (429), by route template.', labelNames: ['route'], registers });
    const requestChild = bound((k) => {
      const [route, method, status] = k.split(SEP) as [string, string, string];
      return { count: requests.labels(route, method, status), latency: latency.labels(route, method), limited: status === '429' ? limited.labels(route) : undefined };
    });
    this.http = {
      request: (route, method, status, seconds) => {
        const c = requestChild(route + SEP + method + SEP + status);
        c.count.inc();
        c.latency.observe(seconds);
        c.limited?.inc();
      },
    };

    // Pipeline
    this.pipeline = {
      handled: new client.Counter({ name: 'tdx_pipeline_items_handled_total', help: 'Work items handled, by consumer (node service, materializer, feed sequencer, delay tier).', labelNames: ['consumer', 'group'], registers }),
      failed: new client.Counter({ name: 'tdx_pipeline_items_failed_total', help: 'Work items whose handling failed on one attempt (each failed attempt counts).', labelNames: ['consumer', 'group'], registers }),
      retried: new client.Counter({ name: 'tdx_pipeline_items_retried_total', help: 'Work items tried again, by reason: outage (a store or the broker away) or failure.', labelNames: ['consumer', 'group', 'reason'], registers }),
      deadLetters: new client.Counter({ name: 'tdx_pipeline_dead_letters_total', help: 'Messages given up and sent to the dead-letter topic.', labelNames: ['consumer', 'group'], registers }),
      duration: new client.Histogram({ name: 'tdx_pipeline_batch_duration_seconds', help: 'Time one call of a consumer handler took (a batch of work items of one partition).', labelNames: ['consumer'], buckets: BATCH_BUCKETS, registers }),
      batchItems: new client.Counter({ name: 'tdx_pipeline_batches_total', help: 'Handler calls that succeeded.', labelNames: ['consumer'], registers }),
      lag: new client.Gauge({ name: 'tdx_consumer_lag_messages', help: 'Messages of a partition not yet handled by the group, as of its latest fetch.', labelNames: ['consumer', 'group', 'topic', 'partition'], registers }),
      age: new client.Gauge({ name: 'tdx_consumer_oldest_unprocessed_age_seconds', help: 'Age of the oldest message of a partition not yet handled (0 when none waits), as of its latest fetch.', labelNames: ['consumer', 'group', 'topic', 'partition'], registers }),
    };

    // Delivery
    const webhooks = new client.Counter({ name: 'tdx_webhook_attempts_total', help: 'Webhook calls, by outcome (delivered, retry, exhausted, failed) and answer status class.', labelNames: ['outcome', 'status_class'], registers });
    const polls = new client.Counter({ name: 'tdx_sftp_polls_total', help: 'SFTP polls of a connection, by outcome (ok, failed).', labelNames: ['connection', 'outcome'], registers });
    const files = new client.Counter({ name: 'tdx_sftp_files_fetched_total', help: 'Files fetched by SFTP polls, by connection.', labelNames: ['connection'], registers });
    const uploads = new client.Counter({ name: 'tdx_uploads_total', help: 'Uploads of outbound documents, by transport (sftp, as2) and outcome (ok, retry, failed).', labelNames: ['transport', 'outcome'], registers });
    const as2 = new client.Counter({ name: 'tdx_as2_messages_total', help: 'AS2 messages sent (outbound) or received (inbound), by status.', labelNames: ['direction', 'status'], registers });
    const mdns = new client.Counter({ name: 'tdx_as2_mdns_total', help: 'AS2 receipts (MDNs) of messages sent, by mode (sync, async) and disposition.', labelNames: ['mode', 'disposition'], registers });
    const webhookChild = bound((k) => webhooks.labels(...(k.split(SEP) as [string, string])));
    // present at 0 from the start: the first exhausted delivery is an increase the alert sees
    for (const o of ['delivered', 'retry', 'exhausted', 'failed']) for (const c of ['2xx', '3xx', '4xx', '5xx', 'none']) webhookChild(o + SEP + c).inc(0);
    const pollChild = bound((k) => ({ ok: polls.labels(k, 'ok'), failed: polls.labels(k, 'failed'), files: files.labels(k) }));
    const uploadChild = bound((k) => uploads.labels(...(k.split(SEP) as [string, string])));
    const as2Child = bound((k) => as2.labels(...(k.split(SEP) as [string, string])));
    const mdnChild = bound((k) => mdns.labels(...(k.split(SEP) as [string, string])));
    this.delivery = {
      webhook: (outcome: WebhookMeterOutcome, statusClass: string) => webhookChild(outcome + SEP + statusClass).inc(),
      sftpPoll: (connection, ok, n) => {
        const c = pollChild(connection);
        (ok ? c.ok : c.failed).inc();
        if (n > 0) c.files.inc(n);
      },
      upload: (transport, outcome) => uploadChild(transport + SEP + outcome).inc(),
      as2Message: (direction, status) => as2Child(direction + SEP + status).inc(),
      mdn: (mode, disposition) => mdnChild(mode + SEP + disposition).inc(),
    };

    // Business
    const documents = new client.Counter({ name: 'tdx_documents_total', help: 'Documents in and out (new feed entries), by direction, partner key, transaction set and status.', labelNames: ['direction', 'partner', 'set', 'status'], registers });
    const overdue = new client.Counter({ name: 'tdx_acknowledgments_overdue_total', help: 'Outbound documents reported overdue for their acknowledgment, by partner key.', labelNames: ['partner'], registers });
    const feedLag = new client.Gauge({ name: 'tdx_feed_sequencer_lag_seconds', help: 'How long the feed sequencer’s latest batch of requests waited before it was sequenced.', registers });
    this.unacknowledged = new client.Gauge({ name: 'tdx_outbound_unacknowledged', help: 'Outbound documents delivered and still awaiting their 997/999, by partner key (from ClickHouse, at scrape).', labelNames: ['partner'], registers });
    const documentChild = bound((k) => documents.labels(...(k.split(SEP) as [string, string, string, string])));
    const overdueChild = bound((k) => overdue.labels(k));
    this.business = {
      documents: (direction, partner, set, status, count) => documentChild(direction + SEP + partner + SEP + set + SEP + status).inc(count),
      acknowledgmentOverdue: (partner) => overdueChild(partner).inc(),
      feedSequencerLag: (seconds) => feedLag.set(seconds),
    };

    // Stores
    const tallies = new Map<string, StoreTally>();
    new client.Counter({
      name: 'tdx_store_requests_total',
      help: 'Requests to a store client (cassandra, kafka, clickhouse), by outcome (ok, error).',
      labelNames: ['store', 'outcome'],
      registers,
      collect() {
        for (const [store, t] of tallies) {
          const n = t.takeNew();
          this.inc({ store, outcome: 'ok' }, n.ok);
          this.inc({ store, outcome: 'error' }, n.error);
        }
      },
    });
    this.registry.registerMetric(storeLatencyHistogram(tallies) as unknown as client.Metric);
    this.storeUp = new client.Gauge({ name: 'tdx_store_up', help: 'Whether a store or the broker answered this process’s health check at the last scrape (1) or not (0).', labelNames: ['store'], registers });
    this.stores = {
      store: (name) => {
        let t = tallies.get(name);
        if (!t) tallies.set(name, (t = new StoreTally()));
        return t;
      },
    };
  }

  consumer(name: string, group: string): ConsumerMeter {
    const p = this.pipeline;
    const handled = p.handled.labels(name, group);
    const failed = p.failed.labels(name, group);
    const outage = p.retried.labels(name, group, 'outage');
    const failure = p.retried.labels(name, group, 'failure');
    const dead = p.deadLetters.labels(name, group);
    const duration = p.duration.labels(name);
    const batches = p.batchItems.labels(name);
    // every series exists from the start at 0, so that the first dead letter is an increase
    for (const c of [handled, failed, outage, failure, dead, batches]) c.inc(0);
    const partitions = new Map<string, { lag: client.Gauge.Internal<'consumer' | 'group' | 'topic' | 'partition'>; age: client.Gauge.Internal<'consumer' | 'group' | 'topic' | 'partition'> }[]>();
    return {
      handled: (items, seconds) => {
        if (items > 0) handled.inc(items);
        batches.inc();
        duration.observe(seconds);
      },
      failed: (items) => failed.inc(items),
      retried: (items, reason) => (reason === 'outage' ? outage : failure).inc(items),
      deadLettered: () => dead.inc(),
      position: (topic, partition, lag, age) => {
        let byPartition = partitions.get(topic);
        if (!byPartition) partitions.set(topic, (byPartition = []));
        let g = byPartition[partition];
        if (!g) {
          const part = String(partition);
          g = byPartition[partition] = { lag: p.lag.labels(name, group, topic, part), age: p.age.labels(name, group, topic, part) };
        }
        g.lag.set(lag);
        g.age.set(age);
      },
    };
  }

  /** Computes a gauge at each scrape (store health, unacknowledged documents). */
  addCollector(c: ScrapeCollector): void {
    this.collectors.push(c);
  }

  /** Health checks of the stores this process opened, run at each scrape into `tdx_store_up`. */
  storeHealth(checks: () => readonly { readonly name: string; check(): Promise<void> }[], timeoutMs = 2_000): void {
    this.addCollector({
      name: 'store-up',
      timeoutMs,
      collect: async () => {
        await Promise.all(
          checks().map(async (c) => {
            const up = await withTimeout(c.check(), timeoutMs).then(
              () => 1,
              () => 0,
            );
            this.storeUp.set({ store: c.name }, up);
          }),
        );
      },
    });
  }

  /** The unacknowledged gauge's source (a ClickHouse count by partner), looked at no more often than every `minIntervalMs`. */
  unacknowledgedFrom(read: () => Promise<readonly { partner: string; count: number }[]>, minIntervalMs = 15_000): void {
    let lastAt = 0;
    this.addCollector({
      name: 'outbound-unacknowledged',
      timeoutMs: 5_000,
      collect: async () => {
        if (Date.now() - lastAt < minIntervalMs) return;
        lastAt = Date.now();
        const rows = await read();
        this.unacknowledged.reset();
        for (const r of rows) this.unacknowledged.set({ partner: r.partner }, r.count);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition, after the scrape-time collectors ran (or timed out). */
  async render(): Promise<string> {
    await Promise.all(this.collectors.map((c) => withTimeout(c.collect(), c.timeoutMs).catch(() => undefined)));
    return this.registry.metrics();
  }
}

/** `tdx_store_request_duration_seconds`, read from the stores' tallies when scraped. */
function storeLatencyHistogram(tallies: ReadonlyMap<string, StoreTally>) {
  const name = 'tdx_store_request_duration_seconds';
  const help = 'Latency of requests to a store client.';
  const get = () => {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const [store, t] of tallies) {
      let cumulative = 0;
      STORE_BUCKETS.forEach((le, i) => {
        cumulative += t.buckets[i]!;
        values.push({ labels: { le, store }, value: cumulative, metricName: `${name}_bucket` });
      });
      const count = cumulative + t.buckets[STORE_BUCKETS.length]!;
      values.push({ labels: { le: '+Inf', store }, value: count, metricName: `${name}_bucket` });
      values.push({ labels: { store }, value: t.sum, metricName: `${name}_sum` });
      values.push({ labels: { store }, value: count, metricName: `${name}_count` });
    }
    return { name, help, type: 'histogram', aggregator: 'sum', values };
  };
  return { name, help, type: 'histogram', aggregator: 'sum', get, reset: () => undefined };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}

/** Whether an `Authorization` header carries the metrics bearer token (always true when none is configured). */
export function metricsAuthorized(token: string | undefined, authorization: string | undefined): boolean {
  if (token === undefined) return true;
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  if (!m) return false;
  return sameSecret(m[1]!.trim(), token);
}
