import { parseArgs } from 'node:util';
import type { CliCommand } from '../tdx.ts';
import { loadConfig } from '../../config.ts';
import { createLogger, loadPrettyLogs } from '../../logger.ts';
import { parseRoles, startService } from '../../main.ts';

/** `tdx start [--role ROLES]`: runs the given roles (comma-separated, default `all`) until SIGTERM. */
export const startCommand: CliCommand = async (args, io) => {
  const { values } = parseArgs({ args, options: { role: { type: 'string', default: 'all' } }, strict: true });
  const config = loadConfig();
  await loadPrettyLogs(config);
  const logger = createLogger(config);
  const roles = parseRoles(values.role);
  await startService(config, logger, roles, io.stdout);
  return new Promise<number>(() => undefined); // runs until a signal stops the process
};
