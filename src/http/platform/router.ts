/**
 * The /platform router: every endpoint authenticates the key, counts against the key's shared
 * per-minute budget, then checks the key kind for its endpoint group. Other endpoint modules
 * register their routes on the router this returns (and document them on it with `documentOperation`).
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Config } from '../../config.ts';
import type { ConfigReadStore, OrganizationStore, RateLimitStore } from '../../domain/config-ports.ts';
import type { ImplementationEngine } from '../../domain/implementation-engine.ts';
import type { Logger } from '../../logger.ts';
import { authenticate, requireAccess } from '../middleware/auth.ts';
import { CursorCodec } from '../middleware/cursor.ts';
import { rateLimit } from '../middleware/rate-limit.ts';
import { registerConfigRoutes } from './config-routes.ts';
import { registerSubmissionRoutes, type SubmissionDeps } from './submission-routes.ts';
import { registerReplayRoutes, type ReplayRouteDeps } from './replay-routes.ts';
import { registerRecoveryRoutes, type RecoveryRouteDeps } from './recovery-routes.ts';
import { documentOperation, openApiDocument, openApiOperation } from './openapi.ts';
import { RecordsReader, type RecordsDeps } from './records.ts';
import { registerRecordRoutes } from './records-routes.ts';
import { registerMcpRoute } from '../mcp/routes.ts';

export interface PlatformDeps {
  readonly api: Pick<Config['api'], 'cursorSecret' | 'rateLimitPerMinute' | 'replayRateLimitPerMinute' | 'publicUrl'>;
  readonly keys: Pick<OrganizationStore, 'findKeyByHash' | 'touchKey'>;
  readonly rateLimits: RateLimitStore;
  readonly configStore: ConfigReadStore;
  readonly engine: ImplementationEngine;
  readonly logger: Logger;
  /** Document submission (partner endpoints); absent in processes that only read configuration. */
  readonly submissions?: SubmissionDeps;
  /** Resend and redeliver; absent in processes that only read configuration. */
  readonly replays?: Omit<ReplayRouteDeps, 'replayRateLimit'>;
  /** Recovery runs (an extension: `POST /platform/recoveries`); absent in processes that only read configuration. */
  readonly recoveries?: RecoveryRouteDeps;
  /** The records API (transactions, results, payloads, artifacts, feed, logs, traces). */
  readonly records?: RecordsDeps;
  /** How long a valid key's lookup is reused (config.api.keyCacheMs). @default 0 */
  readonly keyCacheMs?: number;
}

export interface PlatformRouter {
  readonly router: Router;
  readonly cursors: CursorCodec;
  /** The 10/minute resend-and-redeliver budget; mount it on those routes. */
  readonly replayRateLimit: Middleware;
  /** The records API, when the router serves it (replay routes read transactions through it). */
  readonly records: RecordsReader | null;
}

export function createPlatformRouter(deps: PlatformDeps): PlatformRouter {
  const router = new Router();
  const cursors = new CursorCodec(deps.api.cursorSecret);
  router.use('/platform', authenticate({ keys: deps.keys, logger: deps.logger, cacheMs: deps.keyCacheMs ?? 0 }), rateLimit({ store: deps.rateLimits, scope: 'platform', perMinute: deps.api.rateLimitPerMinute }));
  router.get('/platform/openapi.json', requireAccess('documentation'), (ctx) => {
    ctx.body = openApiDocument(router, deps.api.publicUrl);
  });
  documentOperation(router, openApiOperation);
  const replayRateLimit = rateLimit({ store: deps.rateLimits, scope: 'replay', perMinute: deps.api.replayRateLimitPerMinute });
  if (deps.submissions) registerSubmissionRoutes(router, deps.submissions);
  if (deps.replays) registerReplayRoutes(router, { ...deps.replays, replayRateLimit });
  if (deps.recoveries) registerRecoveryRoutes(router, deps.recoveries);
  registerConfigRoutes(router, { store: deps.configStore, engine: deps.engine, cursors });
  const records = deps.records ? new RecordsReader(deps.records, cursors) : null;
  if (records) {
    registerRecordRoutes(router, records);
    registerMcpRoute(router, records, '0.1.0');
  }
  return { router, cursors, records, replayRateLimit };
}
