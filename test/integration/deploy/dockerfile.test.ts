/**
 * The Dockerfile's recipe, proven without a container engine (no registry is reachable here):
 * test/support/dockerfile.ts performs its stages in a scratch folder (the same commands in the
 * same order, read from the Dockerfile itself; COPY copies, RUN runs through sh, on this Node 24
 * standing for node:24), then the images' entry point runs `tdx x12 parse`, `tdx migrate` and
 * `tdx start --role api` against the local stack, and the HEALTHCHECK command judges it. The
 * Dockerfile as it was (npm ci, and so the package's `prepare` build, before the sources are
 * copied) is a fixture that must fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { freemem, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDockerfile, DockerBuildError, imageCommand, parseDockerfile, type BuiltStage } from '../../support/dockerfile.ts';
import { eventually, isolatedConfig } from '../helpers/isolated-config.ts';
import { serviceNodeFlags } from '../../support/service-node-flags.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * Where the stages are built: about 4 GB in 200,000 files (node_modules five times over). In
 * memory (/dev/shm) when it and the machine have room for it twice over: on the disk, removing
 * the folder took 58 s and the installs waited on the disk while other tests wrote to it.
 */
function scratchParent(): string {
  const shm = '/dev/shm';
  try {
    const fs = statfsSync(shm);
    if (fs.bavail * fs.bsize > 8 * 2 ** 30 && freemem() > 8 * 2 ** 30) {
      // what a run that was killed before its clean-up left (over two hours old)
      for (const d of readdirSync(shm)) {
        if (d.startsWith('tdx-dockerfile-') && Date.now() - statSync(join(shm, d)).mtimeMs > 2 * 3600_000) rmSync(join(shm, d), { recursive: true, force: true });
      }
      return shm;
    }
  } catch {
    /* no /dev/shm here */
  }
  return tmpdir();
}
const scratch = mkdtempSync(join(scratchParent(), 'tdx-dockerfile-'));
// what the base image provides: its node, npm and npx on PATH (this process's Node), a HOME
// (npm's cache here, so npm ci needs no download it already made)
const baseEnv: Record<string, string> = {
  PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
  HOME: process.env['HOME'] ?? tmpdir(),
  ...(process.env['npm_config_cache'] ? { npm_config_cache: process.env['npm_config_cache'] } : {}),
};
const iso = isolatedConfig({ TDX_LOG_LEVEL: 'info' });
let stages: Map<string, BuiltStage>;
let broken: Promise<unknown>;
const timings: string[] = [];
const children: ChildProcess[] = [];

