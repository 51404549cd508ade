/**
 * The metrics port: what the service counts and times, as narrow interfaces. The Prometheus
 * implementation lives in src/adapters/metrics (prom-client); nothing inside the domain, the
 * wire codecs or the node services imports a metrics library. `NO_METERS` counts nothing (tests,
 * tools, and a process with metrics turned off).
 *
 * Every label value passed here must come from a bounded set: names from the configuration
 * (consumer, route template, connection, partner key, store), fixed words (outcome, status
 * class) or catalog codes. Never a trace, transaction, document or message id.
 * docs/observability.md lists every metric.
 */

/** One consumer group of one process (a node service, the materializer, the feed sequencer, a delay tier). */
export interface ConsumerMeter {
  /** `items` work items handled in one call of the handler, which took `seconds`. */
  handled(items: number, seconds: number): void;
  /** `items` work items whose handling failed on one attempt (retried or not). */
  failed(items: number): void;
  /** `items` work items tried again: `outage` when a store or the broker was away, `failure` otherwise. */
  retried(items: number, reason: 'outage' | 'failure'): void;
  /** One message given up and sent to the dead-letter topic. */
  deadLettered(): void;
  /**
   * Where one partition stands: messages not yet handled up to the high watermark, and the age
   * in seconds of the oldest of them (0 when none is waiting).
   */
  position(topic: string, partition: number, lag: number, oldestAgeSeconds: number): void;
}

export interface HttpMeter {
  /** One answered request: route template (never the raw path), method, status. */
  request(route: string, method: string, status: number, seconds: number): void;
}

export type WebhookMeterOutcome = 'delivered' | 'retry' | 'exhausted' | 'failed';

export interface DeliveryMeter {
  /** One webhook call. `statusClass`: `2xx`..`5xx`, or `none` when no answer came. */
  webhook(outcome: WebhookMeterOutcome, statusClass: string): void;
  /** One SFTP poll of a connection (by its configured name), with the files it fetched. */
  sftpPoll(connection: string, ok: boolean, files: number): void;
  /** One upload of an outbound document. */
  upload(transport: 'sftp' | 'as2', outcome: 'ok' | 'retry' | 'failed'): void;
  /** One AS2 message sent or received, by what came of it (`processed`, `failed`, `pending`). */
  as2Message(direction: 'inbound' | 'outbound', status: string): void;
  /** One AS2 receipt (MDN) received or settled, by disposition (`processed`, `failed`, `timeout`). */
  mdn(mode: 'sync' | 'async', disposition: string): void;
}

export interface BusinessMeter {
  /**
   * `count` new feed entries (documents in or out) of one partner key, transaction set and
   * status: the feed sequencer counts each label set once per batch, not once per entry.
   */
  documents(direction: string, partner: string, set: string, status: string, count: number): void;
  /** One outbound document reported overdue for its acknowledgment. */
  acknowledgmentOverdue(partner: string): void;
  /** How long the feed sequencer's newest batch waited between request and sequencing. */
  feedSequencerLag(seconds: number): void;
}

export interface StoreMeter {
  /** The requests of one store client (`cassandra`, `kafka`, `clickhouse`); call once per client and keep it. */
  store(name: string): StoreRequests;
}

/** Records the requests of one store client; cheap enough for every request of the hot path. */
export interface StoreRequests {
  /** One request, which took `seconds`. */
  request(seconds: number, ok: boolean): void;
}

export interface Meters {
  /** The meter of one consumer group; call once per runner and keep it. */
  consumer(name: string, group: string): ConsumerMeter;
  readonly http: HttpMeter;
  readonly delivery: DeliveryMeter;
  readonly business: BusinessMeter;
  readonly stores: StoreMeter;
}

const nothing = (): void => undefined;

export const NO_CONSUMER_METER: ConsumerMeter = { handled: nothing, failed: nothing, retried: nothing, deadLettered: nothing, position: nothing };

export const NO_METERS: Meters = {
  consumer: () => NO_CONSUMER_METER,
  http: { request: nothing },
  delivery: { webhook: nothing, sftpPoll: nothing, upload: nothing, as2Message: nothing, mdn: nothing },
  business: { documents: nothing, acknowledgmentOverdue: nothing, feedSequencerLag: nothing },
  stores: { store: () => ({ request: nothing }) },
};

/** `2xx`..`5xx` of an HTTP status, `none` without one. */
export function statusClass(status: number | null | undefined): string {
  if (status === null || status === undefined || !Number.isFinite(status) || status < 100 || status > 599) return 'none';
  return `${Math.floor(status / 100)}xx`;
}

/** One label set of `tdx_documents_total`, and how many of a batch's new feed entries carry it. */
export interface DocumentCount {
  readonly direction: string;
  readonly partner: string;
  readonly set: string;
  readonly status: string;
  count: number;
}

/**
 * A batch's new feed entries grouped by label set (partner key `none` when empty), so that the
 * metric moves once per label set and batch rather than once per entry.
 */
export function documentCounts<E extends { readonly direction: string; readonly partnerKey: string | null; readonly status: string }>(entries: readonly E[], setOf: (e: E) => string): DocumentCount[] {
  const byLabels = new Map<string, DocumentCount>();
  for (const e of entries) {
    const partner = e.partnerKey || 'none';
    const set = setOf(e);
    const key = `${e.direction}\u0001${partner}\u0001${set}\u0001${e.status}`;
    const c = byLabels.get(key);
    if (c) c.count += 1;
    else byLabels.set(key, { direction: e.direction, partner, set, status: e.status, count: 1 });
  }
  return [...byLabels.values()];
}
