/**
 * Composition root: builds the roles a process runs from its shared resources, and composes
 * what they need (stores over Cassandra, the cached configuration view, the emitter, the node
 * modules, the API routers, the scheduler's jobs). Extend it here: a node service adds its
 * factory to `nodes`, the /platform API adds router factories to `routers`.
 */
import type { NodeService } from './domain/node-services.ts';
import type { Role, RoleName, TextOut } from './roles/role.ts';
import type { Resources } from './roles/resources.ts';
import { apiRole, type RouterFactory } from './roles/api.ts';
import { nodeRole, type NodeFactory } from './roles/node-role.ts';
import { materializerRole } from './roles/materializer.ts';
import { schedulerRole, type SchedulerJobFactory } from './roles/scheduler.ts';
import { platformRouterOverCassandra } from './http/platform/factory.ts';
import type { RecordsDeps } from './http/platform/records.ts';
import { ClickHouseRecordLists } from './adapters/clickhouse/records-store.ts';
import { CassandraIdempotencyStore, CassandraRecoveryStore } from './adapters/cassandra/recovery-store.ts';
import { RecoveryRunner } from './http/platform/recovery.ts';
import { CassandraConfigReadStore } from './adapters/cassandra/config-store.ts';
import { WireEmitter } from './adapters/kafka/emitter.ts';
import { SftpClient } from './adapters/sftp/index.ts';
import { ClientSftpUploader } from './adapters/sftp/uploader.ts';
import { sendWebhook } from './adapters/webhook/index.ts';
import { createMappingEngine } from './adapters/mapping/worker-pool.ts';
import { CachedConfigView } from './nodes/config-view.ts';
import type { NodeDeps } from './nodes/ports.ts';
import type { NodeModule } from './nodes/node.ts';
import { INLINE_SERVICES, InlineRegistry } from './nodes/inline.ts';
import { partnerEndpointNode } from './nodes/partner_endpoint/node.ts';
import { x12SplitNode } from './nodes/x12_split/node.ts';
import { mappingNode } from './nodes/mapping/node.ts';
import { validationNode } from './nodes/validation/node.ts';
import { feedNode } from './nodes/feed/node.ts';
import { ackGenerateNode } from './nodes/ack_generate/node.ts';
import { sftpUploadNode } from './nodes/sftp_upload/node.ts';
import { sftpFetchNode } from './nodes/sftp_fetch/node.ts';
import { as2ReceiveNode } from './nodes/as2_receive/node.ts';
import { x12WriteNode } from './nodes/x12_write/node.ts';
import { sandboxSinkNode } from './nodes/sandbox_sink/node.ts';
import { ackOverdueJob } from './roles/jobs/ack-overdue.ts';
import { heldWorkJob } from './roles/jobs/held-work.ts';
import { HoldingSender } from './adapters/kafka/holding-sender.ts';
import { replayJob } from './roles/jobs/replay.ts';
import { webhookNode } from './nodes/webhook/node.ts';
import { SftpPoller } from './nodes/sftp_fetch/poller.ts';
import { CassandraSftpPollStore } from './adapters/cassandra/sftp-poll-store.ts';
import { sftpPollJob } from './roles/sftp-poll-job.ts';
import { hostname } from 'node:os';
import { as2SendNode } from './nodes/as2_send/node.ts';
import { completeAwaitedDelivery, noteOnAwaitedDelivery } from './nodes/as2_send/receipts.ts';
import { As2PipelineTransport } from './adapters/as2/pipeline.ts';
import { CassandraAs2AwaitedMdns, CassandraAs2Directory, CassandraAs2ReceivedMessages } from './adapters/cassandra/as2-store.ts';
import { as2Router } from './http/as2/routes.ts';
import { consoleRouter } from './http/console.ts';
import { as2MdnWaitJob } from './roles/jobs/as2-mdn-wait.ts';
import { metricsListenerRole } from './roles/metrics-listener.ts';
import { meteredAs2, meteredAs2Completion, meteredAs2Received, meteredPollStates, meteredSftpUploads, meteredWebhooks } from './adapters/metrics/delivery.ts';

