/**
 * Composition root: opens the resources the chosen roles need (once per process, shared by
 * the roles) and builds the roles. Extend it here: a node service adds its factory to
 * `nodes`, the /platform API adds router factories to `routers`.
 */
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { CliIo } from './cli/tdx.ts';
import type { NodeService } from './domain/node-services.ts';
import { runRoles, type Role, type RoleName } from './main.ts';
import { Resources } from './roles/resources.ts';
import { apiRole, type RouterFactory } from './roles/api.ts';
import { nodeRole, type NodeFactory } from './roles/node-role.ts';
import { materializerRole } from './roles/materializer.ts';
import { schedulerRole } from './roles/scheduler.ts';
import { platformRouterOverCassandra, type Router } from './http/platform/factory.ts';

export interface ServiceParts {
  /** Router factories mounted by the api role. */
  readonly routers: readonly RouterFactory[];
  /** Node definitions by service; a service without one starts no consumer group. */
  readonly nodes: Partial<Record<NodeService, NodeFactory>>;
}

/** The /platform API (configuration endpoints and the shared frame) over Cassandra. */
async function platformRouters(r: Resources): Promise<readonly Router[]> {
  return [platformRouterOverCassandra(r.config, r.logger, await r.cassandra()).router];
}

/** What this build provides. */
export const defaultParts: ServiceParts = {
  routers: [platformRouters],
  nodes: {},
};

export function buildRoles(resources: Resources, roleNames: readonly RoleName[], io: CliIo, parts: ServiceParts = defaultParts): Role[] {
  const roles: Role[] = [];
  for (const name of roleNames) {
    if (name === 'api') roles.push(apiRole(resources, io, parts.routers));
    else if (name === 'materializer') roles.push(materializerRole(resources));
    else if (name === 'scheduler') roles.push(schedulerRole(resources));
    else {
      const service = name.slice('node:'.length) as NodeService;
      roles.push(nodeRole(service, resources, parts.nodes[service]));
    }
  }
  // Consumers start before the API so /readyz answers 200 only once the process works.
  return [...roles.filter((r) => r.name !== 'api'), ...roles.filter((r) => r.name === 'api')];
}

/** Starts the roles; resolves to a function that stops them and closes the shared resources. */
export async function startService(
  config: Config,
  logger: Logger,
  roleNames: readonly RoleName[],
  io: CliIo,
  parts: ServiceParts = defaultParts,
): Promise<() => Promise<void>> {
  const resources = new Resources(config, logger);
  const roles = buildRoles(resources, roleNames, io, parts);
  try {
    return await runRoles(roles, config, logger, () => resources.close());
  } catch (err) {
    await resources.close();
    throw err;
  }
}
