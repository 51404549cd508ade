/**
 * The service as separate processes (`tdx start --role ...`), each one supervised: its JSON log
 * lines go to a file of its own, `role:started` lines tell when it is up, and a process that
 * exits without being asked to (a crash, or a start refused while a store is down) is started
 * again after a short pause, as an orchestrator would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { serviceNodeFlags } from '../support/service-node-flags.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ProcessSpec {
  /** Short name in reports (`api+materializer`, `x12_split`). */
  readonly name: string;
  /** `--role` value. */
  readonly roles: string;
  /** Roles whose `role:started` line means the process is up. */
  readonly expect: readonly string[];
}

export interface Supervised {
  readonly spec: ProcessSpec;
  readonly pid: number | undefined;
  /** Starts it (unless running); resolves once every expected role logged `role:started`. */
  start(timeoutMs: number): Promise<void>;
  /** SIGKILL; resolves once it is gone. The supervisor does not restart it by itself. */
  kill(): Promise<void>;
  /** SIGTERM and wait (no restart). */
  stop(): Promise<void>;
  /** Unplanned exits seen (crashes, refused starts). */
  readonly unplannedExits: number;
  /** Last lines of its log at warn level or above, for reports. */
  readonly recentProblems: readonly string[];
}

export interface SupervisorOptions {
  readonly env: Record<string, string>;
  readonly logDir: string;
  /** Pause before restarting a process that exited by itself. @default 2000 */
  readonly restartDelayMs?: number;
  readonly onLine?: (name: string, line: Record<string, unknown>) => void;
  readonly onUnplannedExit?: (name: string, code: number | null, signal: string | null) => void;
}

export function supervise(spec: ProcessSpec, opts: SupervisorOptions): Supervised {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let planned = false;
  let started = new Set<string>();
  const waiters: (() => void)[] = [];
  let unplanned = 0;
  const problems: string[] = [];
  let log: WriteStream | undefined;
  let stopped = false;

  const launch = (): void => {
    planned = false;
    started = new Set();
    log ??= createWriteStream(path.join(opts.logDir, `${spec.name.replace(/[^a-z0-9_+-]/gi, '_')}.log`), { flags: 'a' });
    const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
    delete env['NODE_OPTIONS'];
    delete env['VITEST'];
    const c = spawn(process.execPath, [...serviceNodeFlags(), 'bin/tdx.mjs', 'start', '--role', spec.roles], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    const orphan = (): void => void c.kill('SIGKILL');
    process.once('exit', orphan);
    const out = log;
    const lines = createInterface({ input: c.stdout });
    lines.on('line', (text) => {
      out.write(`${text}\n`);
      if (!text.startsWith('{')) return;
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      if (line['event'] === 'role:started' && typeof line['role'] === 'string') {
        started.add(line['role']);
        if (spec.expect.every((r) => started.has(r))) for (const w of waiters.splice(0)) w();
      }
      if (typeof line['level'] === 'number' && line['level'] >= 50) {
        problems.push(text.slice(0, 600));
        if (problems.length > 20) problems.shift();
      }
      opts.onLine?.(spec.name, line);
    });
    createInterface({ input: c.stderr }).on('line', (text) => {
      out.write(`[stderr] ${text}\n`);
      problems.push(`[stderr] ${text.slice(0, 600)}`);
      if (problems.length > 20) problems.shift();
    });
    exited = new Promise((resolve) =>
      c.once('exit', (code, signal) => {
        process.removeListener('exit', orphan);
        out.write(`[supervisor] exited code=${code} signal=${signal}${planned ? ' (planned)' : ''}\n`);
        resolve();
        if (!planned && !stopped) {
          unplanned++;
          opts.onUnplannedExit?.(spec.name, code, signal);
          setTimeout(() => {
            if (!stopped && child === c) launch();
          }, opts.restartDelayMs ?? 2000).unref();
        }
      }),
    );
  };

  const running = (): boolean => child !== undefined && child.exitCode === null && child.signalCode === null;

  return {
    spec,
    get pid() {
      return child?.pid;
    },
    get unplannedExits() {
      return unplanned;
    },
    get recentProblems() {
      return problems;
    },
    async start(timeoutMs) {
      stopped = false;
      if (!running()) launch();
      if (spec.expect.every((r) => started.has(r))) return;
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`${spec.name} did not start within ${Math.round(timeoutMs / 1000)} s; see ${opts.logDir}`)), timeoutMs);
        waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    },
    async kill() {
      if (!running()) return;
      planned = true;
      child!.kill('SIGKILL');
      await exited;
    },
    async stop() {
      stopped = true;
      if (!running()) return;
      planned = true;
      child!.kill('SIGTERM');
      const c = child!;
      const t = setTimeout(() => c.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(t);
    },
  };
}
