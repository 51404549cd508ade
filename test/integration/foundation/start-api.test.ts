import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrate } from '../../../src/cli/commands/migrate.ts';
import { createLogger } from '../../../src/logger.ts';
import { captureIo, eventually, isolatedConfig, migrateWorkerKeyspace } from '../helpers/isolated-config.ts';

// the API only reads: the worker's shared keyspace (migrated once per worker) serves it
const iso = isolatedConfig({ TDX_API_PORT: '0', TDX_LOG_LEVEL: 'info' }, { sharedKeyspace: true });
const root = fileURLToPath(new URL('../../../', import.meta.url));
let child: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  const migrate = (parts: string[]) => runMigrate(iso.config, createLogger({ ...iso.config, logLevel: 'silent' }), captureIo().io, parts);
  await Promise.all([
    migrate(['topics', 'schemas']),
    migrateWorkerKeyspace(iso.config, () => migrate(['cassandra'])).then((shared) => (shared ? undefined : migrate(['cassandra']))),
    migrate(['clickhouse']),
  ]);
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await iso.cleanup();
});

describe('tdx start --role api', () => {
  it('answers /healthz, /readyz and /metrics against the real stack, and stops cleanly on SIGTERM', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...iso.env };
    delete env['NODE_OPTIONS'];
    child = spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', 'api'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const url = await eventually(() => /API listening on (http:\/\/\S+)/.exec(output)?.[1], 90_000, `the API to listen (output so far: ${output.slice(-500)})`);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const ready = await fetch(`${url}/readyz`);
    const body = (await ready.json()) as { status: string; checks: { name: string; ok: boolean }[] };
    expect(ready.status).toBe(200);
    expect(body.status).toBe('ready');
    expect(body.checks.map((c) => c.name).sort()).toEqual(['cassandra', 'clickhouse', 'kafka', 'schema-registry']);
    expect(body.checks.every((c) => c.ok)).toBe(true);

    // Prometheus metrics on the API's port, announced at start
    expect(output).toContain(`Metrics (Prometheus) on ${url}/metrics`);
    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toContain('tdx_process_role{role="api"} 1');
    expect(text).toMatch(/tdx_http_requests_total\{route="\/readyz",method="GET",status="200"\} 1/);
    expect(text).toMatch(/tdx_store_up\{store="cassandra"\} 1/);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('process:stopped');
  });
});
