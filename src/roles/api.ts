/**
 * The API role: the Koa app on config.api.host:port. /readyz runs the health checks of every
 * resource this process opened (Kafka, registry, Cassandra, ClickHouse).
 */
import type { Server } from 'node:http';
import type Router from '@koa/router';
import type { Role, TextOut } from './role.ts';
import { createApp, type MetricsEndpoint } from '../http/app.ts';
import type { Resources } from './resources.ts';
import { metricsAuthorized } from '../adapters/metrics/prometheus.ts';
import { unacknowledgedByPartner } from '../adapters/metrics/business.ts';

/** Builds the /platform routers from the process's resources. */
export type RouterFactory = (resources: Resources) => Promise<readonly Router[]> | readonly Router[];

export function apiRole(resources: Resources, out: TextOut, routers: readonly RouterFactory[] = []): Role {
  let server: Server | undefined;
  const { config } = resources;
  return {
    name: 'api',
    start: async () => {
      await Promise.all([resources.kafka(), resources.producer(), resources.wire(), resources.cassandra(), resources.clickhouse()]);
      const mounted: Router[] = [];
      for (const f of routers) mounted.push(...(await f(resources)));
      const prom = resources.prometheus();
      let metrics: MetricsEndpoint | undefined;
      if (prom) {
        const clickhouse = await resources.clickhouse();
        prom.unacknowledgedFrom(() => unacknowledgedByPartner(clickhouse));
        metrics = { http: prom.http, contentType: prom.contentType, render: () => prom.render(), authorized: (a) => metricsAuthorized(config.metrics.token, a) };
      }
      const tracer = await resources.tracer();
      const app = createApp({ logger: resources.logger.child({ role: 'api' }), checks: resources.checks(), routers: mounted, ...(metrics ? { metrics } : {}), ...(tracer ? { tracer } : {}) });
      server = await new Promise<Server>((resolve, reject) => {
        const s = app.listen({ port: config.api.port, host: config.api.host, backlog: config.api.listenBacklog }, () => resolve(s));
        s.once('error', reject);
      });
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.api.port;
      resources.logger.info({ event: 'api:listening', port }, 'API listening');
      out.write(`API listening on http://${config.api.host}:${port}\n`);
      if (metrics) out.write(`Metrics (Prometheus) on http://${config.api.host}:${port}/metrics${config.metrics.token ? ' (bearer token required)' : ''}\n`);
    },
    stop: async () => {
      // Stop accepting, let in-flight requests finish (keep-alive sockets are closed when idle).
      await new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}
