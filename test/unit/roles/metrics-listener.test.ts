import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { metricsListenerRole } from '../../../src/roles/metrics-listener.ts';
import { Resources } from '../../../src/compose.ts';
import { buildRoles } from '../../../src/service.ts';
import { parseRoles } from '../../../src/main.ts';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';

function listener(env: Record<string, string>): { resources: Resources; printed: () => string; role: ReturnType<typeof metricsListenerRole> } {
  const config = loadConfig({ TDX_LOG_LEVEL: 'silent', ...env });
  const resources = new Resources(config, createLogger(config), ['node:mapping']);
  let printed = '';
  return { resources, printed: () => printed, role: metricsListenerRole(resources, { write: (t: string) => (printed += t) }) };
}

describe('the metrics listener of a process without the API', () => {
  it('serves GET /metrics on its own port, and nothing else', async () => {
    const l = listener({ TDX_METRICS_PORT: '0' });
    await l.role.start();
    try {
      const url = /Metrics \(Prometheus\) on (http:\/\/\S+)/.exec(l.printed())?.[1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      l.resources.metrics.consumer('node:mapping', 'node.mapping').handled(2, 0.01);
      const res = await fetch(url!);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('tdx_pipeline_items_handled_total{consumer="node:mapping",group="node.mapping"} 2');
      expect(text).toContain('tdx_process_role{role="node:mapping"} 1');
      expect((await fetch(url!.replace('/metrics', '/platform/partners'))).status).toBe(404);
    } finally {
      await l.role.stop();
    }
  });

  it('requires the bearer token when TDX_METRICS_TOKEN is set', async () => {
    const l = listener({ TDX_METRICS_PORT: '0', TDX_METRICS_TOKEN: 'm3trics' });
    await l.role.start();
    try {
      const url = /on (http:\/\/\S+)/.exec(l.printed())![1]!;
      expect(l.printed()).toContain('(bearer token required)');
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Bearer m3trics' } })).status).toBe(200);
    } finally {
      await l.role.stop();
    }
  });

  it('runs on without a listener when its port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as { port: number }).port;
    const l = listener({ TDX_METRICS_PORT: String(port) });
    try {
      await expect(l.role.start()).resolves.toBeUndefined();
      expect(l.printed()).toBe('');
      await l.role.stop();
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  });

  it('starts nothing with TDX_METRICS=off, and the composition adds it only to processes without the API', async () => {
    const l = listener({ TDX_METRICS: 'off', TDX_METRICS_PORT: '0' });
    await l.role.start();
    expect(l.printed()).toBe('');
    await l.role.stop();
    const config = loadConfig({ TDX_LOG_LEVEL: 'silent' });
    const names = (spec: string) => buildRoles(new Resources(config, createLogger(config)), parseRoles(spec), process.stdout).map((r) => r.name);
    expect(names('all')).not.toContain('metrics');
    expect(names('node:mapping,scheduler')).toContain('metrics');
  });
});
