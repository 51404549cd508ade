/**
 * The shared resources of one process, opened once on first use by whichever roles need them
 * and closed once, in reverse order, at shutdown. `checks()` lists the health checks of what
 * was opened; GET /readyz runs them. `metrics` is the process's metrics port (Prometheus,
 * unless `TDX_METRICS=off`); every store client opened here reports its requests to it.
 */
import { CassandraHeldWorkStore } from '../adapters/cassandra/held-work-store.ts';
import type { Kafka } from 'kafkajs';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { BatchingProducer, createKafka, kafkaHealthCheck, type HealthCheck } from '../adapters/kafka/client.ts';
import { WireRegistry, createSchemaRegistry, registryHealthCheck } from '../adapters/kafka/registry.ts';
import { cassandraHealthCheck, createCassandraClient, type CassandraClient } from '../adapters/cassandra/client.ts';
import { clickhouseHealthCheck, createClickHouse, type ClickHouseHandle } from '../adapters/clickhouse/client.ts';
import {
  CassandraArtifactStore,
  CassandraControlNumbers,
  CassandraFeedStore,
  CassandraReplayLedger,
  CassandraResultStore,
  CassandraSandboxReceipts,
  CassandraSecretReader,
  CassandraStepLedger,
  CassandraTransactionStore,
} from '../adapters/cassandra/processing-store.ts';
import { verifySecretKeys } from '../adapters/cassandra/secret-store.ts';
import { CassandraAcknowledgmentDeadlines, CassandraSchedulerLeases } from '../adapters/cassandra/outbound-store.ts';
import { NO_METERS, type Meters } from '../domain/metrics.ts';
import { PrometheusMeters } from '../adapters/metrics/prometheus.ts';
import { cassandraTracker, instrumentKafka, timedClickHouse } from '../adapters/metrics/stores.ts';
import type { OtlpTracer } from '../adapters/tracing/otlp.ts';

/** The Cassandra stores of processing, built once per process. */
export interface CassandraStores {
  readonly artifacts: CassandraArtifactStore;
  readonly results: CassandraResultStore;
  readonly transactions: CassandraTransactionStore;
  readonly controlNumbers: CassandraControlNumbers;
  readonly feed: CassandraFeedStore;
  readonly ledger: CassandraStepLedger;
  readonly replays: CassandraReplayLedger;
  readonly secrets: CassandraSecretReader;
  readonly sandboxReceipts: CassandraSandboxReceipts;
  readonly deadlines: CassandraAcknowledgmentDeadlines;
  readonly leases: CassandraSchedulerLeases;
  readonly held: CassandraHeldWorkStore;
}

export class Resources {
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

  private once<T>(name: string, open: () => Promise<T>): Promise<T> {
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

  /**
   * The start-up check of the operator keys (docs/secrets.md): every key that sealed secrets in
   * this keyspace is configured and is the same key. Throws `config_invalid` naming the setting.
   */
  async verifySecretKeys(): Promise<void> {
    const ring = this.config.secrets.keyring;
    const { keyIds } = await verifySecretKeys(await this.cassandra(), ring);
    this.logger.info({ event: 'secrets:keys-checked', activeKey: ring.active, configured: ring.ids, stored: keyIds }, 'operator keys checked');
  }

  /** The processing stores over this process's Cassandra client. */
  stores(): Promise<CassandraStores> {
    return this.once('stores', async () => {
      const c = await this.cassandra();
      // records expire R after their own createdAt, whenever their cells are written (docs/retention.md)
      const retention = { retentionSeconds: this.config.cassandra.retentionSeconds };
      return {
        artifacts: new CassandraArtifactStore(c, retention),
        results: new CassandraResultStore(c, retention),
        transactions: new CassandraTransactionStore(c, retention),
        controlNumbers: new CassandraControlNumbers(c),
        feed: new CassandraFeedStore(c, retention),
        ledger: new CassandraStepLedger(c),
        replays: new CassandraReplayLedger(c),
        secrets: new CassandraSecretReader(c, this.config.secrets.keyring),
        sandboxReceipts: new CassandraSandboxReceipts(c),
        deadlines: new CassandraAcknowledgmentDeadlines(c),
        leases: new CassandraSchedulerLeases(c),
        held: new CassandraHeldWorkStore(c),
      };
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
