/**
 * The Koa application: one error middleware (the only place an error becomes a response),
 * health endpoints, `/metrics` (Prometheus, docs/observability.md), and the /platform API
 * mounted from src/http/platform.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import { TdxError, isTdxError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { HttpMeter } from '../domain/metrics.ts';

/** What `/metrics` serves, and who may read it. */
export interface MetricsEndpoint {
  readonly http: HttpMeter;
  readonly contentType: string;
  render(): Promise<string>;
  /** True when the request may read the metrics (the bearer token, when one is configured). */
  authorized(authorization: string | undefined): boolean;
}

/** A dependency the API needs to serve traffic; `/readyz` runs every check. */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<void>;
}

export interface AppDeps {
  readonly logger: Logger;
  readonly checks: readonly HealthCheck[];
  /** Routers mounted after the health endpoints (the /platform API). */
  readonly routers?: readonly Router[];
  /** `/metrics` and the request metrics; none when metrics are off. */
  readonly metrics?: MetricsEndpoint;
  /** SERVER spans of the requests; only when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT). */
  readonly tracer?: HttpTracer;
}

/** Opens the SERVER span of one request (src/adapters/tracing/otlp.ts). */
export interface HttpTracer {
  server(traceparent: string | undefined): { end(method: string, route: string | undefined, status: number, attributes?: Record<string, string | number>): void };
}

/**
 * A SERVER span per request, named by method and route template (`GET /platform/results/:id`;
 * the method alone when no route matched: never the raw path), parented by the request's
 * `traceparent`. A request that started a document's run (a submission) carries its trace GUID
 * (`tdx.trace_guid`), which is how the run's own trace is found. Outermost, like the metrics.
 */
export function httpTracingMiddleware(tracer: HttpTracer): Koa.Middleware {
  return async (ctx, next) => {
    const span = tracer.server(ctx.get('traceparent') || undefined);
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const body = ctx.body as { traceGuid?: unknown } | null | undefined;
      const traceGuid = body && typeof body === 'object' && typeof body.traceGuid === 'string' ? body.traceGuid : undefined;
      span.end(ctx.method, typeof route === 'string' ? route : undefined, ctx.status, traceGuid === undefined ? {} : { 'tdx.trace_guid': traceGuid });
    }
  };
}

/**
 * Counts every request by route template (the router's matched pattern, `unmatched` when no
 * route matched: never the raw path, whose ids would make the label unbounded), method and
 * final status, with its latency. Outermost, so it sees the status the error middleware set.
 */
export function httpMetricsMiddleware(meter: HttpMeter): Koa.Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      meter.request(typeof route === 'string' ? route : 'unmatched', ctx.method, ctx.status, (performance.now() - started) / 1000);
    }
  };
}

/** Renders every thrown error as `{"error": {message, code, reason?}}`; 5xx text never leaks. */
export function errorMiddleware(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new TdxError('not_found', `No route for ${ctx.method} ${ctx.path}.`, { reason: 'route' });
      }
    } catch (err) {
      const e = isTdxError(err) ? err : new TdxError('internal_error', 'Internal error.', { cause: err });
      if (!e.expose) {
        logger.error({ event: 'api:error', err, reqId: ctx.state['reqId'] as string | undefined }, 'request failed');
      }
      ctx.status = e.status;
      if (e.code === 'rate_limited' && typeof e.details['retryAfterSeconds'] === 'number') {
        ctx.set('Retry-After', String(e.details['retryAfterSeconds']));
      }
      // A passing outage of any store or the broker is one contract code to the caller:
      // 503 service_unavailable (Retry-After: try again shortly); the cause is in the logs.
      if (e.status === 503) {
        ctx.set('Retry-After', '5');
        ctx.body = { error: { message: 'Service unavailable: a store or the broker does not answer; retry shortly.', code: 'service_unavailable' } };
        return;
      }
      const message = e.expose ? e.message : 'Internal error.';
      ctx.body = { error: { message, code: e.code, ...(e.reason === undefined ? {} : { reason: e.reason }) } };
    }
  };
}

/**
 * The routers' answer to a method its matched path does not take, as a contract error: 405
 * `method_not_allowed` with the `Allow` header, for a known method (PUT) and for one the router
 * does not implement at all (TRACE, QUERY), which it would otherwise answer with an empty 501, a
 * server error for what is the caller's mistake.
 */
function methodNotAllowed(): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body == null) {
      const allow = ctx.response.get('Allow');
      throw new TdxError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}${allow ? `; allowed: ${allow}` : ''}.`);
    }
  };
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = true;
  const metrics = deps.metrics;
  if (deps.tracer) app.use(httpTracingMiddleware(deps.tracer));
  if (metrics) app.use(httpMetricsMiddleware(metrics.http));
  app.use(async (ctx, next) => {
    ctx.state['reqId'] = ctx.get('x-request-id') || randomUUID();
    ctx.set('x-request-id', ctx.state['reqId'] as string);
    await next();
  });
  app.use(errorMiddleware(deps.logger));

  const health = new Router();
  health.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/readyz', async (ctx) => {
    const results = await Promise.all(
      deps.checks.map(async (c) => {
        const started = Date.now();
        try {
          await c.check();
          return { name: c.name, ok: true, ms: Date.now() - started };
        } catch (err) {
          deps.logger.warn({ event: 'api:readyz:failed', check: c.name, err }, 'readiness check failed');
          return { name: c.name, ok: false, ms: Date.now() - started };
        }
      }),
    );
    const ready = results.every((r) => r.ok);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks: results };
  });
  if (metrics) {
    health.get('/metrics', async (ctx) => {
      if (!metrics.authorized(ctx.get('authorization') || undefined)) {
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new TdxError('unauthorized', 'The metrics need Authorization: Bearer <TDX_METRICS_TOKEN>.');
      }
      ctx.type = metrics.contentType;
      ctx.body = await metrics.render();
    });
  }
  app.use(health.routes());
  app.use(methodNotAllowed());
  for (const r of deps.routers ?? []) {
    app.use(r.routes());
    app.use(r.allowedMethods());
  }
  app.on('error', (err: unknown) => {
    deps.logger.error({ event: 'api:unhandled', err }, 'unhandled error');
  });
  return app;
}
