/**
 * Store client instrumentation for the metrics port: request latency and failures of Cassandra
 * (the driver's request tracker), Kafka (the clients' request events) and ClickHouse (a timed
 * view of the client). Each binds its store's recorder once; a request then costs a few
 * additions to plain numbers (src/adapters/metrics/prometheus.ts, `StoreTally`).
 */
import cassandra from 'cassandra-driver';
import type { Producer } from 'kafkajs';
import type { ClickHouseHandle } from '../clickhouse/client.ts';
import type { StoreMeter } from '../../domain/metrics.ts';

const seconds = (hr: readonly number[]): number => (hr[0] ?? 0) + (hr[1] ?? 0) / 1e9;

/**
 * A cassandra-driver request tracker counting every request (`store="cassandra"`). The driver
 * accepts only instances of its RequestTracker class (typed as an interface), hence the prototype.
 */
export function cassandraTracker(meter: StoreMeter): cassandra.tracker.RequestTracker {
  const requests = meter.store('cassandra');
  const base = (cassandra.tracker as unknown as { RequestTracker: { prototype: object } }).RequestTracker.prototype;
  const tracker: cassandra.tracker.RequestTracker = {
    onSuccess: (_host, _query, _params, _options, _reqLength, _resLength, latency) => requests.request(seconds(latency), true),
    onError: (_host, _query, _params, _options, _reqLength, _err, latency) => requests.request(seconds(latency), false),
    shutdown: () => undefined,
  };
  return Object.assign(Object.create(base) as cassandra.tracker.RequestTracker, tracker);
}

/** Counts a kafkajs producer's broker requests and request timeouts (`store="kafka"`). */
export function instrumentKafka(producer: Producer, meter: StoreMeter): void {
  const requests = meter.store('kafka');
  producer.on(producer.events.REQUEST, (e) => requests.request(e.payload.duration / 1000, true));
  producer.on(producer.events.REQUEST_TIMEOUT, () => requests.request(0, false));
}

const TIMED = new Set<PropertyKey>(['query', 'insert', 'command', 'exec']);

/** The same handle, its client's queries, inserts and commands timed (`store="clickhouse"`). */
export function timedClickHouse(handle: ClickHouseHandle, meter: StoreMeter): ClickHouseHandle {
  const inner = handle.client;
  const requests = meter.store('clickhouse');
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (!TIMED.has(prop)) return fn.bind(target);
      return (...args: unknown[]) => {
        const started = performance.now();
        const done = (ok: boolean) => requests.request((performance.now() - started) / 1000, ok);
        const p = fn.apply(target, args) as Promise<unknown>;
        p.then(
          () => done(true),
          () => done(false),
        );
        return p;
      };
    },
  });
  return {
    client,
    database: handle.database,
    embedded: handle.embedded,
    close: () => handle.close(),
  };
}