export interface ServiceParts {
  /** Router factories mounted by the api role. */
  readonly routers: readonly RouterFactory[];
  /** Node modules by service; a service without one starts no consumer group. */
  readonly nodes: Partial<Record<NodeService, NodeFactory>>;
  /** Duties of the scheduler role besides the delay tiers. */
  readonly schedulerJobs?: readonly SchedulerJobFactory[];
}

const nodeDepsOf = new WeakMap<Resources, Promise<NodeDeps>>();

/** What node modules are built with, once per process. */
export function nodeDeps(resources: Resources): Promise<NodeDeps> {
  let deps = nodeDepsOf.get(resources);
  if (!deps) {
    deps = (async () => {
      const [cassandra, stores, producer, wire, tracer] = await Promise.all([resources.cassandra(), resources.stores(), resources.producer(), resources.wire(), resources.tracer()]);
      const as2 = await as2Stores(resources);
      const sftp = resources.own('sftp-client', () => SftpClient.fromConfig(resources.config, resources.logger), (c) => c.close());
      const mappings = resources.own('mapping-engine', () => createMappingEngine(resources.config.mapping), (e) => e.close());
      return {
        sftp: meteredSftpUploads(new ClientSftpUploader(sftp), resources.metrics.delivery),
        webhooks: meteredWebhooks({ send: (call) => sendWebhook(call) }, resources.metrics.delivery),
        as2: meteredAs2(new As2PipelineTransport(as2.awaited), resources.metrics.delivery),
        mappings,
        stores,
        config: new CachedConfigView(new CassandraConfigReadStore(cassandra), stores.secrets),
        ledger: stores.ledger,
        emitter: new WireEmitter(producer, wire),
        logger: resources.logger,
        wallClock: () => Date.now() * 1000,
        retry: resources.config.retry,
        ...(resources.config.pipeline.inlineSteps === 'on' ? { inline: inlineRegistry(resources) } : {}),
        ...(tracer ? { tracer } : {}),
      } satisfies NodeDeps;
    })();
    nodeDepsOf.set(resources, deps);
  }
  return deps;
}

const as2StoresOf = new WeakMap<Resources, Promise<{ directory: CassandraAs2Directory; received: CassandraAs2ReceivedMessages; awaited: CassandraAs2AwaitedMdns }>>();

/** The AS2 stores (connection directory, received message ids, awaited receipts), once per process. */
function as2Stores(resources: Resources): Promise<{ directory: CassandraAs2Directory; received: CassandraAs2ReceivedMessages; awaited: CassandraAs2AwaitedMdns }> {
  let s = as2StoresOf.get(resources);
  if (!s) {
    s = resources.cassandra().then((c) => ({ directory: new CassandraAs2Directory(c), received: new CassandraAs2ReceivedMessages(c), awaited: new CassandraAs2AwaitedMdns(c) }));
    as2StoresOf.set(resources, s);
  }
  return s;
}

const inlineOf = new WeakMap<Resources, { registry: InlineRegistry; filled?: Promise<void> }>();

/** The in-house steps this process runs inline (src/nodes/inline.ts), once per process. */
function inlineRegistry(resources: Resources): InlineRegistry {
  let entry = inlineOf.get(resources);
  if (!entry) inlineOf.set(resources, (entry = { registry: new InlineRegistry() }));
  return entry.registry;
}

/**
 * Registers the inline run of each in-house step, from the same node modules the node roles
 * run (so a build that replaces a node replaces its inline run too). Node roles call it before
 * they consume.
 */
function fillInline(resources: Resources, nodes: ServiceParts['nodes']): Promise<void> {
  const registry = inlineRegistry(resources);
  const entry = inlineOf.get(resources)!;
  entry.filled ??= (async () => {
    for (const service of INLINE_SERVICES) {
      const factory = nodes[service];
      const handler = factory ? (await factory(resources)).inline : undefined;
      if (handler) registry.register(service, handler);
    }
  })();
  return entry.filled;
}

const node =
  (build: (deps: NodeDeps) => NodeModule): NodeFactory =>
  async (resources) =>
    build(await nodeDeps(resources));

