/**
 * The connections of one process, opened once on first use by whichever roles need them and
 * closed once, in reverse order, at shutdown: Kafka (client, producers, schema ids), Cassandra,
 * ClickHouse, the metrics port and the span exporter. `checks()` lists the health checks of what
 * was opened; GET /readyz runs them. `metrics` is the process's metrics port (Prometheus,
 * unless `TDX_METRICS=off`); every store client opened here reports its requests to it.
 *
 * Roles own these connections and nothing else: the stores and transports over them are built
 * by the composition root (src/compose.ts), whose `Resources` adds them to these connections,
 * and reach roles as ports (`Resources` below, the factories of src/service.ts).
 */
import type { Kafka } from 'kafkajs';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { BatchingProducer, createKafka, kafkaHealthCheck, type HealthCheck } from '../adapters/kafka/client.ts';
import { WireRegistry, createSchemaRegistry, registryHealthCheck } from '../adapters/kafka/registry.ts';
import { cassandraHealthCheck, createCassandraClient, type CassandraClient } from '../adapters/cassandra/client.ts';
import { clickhouseHealthCheck, createClickHouse, type ClickHouseHandle } from '../adapters/clickhouse/client.ts';
import { NO_METERS, type Meters } from '../domain/metrics.ts';
import type {
  AcknowledgmentDeadlineStore,
  ArtifactStore,
  ControlNumberStore,
  FeedStore,
  HeldWorkStore,
  ReplayLedger,
  ResultStore,
  SandboxReceiptStore,
  SchedulerLeaseStore,
  SecretReader,
  TransactionResultsReader,
  TransactionsByIds,
  TransactionStore,
} from '../domain/processing-ports.ts';
import type { StepLedger } from '../nodes/ports.ts';
import { PrometheusMeters } from '../adapters/metrics/prometheus.ts';
import { cassandraTracker, instrumentKafka, timedClickHouse } from '../adapters/metrics/stores.ts';
import type { OtlpTracer } from '../adapters/tracing/otlp.ts';

/** The processing stores as ports, built once per process by src/compose.ts. */
export interface StorePorts {
  readonly artifacts: ArtifactStore;
  readonly results: ResultStore & TransactionResultsReader;
  readonly transactions: TransactionStore & TransactionsByIds;
  readonly controlNumbers: ControlNumberStore;
  readonly feed: FeedStore;
  readonly ledger: StepLedger;
  readonly replays: ReplayLedger;
  readonly secrets: SecretReader;
  readonly sandboxReceipts: SandboxReceiptStore;
  readonly deadlines: AcknowledgmentDeadlineStore;
  readonly leases: SchedulerLeaseStore;
  readonly held: HeldWorkStore;
}

/** What roles are given: the process's connections and the stores composed over them (src/compose.ts). */
export interface Resources extends Connections {
  /** The processing stores, built once per process. */
  stores(): Promise<StorePorts>;
}

export class Connections {
  private readonly opened = new Map<string, Promise<unknown>>();
  private readonly closers: { name: string; close: () => Promise<void> }[] = [];
  private readonly healthChecks: HealthCheck[] = [];
  private readonly owned = new Map<string, unknown>();
  private prom: PrometheusMeters | null | undefined;

  constructor(
    readonly config: Config,
    readonly logger: Logger,
    /** Roles the process runs (the `tdx_process_role` metric). */
    readonly roles: readonly string[] = [],
  ) {}

  /** The Prometheus registry of this process, made on first use; undefined with `TDX_METRICS=off`. */
  prometheus(): PrometheusMeters | undefined {
    if (this.prom === undefined) {
      if (this.config.metrics.enabled) {
        this.prom = new PrometheusMeters({ roles: this.roles });
        this.prom.storeHealth(() => this.healthChecks);
      } else {
        this.prom = null;
      }
    }
    return this.prom ?? undefined;
  }

