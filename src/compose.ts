/**
 * The composition root of ports: the one module that builds adapters (stores over Cassandra and
 * ClickHouse, emitters over Kafka, the SFTP, webhook, AS2 and mapping transports) and bundles
 * them into the typed ports the layers below take (src/nodes/ports.ts `NodeDeps`, the /platform
 * router's `PlatformDeps`, the AS2 routes' `As2RouteDeps`, the scheduler jobs' options). Each
 * bundle is built once per process, over the process's connections (src/roles/resources.ts):
 * `CassandraConfigReadStore`, for one, exists once and serves the node view, the API and the
 * AS2 routes alike. src/service.ts hands these bundles to the roles it builds; http/ constructs
 * no adapter and roles only the connections they own (ESLint keeps it so, docs/architecture.md).
 */
import { hostname } from 'node:os';
import type { Client } from 'cassandra-driver';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import { Connections, type Resources as RoleResources } from './roles/resources.ts';
import { CassandraArtifactStore } from './adapters/cassandra/artifact-store.ts';
import { CassandraControlNumbers } from './adapters/cassandra/control-numbers.ts';
import { CassandraReplayLedger } from './adapters/cassandra/replay-ledger.ts';
import { CassandraResultStore } from './adapters/cassandra/result-store.ts';
import { CassandraSandboxReceipts } from './adapters/cassandra/sandbox-receipts.ts';
import { CassandraStepLedger } from './adapters/cassandra/step-ledger.ts';
import { CassandraTransactionStore } from './adapters/cassandra/transaction-store.ts';
import { CassandraFeedStore } from './adapters/cassandra/feed-store.ts';
import { CassandraHeldWorkStore } from './adapters/cassandra/held-work-store.ts';
import { CassandraAcknowledgmentDeadlines } from './adapters/cassandra/outbound-store.ts';
import { CassandraLeaseStore } from './adapters/cassandra/lease-store.ts';
import { CassandraSecretReader, verifySecretKeys } from './adapters/cassandra/secret-store.ts';
import { CassandraConfigReadStore } from './adapters/cassandra/config-store.ts';
import { CassandraOrganizationStore } from './adapters/cassandra/organization-store.ts';
import { CassandraRateLimitStore } from './adapters/cassandra/rate-limit-store.ts';
import { CassandraIdempotencyStore, CassandraRecoveryStore } from './adapters/cassandra/recovery-store.ts';
import { CassandraSftpPollStore } from './adapters/cassandra/sftp-poll-store.ts';
import { CassandraAs2AwaitedMdns, CassandraAs2Directory, CassandraAs2ReceivedMessages } from './adapters/cassandra/as2-store.ts';
import { ClickHouseRecordLists } from './adapters/clickhouse/records-store.ts';
import { WireEmitter } from './adapters/kafka/emitter.ts';
import { HoldingSender } from './adapters/kafka/holding-sender.ts';
import { SftpClient } from './adapters/sftp/index.ts';
import { ClientSftpUploader } from './adapters/sftp/uploader.ts';
import { sendWebhook } from './adapters/webhook/index.ts';
import { createMappingEngine } from './adapters/mapping/worker-pool.ts';
import { As2PipelineTransport } from './adapters/as2/pipeline.ts';
import { meteredAs2, meteredAs2Completion, meteredAs2Received, meteredPollStates, meteredSftpUploads, meteredWebhooks } from './adapters/metrics/delivery.ts';
import type { ConfigReadStore } from './domain/config-ports.ts';
import type { As2ReceiptOutcome } from './domain/as2-delivery.ts';
import { x12ImplementationEngine } from './domain/x12-implementation-engine.ts';
import { CachedConfigView } from './nodes/config-view.ts';
import { InlineRegistry } from './nodes/inline.ts';
import type { NodeDeps } from './nodes/ports.ts';
import { completeAwaitedDelivery, noteOnAwaitedDelivery } from './nodes/as2_send/receipts.ts';
import { SftpPoller } from './nodes/sftp_fetch/poller.ts';
import type { StageMessage } from './wire/stage.v1.ts';
import { createPlatformRouter, type PlatformDeps, type PlatformRouter } from './http/platform/router.ts';
import type { RecordsDeps } from './http/platform/records.ts';
import { RecoveryRunner } from './http/platform/recovery.ts';
import type { As2RouteDeps } from './http/as2/routes.ts';

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
  readonly leases: CassandraLeaseStore;
  readonly held: CassandraHeldWorkStore;
}

/** A process's connections with the processing stores composed over them (what main.ts opens and roles are given). */
export class Resources extends Connections implements RoleResources {
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
        leases: new CassandraLeaseStore(c),
        held: new CassandraHeldWorkStore(c),
      };
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
}

