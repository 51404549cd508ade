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
import { CassandraConfigReadStore } from './adapters/cassandra/config-store.ts';
import { WireEmitter } from './adapters/kafka/emitter.ts';
import { CachedConfigView } from './nodes/config-view.ts';
import type { NodeDeps } from './nodes/ports.ts';
import type { NodeModule } from './nodes/node.ts';
import { partnerEndpointNode } from './nodes/partner_endpoint/node.ts';
import { x12SplitNode } from './nodes/x12_split/node.ts';
import { mappingNode } from './nodes/mapping/node.ts';
import { validationNode } from './nodes/validation/node.ts';
import { feedNode } from './nodes/feed/node.ts';
import { ackGenerateNode } from './nodes/ack_generate/node.ts';
import { sftpUploadNode } from './nodes/sftp_upload/node.ts';

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
      const [cassandra, stores, producer, wire] = await Promise.all([resources.cassandra(), resources.stores(), resources.producer(), resources.wire()]);
      return {
        stores,
        config: new CachedConfigView(new CassandraConfigReadStore(cassandra), stores.secrets),
        ledger: stores.ledger,
        emitter: new WireEmitter(producer, wire),
        logger: resources.logger,
        wallClock: () => Date.now() * 1000,
      } satisfies NodeDeps;
    })();
    nodeDepsOf.set(resources, deps);
  }
  return deps;
}

const node =
  (build: (deps: NodeDeps) => NodeModule): NodeFactory =>
  async (resources) =>
    build(await nodeDeps(resources));

/** The /platform API over Cassandra and ClickHouse. */
async function platformRouters(r: Resources): Promise<ReturnType<typeof platformRouterOverCassandra>['router'][]> {
  const deps = await nodeDeps(r);
  const submissions = { artifacts: deps.stores.artifacts, producer: deps.emitter, maxBytes: r.config.api.maxSubmissionBytes };
  const [cassandra, clickhouse, stores] = await Promise.all([r.cassandra(), r.clickhouse(), r.stores()]);
  const records: RecordsDeps = {
    transactions: stores.transactions,
    results: stores.results,
    artifacts: stores.artifacts,
    receipts: stores.sandboxReceipts,
    lists: new ClickHouseRecordLists(clickhouse, { retentionSeconds: r.config.cassandra.retentionSeconds }),
    config: new CassandraConfigReadStore(cassandra),
    settings: r.config.api,
  };
  return [platformRouterOverCassandra(r.config, r.logger, cassandra, { submissions, records }).router];
}

/** What this build provides. */
export const defaultParts: ServiceParts = {
  routers: [platformRouters],
  nodes: {
    partner_endpoint: node(partnerEndpointNode),
    x12_split: node(x12SplitNode),
    mapping: node(mappingNode),
    validation: node(validationNode),
    feed: node(feedNode),
    ack_generate: node(ackGenerateNode),
    sftp_upload: node(sftpUploadNode),
  },
};

export function buildRoles(resources: Resources, roleNames: readonly RoleName[], out: TextOut, parts: ServiceParts = defaultParts): Role[] {
  const roles: Role[] = [];
  for (const name of roleNames) {
    if (name === 'api') roles.push(apiRole(resources, out, parts.routers));
    else if (name === 'materializer') roles.push(materializerRole(resources));
    else if (name === 'scheduler') roles.push(schedulerRole(resources, parts.schedulerJobs ?? []));
    else {
      const service = name.slice('node:'.length) as NodeService;
      roles.push(nodeRole(service, resources, parts.nodes[service]));
    }
  }
  // Consumers start before the API so /readyz answers 200 only once the process works.
  return [...roles.filter((r) => r.name !== 'api'), ...roles.filter((r) => r.name === 'api')];
}
