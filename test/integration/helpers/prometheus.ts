/**
 * A real Prometheus server (Debian's `prometheus` package) for tests: its own temporary data
 * folder, a free loopback port, a short scrape and evaluation interval, and the targets and rule
 * files given. `query` asks its HTTP API (`/api/v1/query`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PromServer {
  readonly url: string;
  /** The instant vector of `expr`: each series' labels and value. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** The sum of every series of `expr` (0 when there is none). */
  sum(expr: string): Promise<number>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export async function startPrometheus(opts: { targets: readonly string[]; job?: string; ruleFiles?: readonly string[]; intervalSeconds?: number; bearerToken?: string }): Promise<PromServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tdx-prom-'));
  const interval = `${opts.intervalSeconds ?? 1}s`;
  const job = opts.job ?? 'tdx';
  const tokenFile = path.join(dir, 'token');
  if (opts.bearerToken) writeFileSync(tokenFile, opts.bearerToken);
  const config = [
    'global:',
    `  scrape_interval: ${interval}`,
    `  scrape_timeout: ${interval}`,
    `  evaluation_interval: ${interval}`,
    'rule_files:',
    ...(opts.ruleFiles ?? []).map((f) => `  - ${JSON.stringify(f)}`),
    ...(opts.ruleFiles?.length ? [] : ['  []']),
    'scrape_configs:',
    `  - job_name: ${job}`,
    ...(opts.bearerToken ? ['    authorization:', '      type: Bearer', `      credentials_file: ${JSON.stringify(tokenFile)}`] : []),
    '    static_configs:',
    `      - targets: [${opts.targets.map((t) => JSON.stringify(t)).join(', ')}]`,
  ]
    .join('\n')
    .replace('rule_files:\n  []', 'rule_files: []');
  writeFileSync(path.join(dir, 'prometheus.yml'), `${config}\n`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const child: ChildProcess = spawn(
    'prometheus',
    [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--storage.tsdb.retention.time=1h', '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited at start: ${log}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus not ready after 30 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const query = async (expr: string): Promise<{ metric: Record<string, string>; value: number }[]> => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] } };
    if (body.status !== 'success' || !body.data) throw new Error(`query ${expr} failed: ${body.error ?? res.status}`);
    return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  };
  return {
    url,
    query,
    sum: async (expr) => (await query(expr)).reduce((a, r) => a + r.value, 0),
    stop,
  };
}
