/**
 * Process composition: reads the configuration, opens the shared resources a set of roles
 * needs, starts the roles, and shuts them down in reverse order on SIGTERM/SIGINT (stop
 * consuming, finish in-flight work, commit, close).
 *
 * Roles: `api`, `node:<service>` (one consumer group per node service), `materializer`,
 * `scheduler`, `all` (every role in one process, ClickHouse embedded), and `clickhouse` (the
 * embedded ClickHouse engine served over HTTP to the processes that set CLICKHOUSE_URL).
 */
import { requireSecretKeys, type Config } from './config.ts';
import type { Logger } from './logger.ts';
import { TdxError } from './errors.ts';
import { NODE_SERVICES } from './domain/node-services.ts';
import { roleHoldsSecrets, type Role, type RoleName, type TextOut } from './roles/role.ts';
import { Resources } from './compose.ts';
import { buildRoles, defaultParts, type ServiceParts } from './service.ts';

export type { Role, RoleName };

/** Expands `all` and validates role names. */
export function parseRoles(spec: string): RoleName[] {
  const names = spec.split(',').map((s) => s.trim()).filter(Boolean);
  const out = new Set<RoleName>();
  for (const n of names) {
    if (n === 'all') {
      out.add('api');
      for (const s of NODE_SERVICES) out.add(`node:${s}`);
      out.add('materializer');
      out.add('scheduler');
    } else if (n === 'api' || n === 'materializer' || n === 'scheduler' || n === 'clickhouse') {
      out.add(n);
    } else if (n.startsWith('node:') && (NODE_SERVICES as readonly string[]).includes(n.slice(5))) {
      out.add(n as RoleName);
    } else {
      throw new TdxError('config_invalid', `Unknown role "${n}". Roles: all, api, materializer, scheduler, clickhouse, node:<${NODE_SERVICES.join('|')}>.`);
    }
  }
  if (out.size === 0) throw new TdxError('config_invalid', 'No role given.');
  return [...out];
}

/** Starts roles in order and installs signal handlers; resolves once every role has started. */
export async function runRoles(roles: readonly Role[], config: Config, logger: Logger, onStopped?: () => Promise<void>): Promise<() => Promise<void>> {
  const started: Role[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ event: 'process:stopping' }, 'stopping');
      const timer = setTimeout(() => {
        logger.error({ event: 'process:stop-timeout', timeoutMs: config.shutdownTimeoutMs }, 'shutdown timed out');
        process.exit(1);
      }, config.shutdownTimeoutMs);
      timer.unref();
      // The API stops accepting first; then every consumer stops at once (each finishes its
      // batch in hand and commits), which keeps shutdown short with many node services.
      const order = [...started].reverse();
      const stopOne = async (r: Role): Promise<void> => {
        try {
          await r.stop();
          logger.info({ event: 'role:stopped', role: r.name }, 'role stopped');
        } catch (err) {
          logger.error({ event: 'role:stop-failed', role: r.name, err }, 'role failed to stop cleanly');
        }
      };
      for (const r of order.filter((x) => x.name === 'api')) await stopOne(r);
      await Promise.all(order.filter((x) => x.name !== 'api').map(stopOne));
      if (onStopped) await onStopped();
      clearTimeout(timer);
      // a process that starts roles again afterwards (the tests) does not pile up handlers
      for (const sig of ['SIGTERM', 'SIGINT'] as const) process.off(sig, onSignal);
      logger.info({ event: 'process:stopped' }, 'stopped');
    })();
    return stopping;
  };
  const onSignal = (): void => {
    void stop().then(() => process.exit(0));
  };
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, onSignal);
  for (const r of roles) {
    try {
      await r.start();
    } catch (err) {
      logger.error({ event: 'role:start-failed', role: r.name, err }, 'role failed to start');
      for (const s of [...started].reverse()) await s.stop().catch(() => undefined);
      started.length = 0;
      for (const sig of ['SIGTERM', 'SIGINT'] as const) process.off(sig, onSignal);
      throw err;
    }
    started.push(r);
    logger.info({ event: 'role:started', role: r.name }, 'role started');
  }
  return stop;
}

/** Opens the resources, builds and starts the roles; resolves to a function that stops them and closes the resources. */
export async function startService(config: Config, logger: Logger, roleNames: readonly RoleName[], out: TextOut, parts: ServiceParts = defaultParts): Promise<() => Promise<void>> {
  // a missing or wrong operator key stops the start here, naming the setting, rather than
  // failing a delivery later (docs/secrets.md); a process that only hosts ClickHouse holds no
  // partner secret and opens no Cassandra
  const holdsSecrets = roleNames.some(roleHoldsSecrets);
  if (holdsSecrets) requireSecretKeys(config);
  const resources = new Resources(config, logger, roleNames);
  try {
    if (holdsSecrets) await resources.verifySecretKeys();
  } catch (err) {
    await resources.close();
    throw err;
  }
  const roles = buildRoles(resources, roleNames, out, parts);
  try {
    return await runRoles(roles, config, logger, () => resources.close());
  } catch (err) {
    await resources.close();
    throw err;
  }
}