function exec(stage: BuiltStage, argv: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<{ code: number | null; out: string }> } {
  const [program, ...rest] = imageCommand(stage, argv);
  const child = spawn(program!, rest, { cwd: join(stage.root, stage.workdir), env: { ...baseEnv, ...stage.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<{ code: number | null; out: string }>((resolve) => child.on('close', (code) => resolve({ code, out })));
  return { child, done };
}

/** `docker run <image> <args>`: the ENTRYPOINT with the arguments. */
function runImage(stage: BuiltStage, args: string[], env: Record<string, string> = {}) {
  return exec(stage, [...stage.entrypoint, ...args], env);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  const started = Date.now();
  // how long each RUN and COPY took, by stage and Dockerfile line
  const onStepDone = (label: string) => (stage: string, ins: { line: number; keyword: string }, ms: number) => {
    if (ins.keyword === 'RUN' || ins.keyword === 'COPY') timings.push(`${label}:${stage}:${ins.line} ${ins.keyword} ${ms} ms`);
  };
  // the broken recipe's build stage (`--target build`) builds alongside (as independent builds
  // would), its failure awaited below
  // Its `npm ci --omit=optional` leaves out esbuild's platform package, so esbuild's install
  // script (which runs before the package's own `prepare`) would fetch it from the registry, which
  // this machine may not reach: it is pointed at the project's copy of that binary instead
  // (ESBUILD_BINARY_PATH, esbuild's own override), so the step fails where the order breaks it.
  const esbuildBinary = join(root, `node_modules/@esbuild/${process.platform}-${process.arch}/bin/esbuild`);
  const brokenEnv = existsSync(esbuildBinary) ? { ...baseEnv, ESBUILD_BINARY_PATH: esbuildBinary } : baseEnv;
  const fixture = parseDockerfile(readFileSync(join(root, 'test/fixtures/docker/Dockerfile.prepare-before-sources'), 'utf8'));
  broken = buildDockerfile(fixture, { context: root, scratch: join(scratch, 'broken'), baseEnv: brokenEnv, onStepDone: onStepDone('broken'), target: 'build' }).then(
    () => null,
    (err: unknown) => err,
  );
  const file = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
  stages = await buildDockerfile(file, { context: root, scratch: join(scratch, 'good'), baseEnv, onStepDone: onStepDone('good') });
  process.stderr.write(`dockerfile: stages built in ${Date.now() - started} ms on Node ${process.version} in ${scratch}\n`);
}, 600_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await broken?.catch(() => undefined);
  const started = Date.now();
  await iso.cleanup();
  const cleaned = Date.now();
  rmSync(scratch, { recursive: true, force: true });
  process.stderr.write(`dockerfile: cleaned up the stack in ${cleaned - started} ms, the scratch folder in ${Date.now() - cleaned} ms\n`);
});

describe('the Dockerfile, performed stage by stage', () => {
  it('ships the compiled dist/ with production dependencies only, as a non-root user, with a HEALTHCHECK; chDB only in the embedded target', () => {
    const file = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
    expect(file.stages.at(-1)!.name).toBe('server'); // the default target
    for (const name of ['server', 'embedded']) {
      const s = stages.get(name)!;
      const app = join(s.root, s.workdir);
      expect(s.user, name).toBe('node');
      expect(s.healthcheck, name).toBeDefined();
      expect(s.exposed).toEqual(['8080']);
      expect(existsSync(join(app, 'dist/cli/tdx.js'))).toBe(true);
      expect(existsSync(join(app, 'dist/.built'))).toBe(true);
      // no sources, no TypeScript runner or compiler, no test tooling
      for (const absent of ['src', 'test', 'node_modules/typescript', 'node_modules/tsx', 'node_modules/esbuild', 'node_modules/vitest', 'node_modules/eslint', 'node_modules/@types/koa']) {
        expect(existsSync(join(app, absent)), `${name}: ${absent}`).toBe(false);
      }
      for (const present of ['node_modules/kafkajs', 'node_modules/pino', 'node_modules/ssh2', 'topics', 'schemas']) expect(existsSync(join(app, present)), `${name}: ${present}`).toBe(true);
    }
    expect(existsSync(join(stages.get('server')!.root, 'app/node_modules/@chdb'))).toBe(false);
    expect(existsSync(join(stages.get('embedded')!.root, 'app/node_modules/@chdb'))).toBe(true);
    process.stderr.write(`dockerfile: ${timings.join(', ')}\n`);
  });

  it('runs `tdx x12 parse` on a sample file from the compiled code', async () => {
    const server = stages.get('server')!;
    // the sample goes in as a container would get it: a file inside the image's filesystem
    const { done } = runImage(server, ['x12', 'parse', join(root, 'deploy/demo/samples/globex-850.edi')]);
    const r = await done;
    expect(r.code, r.out).toBe(0);
    const first = JSON.parse(r.out.split('\n')[0]!) as { transactionSetIdentifier: string; receiverExtid: string };
    expect(first).toMatchObject({ transactionSetIdentifier: '850', receiverExtid: 'DEMOCORP' });
  });

  it('migrates and starts `tdx start --role api` against the local stack; /healthz answers and the HEALTHCHECK passes, then fails once it stopped', async () => {
    const embedded = stages.get('embedded')!;
    const port = await freePort();
    // `docker run -e ...`: the addresses of the stack and an isolated keyspace, topics and chDB folder
    const env = { ...iso.env, TDX_API_PORT: String(port), TDX_API_HOST: '127.0.0.1' };
    const migrate = await runImage(embedded, ['migrate'], env).done;
    expect(migrate.code, migrate.out.slice(-2000)).toBe(0);

    const api = runImage(embedded, ['start', '--role', 'api'], env);
    let output = '';
    api.child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    // a JSON log line (TDX_LOG_FORMAT=json in the image)
    const listening = await eventually(
      () => output.split('\n').find((l) => l.startsWith('{') && (JSON.parse(l) as { event?: string }).event === 'api:listening'),
      90_000,
      `the API to listen (output: ${output.slice(-1000)})`,
    );
    expect(JSON.parse(listening)).toMatchObject({ port });
    // the entry point ran `tdx start` with the service processes' Node flags
    const argv = readFileSync(`/proc/${api.child.pid}/cmdline`, 'utf8').split('\0');
    expect(serviceNodeFlags().length).toBeGreaterThan(0);
    for (const flag of serviceNodeFlags()) expect(argv).toContain(flag);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);

    const check = await exec(embedded, embedded.healthcheck!, env).done;
    expect(check.code, check.out).toBe(0);

    api.child.kill('SIGTERM');
    expect((await api.done).code).toBe(0);
    const after = await exec(embedded, embedded.healthcheck!, env).done;
    expect(after.code).toBe(1);
  });

  it('fails when npm ci (and with it the prepare build) runs before the sources are copied, as the Dockerfile once did', async () => {
    const err = await broken;
    expect(err).toBeInstanceOf(DockerBuildError);
    const e = err as DockerBuildError;
    expect(e.instruction.keyword).toBe('RUN');
    expect(e.instruction.args).toMatch(/^npm ci /);
    // the package's prepare script could not find what it builds with
    expect(e.output).toMatch(/bin\/build\.mjs/);
  });
});
