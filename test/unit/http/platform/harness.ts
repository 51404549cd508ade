// Builds the Koa app with the /platform router over in-memory fakes, listening on loopback.
import type { Server } from 'node:http';
import { createApp } from '../../../../src/http/app.ts';
import { createPlatformRouter } from '../../../../src/http/platform/router.ts';
import { planApply } from '../../../../src/domain/config-plan.ts';
import { EMPTY_STATE, type ConfigDocument } from '../../../../src/domain/configuration.ts';
import { x12ImplementationEngine as x12Engine } from '../../../../src/domain/x12-implementation-engine.ts';
import { newId } from '../../../../src/domain/ids.ts';
import { createLogger } from '../../../../src/logger.ts';
import { FakeConfig, FakeOrgs, FakeRateLimits } from './fakes.ts';
import { apiGet } from '../../../support/api-get.ts';
import { demoDoc } from '../../../support/demo-config.ts';

export { demoDoc };

export async function startHarness(opts: { perMinute?: number } = {}) {
  const orgs = new FakeOrgs();
  const config = new FakeConfig();
  const rates = new FakeRateLimits();
  const orgA = newId();
  const orgB = newId();
  const plan = (doc: ConfigDocument) =>
    planApply(doc, EMPTY_STATE, { now: new Date().toISOString(), newId: () => newId(), author: 'unit', newSigningSecret: () => 'whsec_Z2VuZXJhdGVkLXNlY3JldC12YWx1ZQ==', engine: x12Engine }).state;
  config.states.set(orgA, plan(demoDoc()));
  config.states.set(orgB, plan(demoDoc()));
  const logger = createLogger({ logLevel: 'silent', serviceName: 'unit' });
  const platform = createPlatformRouter({
    api: { cursorSecret: 'unit-secret', rateLimitPerMinute: opts.perMinute ?? 10_000, replayRateLimitPerMinute: 10, publicUrl: 'http://127.0.0.1' },
    keys: orgs,
    rateLimits: rates,
    configStore: config,
    engine: x12Engine,
    logger,
  });
  const app = createApp({ logger, checks: [], routers: [platform.router] });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const addr = server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const keys = { standard: orgs.add(orgA, 'standard'), readOnly: orgs.add(orgA, 'read-only'), sandbox: orgs.add(orgA, 'sandbox'), otherOrg: orgs.add(orgB, 'standard') };
  const get = (path: string, key: string | null = keys.standard, headers: Record<string, string> = {}) => apiGet(base, path, key, headers);
  return { base, get, keys, orgs, config, rates, orgA, orgB, platform, close: () => new Promise<void>((r) => server.close(() => r())) };
}
