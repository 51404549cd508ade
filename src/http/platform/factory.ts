/**
 * Builds the /platform router over the Cassandra stores (the api role mounts it).
 */
import type Router from '@koa/router';
import type { Client } from 'cassandra-driver';
import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import { CassandraConfigReadStore } from '../../adapters/cassandra/config-store.ts';
import { CassandraOrganizationStore } from '../../adapters/cassandra/organization-store.ts';
import { CassandraRateLimitStore } from '../../adapters/cassandra/rate-limit-store.ts';
import { x12ImplementationEngine as implementationEngine } from '../../domain/x12-implementation-engine.ts';
import { createPlatformRouter, type PlatformDeps, type PlatformRouter } from './router.ts';

export function platformRouterOverCassandra(config: Config, logger: Logger, client: Client, more: Pick<PlatformDeps, 'submissions' | 'replays' | 'records' | 'recoveries'> = {}): PlatformRouter {
  return createPlatformRouter({
    api: config.api,
    keys: new CassandraOrganizationStore(client),
    rateLimits: new CassandraRateLimitStore(client),
    configStore: new CassandraConfigReadStore(client),
    engine: implementationEngine,
    logger: logger.child({ component: 'platform' }),
    keyCacheMs: config.api.keyCacheMs,
    ...more,
  });
}

export type { Router };