/** Bundles built once per process: one map of them per connections object. */
const built = new WeakMap<Connections, Map<string, unknown>>();

function once<T>(r: Connections, name: string, make: () => T): T {
  let m = built.get(r);
  if (!m) built.set(r, (m = new Map<string, unknown>()));
  if (!m.has(name)) m.set(name, make());
  return m.get(name) as T;
}

/** The configuration reads of this process (one `CassandraConfigReadStore`: node view, API, AS2 routes). */
export function configReads(r: RoleResources): Promise<ConfigReadStore> {
  return once(r, 'config-reads', async () => new CassandraConfigReadStore(await r.cassandra()));
}

/** The AS2 stores (connection directory, received message ids, awaited receipts), once per process. */
function as2Stores(r: RoleResources): Promise<{ directory: CassandraAs2Directory; received: CassandraAs2ReceivedMessages; awaited: CassandraAs2AwaitedMdns }> {
  return once(r, 'as2-stores', async () => {
    const c = await r.cassandra();
    return { directory: new CassandraAs2Directory(c), received: new CassandraAs2ReceivedMessages(c), awaited: new CassandraAs2AwaitedMdns(c) };
  });
}

/** The SFTP client of this process (uploads and polls share it). */
function sftpClient(r: RoleResources): SftpClient {
  return r.own('sftp-client', () => SftpClient.fromConfig(r.config, r.logger), (c) => c.close());
}

/** The in-house steps this process runs inline (src/nodes/inline.ts), once per process; src/service.ts fills it. */
export function inlineRegistry(r: RoleResources): InlineRegistry {
  return once(r, 'inline-registry', () => new InlineRegistry());
}

/** What node modules are built with, once per process. */
export function nodeDeps(r: RoleResources): Promise<NodeDeps> {
  return once(r, 'node-deps', async () => {
    const [stores, producer, wire, tracer, configStore, as2] = await Promise.all([r.stores(), r.producer(), r.wire(), r.tracer(), configReads(r), as2Stores(r)]);
    const mappings = r.own('mapping-engine', () => createMappingEngine(r.config.mapping), (e) => e.close());
    return {
      sftp: meteredSftpUploads(new ClientSftpUploader(sftpClient(r)), r.metrics.delivery),
      webhooks: meteredWebhooks({ send: (call) => sendWebhook(call) }, r.metrics.delivery),
      as2: meteredAs2(new As2PipelineTransport(as2.awaited), r.metrics.delivery),
      mappings,
      stores,
      config: new CachedConfigView(configStore, stores.secrets, { ttlMs: r.config.pipeline.configCacheMs }),
      ledger: stores.ledger,
      emitter: new WireEmitter(producer, wire),
      logger: r.logger,
      wallClock: () => Date.now() * 1000,
      retry: r.config.retry,
      ...(r.config.pipeline.inlineSteps === 'on' ? { inline: inlineRegistry(r) } : {}),
      ...(tracer ? { tracer } : {}),
    } satisfies NodeDeps;
  });
}

/**
 * The emitter of work an HTTP request answers for: the bounded request producer, and what the
 * broker does not confirm in time held in Cassandra for the scheduler's held_work job
 * (src/adapters/kafka/holding-sender.ts). One per process, shared by the API's routers.
 */
function requestEmitter(r: RoleResources): Promise<WireEmitter> {
  return once(r, 'request-emitter', async () => {
    const [producer, stores, wire] = await Promise.all([r.requestProducer(), r.stores(), r.wire()]);
    return new WireEmitter(new HoldingSender(producer, stores.held, r.logger.child({ component: 'requests' }), r.config.kafka.requestSendTimeoutMs), wire);
  });
}

/** The ports of the /platform router that only read configuration and authenticate keys. */
function platformBase(config: Config, logger: Logger, client: Client, configStore: ConfigReadStore): PlatformDeps {
  return {
    api: config.api,
    keys: new CassandraOrganizationStore(client),
    rateLimits: new CassandraRateLimitStore(client),
    configStore,
    engine: x12ImplementationEngine,
    logger: logger.child({ component: 'platform' }),
    keyCacheMs: config.api.keyCacheMs,
  };
}

/**
 * A /platform router over a bare Cassandra client, outside a process's composition (tests and
 * tools that serve configuration only, or add the parts they pass in `more`).
 */
export function platformRouterOverCassandra(config: Config, logger: Logger, client: Client, more: Pick<PlatformDeps, 'submissions' | 'replays' | 'records' | 'recoveries'> = {}): PlatformRouter {
  return createPlatformRouter({ ...platformBase(config, logger, client, new CassandraConfigReadStore(client)), ...more });
}