/** The /platform API over Cassandra and ClickHouse. */
async function platformRouters(r: Resources): Promise<ReturnType<typeof platformRouterOverCassandra>['router'][]> {
  const deps = await nodeDeps(r);
  // a request's work item is written before its 202, or never once it answered 503 (a random
  // trace id: written late, it would be processed besides the copy its caller sends again)
  const requests = await requestEmitter(r);
  const submissions = { artifacts: deps.stores.artifacts, producer: requests, maxBytes: r.config.api.maxSubmissionBytes, idempotency: new CassandraIdempotencyStore(await r.cassandra()) };
  const replays = {
    artifacts: deps.stores.artifacts,
    results: deps.stores.results,
    transactions: deps.stores.transactions,
    config: deps.config,
    producer: requests,
    retentionSeconds: r.config.cassandra.retentionSeconds,
  };
  const [cassandra, clickhouse, stores] = await Promise.all([r.cassandra(), r.clickhouse(), r.stores()]);
  const records: RecordsDeps = {
    transactions: stores.transactions,
    results: stores.results,
    artifacts: stores.artifacts,
    receipts: stores.sandboxReceipts,
    lists: new ClickHouseRecordLists(clickhouse, { retentionSeconds: r.config.cassandra.retentionSeconds }),
    config: new CassandraConfigReadStore(cassandra),
    settings: r.config.api,
    retentionSeconds: r.config.cassandra.retentionSeconds,
  };
  const recoveryStore = new CassandraRecoveryStore(cassandra);
  const runner = r.own(
    'recovery-runner',
    () => new RecoveryRunner({ ...replays, lists: records.lists, store: recoveryStore, logger: r.logger.child({ component: 'recovery' }) }),
    (x) => x.close(),
  );
  const recoveries = { runner, store: recoveryStore, limits: { defaultRatePerSecond: r.config.api.recoveryRatePerSecond, maxRatePerSecond: r.config.api.recoveryMaxRatePerSecond } };
  return [platformRouterOverCassandra(r.config, r.logger, cassandra, { submissions, replays, records, recoveries }).router];
}

/**
 * The emitter of work an HTTP request answers for: the bounded request producer, and what the
 * broker does not confirm in time held in Cassandra for the scheduler's held_work job
 * (src/adapters/kafka/holding-sender.ts). One per process, shared by the API's routers.
 */
function requestEmitter(r: Resources): Promise<WireEmitter> {
  return r.own(
    'request-emitter',
    async () => {
      const [producer, stores, wire] = await Promise.all([r.requestProducer(), r.stores(), r.wire()]);
      return new WireEmitter(new HoldingSender(producer, stores.held, r.logger.child({ component: 'requests' }), r.config.kafka.requestSendTimeoutMs), wire);
    },
    () => undefined,
  );
}

/** The AS2 endpoints (`POST /as2/:connectionId`, `POST /as2/mdn`): outside /platform, no API key. */
async function as2Routers(r: Resources): Promise<ReturnType<typeof as2Router>[]> {
  const [deps, as2, cassandra] = await Promise.all([nodeDeps(r), as2Stores(r), r.cassandra()]);
  const flows = new CassandraConfigReadStore(cassandra);
  return [
    as2Router({
      directory: as2.directory,
      config: deps.config,
      flows: (org) => flows.list(org, 'flow'),
      artifacts: deps.stores.artifacts,
      producer: await requestEmitter(r),
      received: meteredAs2Received(as2.received, r.metrics.delivery),
      awaited: as2.awaited,
      complete: meteredAs2Completion((work, outcome) => completeAwaitedDelivery(deps, work, outcome), r.metrics.delivery),
      note: (work, level, message, key, at) => noteOnAwaitedDelivery(deps, work, level, message, key, at),
      maxBytes: r.config.as2.maxMessageBytes,
      logger: r.logger,
    }),
  ];
}

/** Fails AS2 deliveries whose asynchronous receipt did not come within the connection's wait. */
const as2MdnWait: SchedulerJobFactory = async (r) => {
  const [deps, as2, stores] = await Promise.all([nodeDeps(r), as2Stores(r), r.stores()]);
  return as2MdnWaitJob({
    intervalMs: r.config.as2.mdnCheckIntervalMs,
    leases: stores.leases,
    awaited: as2.awaited,
    complete: meteredAs2Completion((work, outcome) => completeAwaitedDelivery(deps, work, outcome), r.metrics.delivery),
    logger: r.logger,
    now: deps.wallClock,
  });
};