  /**
   * The span exporter when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; undefined otherwise, and then
   * the tracing module is never even loaded.
   */
  tracer(): Promise<OtlpTracer | undefined> {
    return this.once('tracer', async () => {
      const endpoint = this.config.tracing.otlpEndpoint;
      if (!endpoint) return undefined;
      const { OtlpTracer } = await import('../adapters/tracing/otlp.ts');
      const tracer = new OtlpTracer({ endpoint, serviceName: this.config.tracing.serviceName, logger: this.logger.child({ component: 'tracing' }) });
      this.closers.push({ name: 'tracer', close: () => tracer.close() });
      return tracer;
    });
  }

  /** The metrics port: Prometheus, or nothing counted with `TDX_METRICS=off`. */
  get metrics(): Meters {
    return this.prometheus() ?? NO_METERS;
  }

  protected once<T>(name: string, open: () => Promise<T>): Promise<T> {
    let p = this.opened.get(name) as Promise<T> | undefined;
    if (!p) {
      p = open();
      this.opened.set(name, p);
    }
    return p;
  }

  kafka(): Promise<Kafka> {
    return this.once('kafka', () => {
      const kafka = createKafka(this.config, this.logger);
      this.healthChecks.push(kafkaHealthCheck(kafka));
      return Promise.resolve(kafka);
    });
  }

  producer(): Promise<BatchingProducer> {
    return this.once('producer', async () => {
      const producer = BatchingProducer.create(await this.kafka(), this.config);
      producer.watch((p) => instrumentKafka(p, this.metrics.stores));
      await producer.connect();
      this.closers.push({ name: 'kafka-producer', close: () => producer.close() });
      return producer;
    });
  }

  /** The producer of work an HTTP request answers for: every send settles within seconds (BatchingProducer.createBounded). */
  requestProducer(): Promise<BatchingProducer> {
    return this.once('request-producer', async () => {
      const producer = BatchingProducer.createBounded(this.config, this.logger);
      producer.watch((p) => instrumentKafka(p, this.metrics.stores));
      await producer.connect();
      this.closers.push({ name: 'kafka-request-producer', close: () => producer.close() });
      return producer;
    });
  }

  /** Schema ids of every topic, resolved against the registry (requires `tdx migrate`). */
  wire(): Promise<WireRegistry> {
    return this.once('wire', async () => {
      const wire = new WireRegistry(createSchemaRegistry(this.config), this.config.kafka.topicPrefix);
      await wire.resolve();
      this.healthChecks.push(registryHealthCheck(this.config));
      return wire;
    });
  }

  cassandra(): Promise<CassandraClient> {
    return this.once('cassandra', async () => {
      const client = createCassandraClient(this.config, this.logger, { requestTracker: cassandraTracker(this.metrics.stores) });
      await client.connect();
      this.closers.push({ name: 'cassandra', close: () => client.shutdown() });
      this.healthChecks.push(cassandraHealthCheck(client));
      return client;
    });
  }

  clickhouse(): Promise<ClickHouseHandle> {
    return this.once('clickhouse', () => {
      const handle = timedClickHouse(createClickHouse(this.config), this.metrics.stores);
      this.closers.push({ name: 'clickhouse', close: () => handle.close() });
      this.healthChecks.push(clickhouseHealthCheck(handle));
      return Promise.resolve(handle);
    });
  }

  /** A resource built once per process by the composition root and closed with the others. */
  own<T>(name: string, open: () => T, close: (value: T) => Promise<void> | void): T {
    let v = this.owned.get(name) as T | undefined;
    if (v === undefined) {
      v = open();
      this.owned.set(name, v);
      const held = v;
      this.closers.push({ name, close: async () => close(held) });
    }
    return v;
  }

  /** Health checks of every resource opened so far. */
  checks(): readonly HealthCheck[] {
    return this.healthChecks;
  }

  /** Closes what was opened, newest first; one failure does not stop the others. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.opened.values()]);
    for (const c of this.closers.splice(0).reverse()) {
      try {
        await c.close();
      } catch (err) {
        this.logger.warn({ event: 'process:close-failed', resource: c.name, err }, 'resource did not close cleanly');
      }
    }
  }
}