/** The ports of the /platform API (submissions, replays, records, recoveries, configuration), once per process. */
export function platformPorts(r: RoleResources): Promise<PlatformDeps> {
  return once(r, 'platform-ports', async () => {
    const [deps, cassandra, clickhouse, stores, configStore] = await Promise.all([nodeDeps(r), r.cassandra(), r.clickhouse(), r.stores(), configReads(r)]);
    // a request's work item is written before its 202, or never once it answered 503 (a random
    // trace id: written late, it would be processed besides the copy its caller sends again)
    const requests = await requestEmitter(r);
    const retentionSeconds = r.config.cassandra.retentionSeconds;
    const submissions = { config: deps.config, artifacts: stores.artifacts, producer: requests, maxBytes: r.config.api.maxSubmissionBytes, idempotency: new CassandraIdempotencyStore(cassandra) };
    const replays = { artifacts: stores.artifacts, results: stores.results, transactions: stores.transactions, config: deps.config, producer: requests, retentionSeconds };
    const records: RecordsDeps = {
      transactions: stores.transactions,
      results: stores.results,
      artifacts: stores.artifacts,
      receipts: stores.sandboxReceipts,
      lists: new ClickHouseRecordLists(clickhouse, { retentionSeconds }),
      config: configStore,
      settings: r.config.api,
      retentionSeconds,
    };
    const recoveryStore = new CassandraRecoveryStore(cassandra);
    const runner = r.own(
      'recovery-runner',
      () => new RecoveryRunner({ ...replays, lists: records.lists, store: recoveryStore, logger: r.logger.child({ component: 'recovery' }) }),
      (x) => x.close(),
    );
    const recoveries = { runner, store: recoveryStore, limits: { defaultRatePerSecond: r.config.api.recoveryRatePerSecond, maxRatePerSecond: r.config.api.recoveryMaxRatePerSecond } };
    return { ...platformBase(r.config, r.logger, cassandra, configStore), submissions, replays, records, recoveries };
  });
}

/** Completes an awaited AS2 delivery (counted), for the AS2 routes and the receipt-wait job. */
async function as2Completion(r: RoleResources): Promise<(work: StageMessage, outcome: As2ReceiptOutcome) => Promise<void>> {
  const deps = await nodeDeps(r);
  return meteredAs2Completion((work, outcome) => completeAwaitedDelivery(deps, work, outcome), r.metrics.delivery);
}

/** The ports of the AS2 endpoints (`POST /as2/:connectionId`, `POST /as2/mdn`). */
export async function as2RoutePorts(r: RoleResources): Promise<As2RouteDeps> {
  const [deps, as2, configStore, producer, complete] = await Promise.all([nodeDeps(r), as2Stores(r), configReads(r), requestEmitter(r), as2Completion(r)]);
  return {
    directory: as2.directory,
    config: deps.config,
    flows: (org) => configStore.list(org, 'flow'),
    artifacts: deps.stores.artifacts,
    producer,
    received: meteredAs2Received(as2.received, r.metrics.delivery),
    awaited: as2.awaited,
    complete,
    note: (work, level, message, key, at) => noteOnAwaitedDelivery(deps, work, level, message, key, at),
    maxBytes: r.config.as2.maxMessageBytes,
    logger: r.logger,
  };
}

/** The ports of the job that fails AS2 deliveries whose asynchronous receipt did not come in time. */
export async function as2MdnWaitPorts(r: RoleResources): Promise<Pick<As2RouteDeps, 'awaited' | 'complete'> & { now: () => number }> {
  const [deps, as2, complete] = await Promise.all([nodeDeps(r), as2Stores(r), as2Completion(r)]);
  return { awaited: as2.awaited, complete, now: deps.wallClock };
}

/** The SFTP poller of this process (scheduler role), over the node dependencies and the shared SFTP client. */
export async function sftpPoller(r: RoleResources): Promise<SftpPoller> {
  const deps = await nodeDeps(r);
  const c = r.config.sftp;
  return new SftpPoller(
    {
      store: meteredPollStates(new CassandraSftpPollStore(await r.cassandra()), r.metrics.delivery),
      leases: (await r.stores()).leases,
      inbox: sftpClient(r),
      config: deps.config,
      stores: deps.stores,
      emitter: deps.emitter,
      logger: r.logger.child({ role: 'scheduler', job: 'sftp-poll' }),
      wallClock: deps.wallClock,
    },
    {
      owner: `${hostname()}:${process.pid}`,
      unitMs: c.pollUnitMs,
      leaseMs: c.pollLeaseMs,
      stabilityIntervalMs: c.stabilityIntervalMs,
      maxFilesPerPoll: c.pollMaxFiles,
      concurrency: c.pollConcurrency,
      ...(c.fetchPause ? { pauseAt: c.fetchPause } : {}),
    },
  );
}
