/**
 * The metrics listener of a process that runs no API role (node services, the materializer, the
 * scheduler, each in its own process): `GET /metrics` on `TDX_METRICS_HOST:TDX_METRICS_PORT`,
 * nothing else. A process with the API role serves `/metrics` on the API's port instead. A port
 * already taken (several role processes on one machine without their own ports) is logged and
 * the process runs on without a listener: metrics are never a reason not to process documents.
 */
import { createServer, type Server } from 'node:http';
import type { Role, TextOut } from './role.ts';
import type { Resources } from './resources.ts';
import { metricsAuthorized } from '../adapters/metrics/prometheus.ts';

export function metricsListenerRole(resources: Resources, out: TextOut): Role {
  let server: Server | undefined;
  const { config, logger } = resources;
  return {
    name: 'metrics',
    start: async () => {
      const prom = resources.prometheus();
      if (!prom) return;
      const s = createServer((req, res) => {
        const path = (req.url ?? '/').split('?')[0];
        if (req.method !== 'GET' || path !== '/metrics') {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Only GET /metrics is served here.', code: 'not_found' } }));
          return;
        }
        if (!metricsAuthorized(config.metrics.token, req.headers.authorization)) {
          res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="metrics"' }).end(JSON.stringify({ error: { message: 'The metrics need Authorization: Bearer <TDX_METRICS_TOKEN>.', code: 'unauthorized' } }));
          return;
        }
        prom.render().then(
          (text) => res.writeHead(200, { 'content-type': prom.contentType }).end(text),
          (err: unknown) => {
            logger.warn({ event: 'metrics:render-failed', err }, 'metrics could not be rendered');
            res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Internal error.', code: 'internal_error' } }));
          },
        );
      });
      const listening = await new Promise<boolean>((resolve, reject) => {
        s.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err)));
        s.listen(config.metrics.port, config.metrics.host, () => resolve(true));
      });
      if (!listening) {
        logger.warn({ event: 'metrics:port-taken', port: config.metrics.port }, 'metrics port taken; this process serves no /metrics (set TDX_METRICS_PORT)');
        return;
      }
      server = s;
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.metrics.port;
      logger.info({ event: 'metrics:listening', port }, 'metrics listening');
      out.write(`Metrics (Prometheus) on http://${config.metrics.host}:${port}/metrics${config.metrics.token ? ' (bearer token required)' : ''}\n`);
    },
    stop: async () => {
      const s = server;
      server = undefined;
      if (!s) return;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
  };
}
