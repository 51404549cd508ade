/**
 * The roles of a process: builds the roles a process runs from its resources, with the node
 * modules, the API routers and the scheduler's jobs over the port bundles src/compose.ts
 * composes (this module constructs no adapter). Extend it here: a node service adds its factory
 * to `nodes`, the /platform API adds router factories to `routers`.
 */
import type { NodeService } from './domain/node-services.ts';
import type { Role, RoleName, TextOut } from './roles/role.ts';
import type { Resources } from './roles/resources.ts';
import { apiRole, type RouterFactory } from './roles/api.ts';
import { nodeRole, type NodeFactory } from './roles/node-role.ts';
import { materializerRole } from './roles/materializer.ts';
import { clickhouseHostRole } from './roles/clickhouse-host.ts';
import { schedulerRole, type SchedulerJobFactory } from './roles/scheduler.ts';
import { createPlatformRouter } from './http/platform/router.ts';
import { as2Router } from './http/as2/routes.ts';
import { consoleRouter } from './http/console.ts';
import type { NodeDeps } from './nodes/ports.ts';
import type { NodeModule } from './nodes/node.ts';
import { INLINE_SERVICES } from './nodes/inline.ts';
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
import { webhookNode } from './nodes/webhook/node.ts';
import { as2SendNode } from './nodes/as2_send/node.ts';
import { ackOverdueJob } from './roles/jobs/ack-overdue.ts';
import { heldWorkJob } from './roles/jobs/held-work.ts';
import { replayJob } from './roles/jobs/replay.ts';
import { as2MdnWaitJob } from './roles/jobs/as2-mdn-wait.ts';
import { sftpPollJob } from './roles/sftp-poll-job.ts';
import { metricsListenerRole } from './roles/metrics-listener.ts';
import { as2MdnWaitPorts, as2RoutePorts, inlineRegistry, nodeDeps, platformPorts, sftpPoller } from './compose.ts';

export interface ServiceParts {
  /** Router factories mounted by the api role. */
  readonly routers: readonly RouterFactory[];
  /** Node modules by service; a service without one starts no consumer group. */
  readonly nodes: Partial<Record<NodeService, NodeFactory>>;
  /** Duties of the scheduler role besides the delay tiers. */
  readonly schedulerJobs?: readonly SchedulerJobFactory[];
}

/** The inline registries already filled (one per process). */
const inlineFilled = new WeakMap<object, Promise<void>>();

/**
 * Registers the inline run of each in-house step, from the same node modules the node roles
 * run (so a build that replaces a node replaces its inline run too). Node roles call it before
 * they consume.
 */
function fillInline(resources: Resources, nodes: ServiceParts['nodes']): Promise<void> {
  const registry = inlineRegistry(resources);
  let filled = inlineFilled.get(registry);
  if (!filled) {
    filled = (async () => {
      for (const service of INLINE_SERVICES) {
        const factory = nodes[service];
        const handler = factory ? (await factory(resources)).inline : undefined;
        if (handler) registry.register(service, handler);
      }
    })();
    inlineFilled.set(registry, filled);
  }
  return filled;
}

const node =
  (build: (deps: NodeDeps) => NodeModule): NodeFactory =>
  async (resources) =>
    build(await nodeDeps(resources));

/** The /platform API over the ports of src/compose.ts. */
const platformRouters: RouterFactory = async (r) => [createPlatformRouter(await platformPorts(r)).router];

/** The AS2 endpoints (`POST /as2/:connectionId`, `POST /as2/mdn`): outside /platform, no API key. */
const as2Routers: RouterFactory = async (r) => [as2Router(await as2RoutePorts(r))];

/** Fails AS2 deliveries whose asynchronous receipt did not come within the connection's wait. */
const as2MdnWait: SchedulerJobFactory = async (r) => {
  const [ports, stores] = await Promise.all([as2MdnWaitPorts(r), r.stores()]);
  return as2MdnWaitJob({ intervalMs: r.config.as2.mdnCheckIntervalMs, leases: stores.leases, ...ports, logger: r.logger });
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
    else if (name === 'clickhouse') roles.push(clickhouseHostRole(resources, out));
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
