/**
 * Composition root: opens the resources the chosen roles need and builds the roles.
 * (Resources and roles beyond the API are added as their adapters land.)
 */
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { CliIo } from './cli/tdx.ts';
import { runRoles, type Role, type RoleName } from './main.ts';
import { createApp } from './http/app.ts';
import type { Server } from 'node:http';

function apiRole(config: Config, logger: Logger, io: CliIo): Role {
  let server: Server | undefined;
  return {
    name: 'api',
    start: async () => {
      const app = createApp({ logger: logger.child({ role: 'api' }), checks: [] });
      server = await new Promise<Server>((resolve, reject) => {
        const s = app.listen(config.api.port, config.api.host, () => resolve(s));
        s.once('error', reject);
      });
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.api.port;
      io.stdout.write(`API listening on http://${config.api.host}:${port}\n`);
    },
    stop: async () => {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
}

export async function startService(config: Config, logger: Logger, roleNames: readonly RoleName[], io: CliIo): Promise<() => Promise<void>> {
  const roles: Role[] = [];
  for (const name of roleNames) {
    if (name === 'api') roles.push(apiRole(config, logger, io));
  }
  return runRoles(roles, config, logger);
}