/** Carries out replay commands (src/roles/jobs/replay.ts). */
const replay: SchedulerJobFactory = async (r) => replayJob(r, await nodeDeps(r), (await r.stores()).replays);

/** Produces the work requests held when the broker did not confirm it (src/roles/jobs/held-work.ts). */
const heldWork: SchedulerJobFactory = async (r) => {
  const [producer, stores] = await Promise.all([r.producer(), r.stores()]);
  return heldWorkJob({ intervalMs: r.config.kafka.heldWorkIntervalMs, leases: stores.leases, logger: r.logger, held: stores.held, send: (records) => producer.send(records) });
};

/** Reports delivered documents whose 997 is overdue (partner `acknowledgmentDeadlineMinutes`). */
const ackOverdue: SchedulerJobFactory = async (r) =>
  ackOverdueJob(await nodeDeps(r), { intervalMs: r.config.acknowledgments.overdueCheckIntervalMs, leases: (await r.stores()).leases, logger: r.logger, metrics: r.metrics.business });
/** The SFTP poller of this process (scheduler role), over the node dependencies and the shared SFTP client. */
export async function sftpPoller(resources: Resources): Promise<SftpPoller> {
  const deps = await nodeDeps(resources);
  const inbox = resources.own('sftp-client', () => SftpClient.fromConfig(resources.config, resources.logger), (c) => c.close());
  const c = resources.config.sftp;
  return new SftpPoller(
    { store: meteredPollStates(new CassandraSftpPollStore(await resources.cassandra()), resources.metrics.delivery), inbox, config: deps.config, stores: deps.stores, emitter: deps.emitter, logger: resources.logger.child({ role: 'scheduler', job: 'sftp-poll' }), wallClock: deps.wallClock },
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

/** The scheduler's SFTP polling duty. */
const sftpPolling: SchedulerJobFactory = async (r) => sftpPollJob(await sftpPoller(r), r.config.sftp.pollTickMs, r.logger.child({ role: 'scheduler', job: 'sftp-poll' }));

/** The operator console's static files at /console (docs/console.md). */
const consoleRouters: RouterFactory = async (r) => [await consoleRouter(r.config.api.consoleDir)];

/** What this build provides. */
export const defaultParts: ServiceParts = {
  routers: [platformRouters, as2Routers, consoleRouters],
  nodes: {
    partner_endpoint: node(partnerEndpointNode),
    sftp_fetch: node(sftpFetchNode),
    as2_receive: node(as2ReceiveNode),
    x12_split: node(x12SplitNode),
    mapping: node(mappingNode),
    validation: node(validationNode),
    feed: node(feedNode),
    ack_generate: node(ackGenerateNode),
    sftp_upload: node(sftpUploadNode),
    as2_send: node(as2SendNode),
    x12_write: node(x12WriteNode),
    sandbox_sink: node(sandboxSinkNode),
    webhook: node(webhookNode),
  },
  schedulerJobs: [sftpPolling, ackOverdue, replay, as2MdnWait, heldWork],
};

export function buildRoles(resources: Resources, roleNames: readonly RoleName[], out: TextOut, parts: ServiceParts = defaultParts): Role[] {
  const roles: Role[] = [];
  for (const name of roleNames) {
    if (name === 'api') roles.push(apiRole(resources, out, parts.routers));
    else if (name === 'materializer') roles.push(materializerRole(resources));
    else if (name === 'scheduler') roles.push(schedulerRole(resources, parts.schedulerJobs ?? []));
    else {
      const service = name.slice('node:'.length) as NodeService;
      roles.push(nodeRole(service, resources, parts.nodes[service], () => fillInline(resources, parts.nodes)));
    }
  }
  // a process without the API serves /metrics on its own small port
  if (!roleNames.includes('api')) roles.push(metricsListenerRole(resources, out));
  // Consumers start before the API so /readyz answers 200 only once the process works.
  return [...roles.filter((r) => r.name !== 'api'), ...roles.filter((r) => r.name === 'api')];
}
