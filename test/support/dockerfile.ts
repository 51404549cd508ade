/**
 * Performs a Dockerfile's build where no container engine or registry is reachable: each stage
 * in its own folder under a scratch folder, its instructions in the file's order. COPY copies
 * (from the build context, honouring .dockerignore, or from an earlier stage's folder, the latter
 * and `FROM <stage>` with the system's `cp -a`: node_modules folders of 600 MB took Node's
 * recursive copy 11 s each on a loaded machine, `cp` about 1 s), RUN runs
 * its command through `sh -c` in the stage's WORKDIR with the stage's ENV, WORKDIR creates the
 * folder; `FROM <stage>` starts from a copy of that stage's folder; `FROM node:<major>-...`
 * starts empty, with the Node of this process standing for the image's (its major must match).
 * USER, EXPOSE, HEALTHCHECK, ENTRYPOINT and CMD are recorded for the caller to run or check.
 * Absolute paths of the image map into the stage's folder, so RUN commands must stay relative
 * to WORKDIR (the Dockerfile says so). Anything else is refused rather than skipped.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';

export interface Instruction {
  readonly line: number;
  readonly keyword: string;
  readonly args: string;
}

export interface Stage {
  readonly index: number;
  readonly name: string;
  readonly from: string;
  readonly instructions: Instruction[];
}

export interface ParsedDockerfile {
  readonly args: Map<string, string>;
  readonly stages: Stage[];
}

/** Splits the text into instructions (continuation lines joined, comments dropped) and stages. */
export function parseDockerfile(text: string): ParsedDockerfile {
  const instructions: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let l = lines[i]!;
    if (/^\s*(#|$)/.test(l)) continue;
    while (/\\\s*$/.test(l) && i + 1 < lines.length) {
      l = l.replace(/\\\s*$/, ' ');
      i++;
      if (!/^\s*#/.test(lines[i]!)) l += lines[i]!;
    }
    const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(l);
    if (!m) throw new Error(`Dockerfile line ${start + 1}: not an instruction: ${l}`);
    instructions.push({ line: start + 1, keyword: m[1]!.toUpperCase(), args: m[2]!.trim() });
  }
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`Dockerfile line ${ins.line}: FROM ${ins.args}`);
      stages.push({ index: stages.length, name: m[2] ?? String(stages.length), from: m[1]!, instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword !== 'ARG') throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} before the first FROM`);
      const [k, v = ''] = ins.args.split('=', 2) as [string, string?];
      args.set(k, v);
    } else {
      stages.at(-1)!.instructions.push(ins);
    }
  }
  return { args, stages };
}

/** The words of an exec-form (JSON array) or shell-form instruction. */
function execForm(args: string): string[] {
  return args.startsWith('[') ? (JSON.parse(args) as string[]) : ['/bin/sh', '-c', args];
}

/** `KEY=value KEY2="value 2"` (or the legacy `KEY value`) of ENV. */
function parseEnv(args: string, line: number): [string, string][] {
  if (!args.includes('=')) {
    const [k, ...v] = args.split(/\s+/);
    return [[k!, v.join(' ')]];
  }
  const out: [string, string][] = [];
  const re = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)\s*/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < args.length && (m = re.exec(args))) {
    const raw = m[2]!;
    out.push([m[1]!, raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw.startsWith("'") ? raw.slice(1, -1) : raw]);
  }
  if (re.lastIndex < args.length) throw new Error(`Dockerfile line ${line}: ENV ${args}`);
  return out;
}

/** .dockerignore patterns as tests on a context-relative path (no `!` exceptions: refused). */
function dockerignore(context: string): (rel: string) => boolean {
  const file = join(context, '.dockerignore');
  if (!existsSync(file)) return () => false;
  const patterns = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  if (patterns.some((p) => p.startsWith('!'))) throw new Error('.dockerignore exceptions (!) are not supported here');
  const res = patterns.map((p) => new RegExp(`^${p.replace(/^\/+|\/+$/g, '').replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\0').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\0/g, '.*')}(/.*)?$`));
  return (rel) => res.some((r) => r.test(rel));
}

export interface BuiltStage {
  readonly name: string;
  /** The stage's filesystem: an image path P is at join(root, P). */
  readonly root: string;
  readonly workdir: string;
  readonly env: Record<string, string>;
  readonly user: string | undefined;
  readonly healthcheck: string[] | undefined;
  readonly entrypoint: string[];
  readonly cmd: string[];
  readonly exposed: string[];
}

export interface BuildOptions {
  readonly context: string;
  readonly scratch: string;
  /** Environment every RUN starts from (PATH with the Node standing for the base image's, HOME for npm's cache). */
  readonly baseEnv: Record<string, string>;
  /** Called before each instruction runs, for progress output. */
  readonly onStep?: (stage: string, ins: Instruction) => void;
  /** Called once each instruction has run, with how long it took (ms). */
  readonly onStepDone?: (stage: string, ins: Instruction, ms: number) => void;
  /** Build only this stage and the stages it needs (`docker build --target`); every stage by default. */
  readonly target?: string;
}

/** Thrown when an instruction fails; says which, with the end of its output. */
export class DockerBuildError extends Error {
  constructor(
    readonly stage: string,
    readonly instruction: Instruction,
    readonly output: string,
  ) {
    super(`stage ${stage}, Dockerfile line ${instruction.line}: ${instruction.keyword} ${instruction.args} failed:\n${output.slice(-3000)}`);
  }
}

/**
 * A copy of a stage's file or folder, links, modes and times kept (what a layer holds), with the
 * system's `cp -a`: a folder's contents go into `to`, which may exist.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const dir = statSync(from).isDirectory();
  if (dir) mkdirSync(to, { recursive: true });
  else mkdirSync(dirname(to), { recursive: true });
  // `from/.`: the folder's contents (path.join would drop the `.`)
  const r = await run(['cp', '-a', dir ? `${from}/.` : from, to], process.cwd(), { PATH: process.env['PATH'] ?? '/usr/bin:/bin' });
  if (r.code !== 0) throw new Error(`cp -a ${from} ${to} failed (exit ${r.code}): ${r.output}`);
}

function run(argv: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * Builds every stage and returns them by name. A stage starts once the stages it starts from
 * (FROM) and copies from (COPY --from) are built, so independent stages build side by side, as
 * BuildKit builds them. When stages fail, the error is the first failed stage's (in the file's
 * order), thrown once every stage has stopped.
 */
export async function buildDockerfile(file: ParsedDockerfile, o: BuildOptions): Promise<Map<string, BuiltStage>> {
  const ignored = dockerignore(o.context);
  const built = new Map<string, BuiltStage>();
  const nodeMajor = process.versions.node.split('.')[0]!;
  const fromOf = (stage: Stage): string => stage.from.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a?: string, b?: string) => file.args.get((a ?? b)!) ?? '');
  const depsOf = (stage: Stage): string[] => [
    fromOf(stage),
    ...stage.instructions.filter((i) => i.keyword === 'COPY').flatMap((i) => [...i.args.matchAll(/(?:^|\s)--from=(\S+)/g)].map((m) => m[1]!)),
  ];
  // `docker build --target`: only the stages the target needs
  const needed = new Set<string>();
  const need = (name: string): void => {
    const stage = file.stages.find((x) => x.name === name);
    if (!stage || needed.has(name)) return;
    needed.add(name);
    for (const d of depsOf(stage)) need(d);
  };
  if (o.target !== undefined) {
    if (!file.stages.some((x) => x.name === o.target)) throw new Error(`no stage ${o.target}`);
    need(o.target);
  }
  const tasks = new Map<string, Promise<void>>();
  const all = file.stages.flatMap((stage) => {
    if (o.target !== undefined && !needed.has(stage.name)) return [];
    const task = Promise.all(depsOf(stage).flatMap((name) => tasks.get(name) ?? [])).then(() => buildStage(stage));
    tasks.set(stage.name, task);
    return [task];
  });
  const failed = (await Promise.allSettled(all)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return built;

  async function buildStage(stage: Stage): Promise<void> {
    const from = fromOf(stage);
    const root = join(o.scratch, `${stage.index}-${stage.name}`);
    const parent = built.get(from);
    let s: { -readonly [K in keyof BuiltStage]: BuiltStage[K] };
    if (parent) {
      await copyTree(parent.root, root);
      s = { ...parent, name: stage.name, root, env: { ...parent.env } };
    } else {
      const m = /^node:(\d+)(?:[.-]|$)/.exec(from);
      if (!m) throw new Error(`stage ${stage.name}: base image ${from} is not node:<major>-...: nothing here stands for it`);
      if (m[1] !== nodeMajor) throw new Error(`stage ${stage.name}: base image ${from} needs Node ${m[1]}; this is Node ${process.versions.node}`);
      mkdirSync(root, { recursive: true });
      s = { name: stage.name, root, workdir: '/', env: {}, user: undefined, healthcheck: undefined, entrypoint: [], cmd: [], exposed: [] };
    }
    const inImage = (p: string): string => join(root, posix.resolve(s.workdir, p));
    for (const ins of stage.instructions) {
      o.onStep?.(stage.name, ins);
      const began = Date.now();
      switch (ins.keyword) {
        case 'WORKDIR':
          s.workdir = posix.resolve(s.workdir, ins.args);
          mkdirSync(inImage('.'), { recursive: true });
          break;
        case 'ENV':
          for (const [k, v] of parseEnv(ins.args, ins.line)) s.env[k] = v;
          break;
        case 'COPY': {
          const words = ins.args.split(/\s+/);
          let fromStage: BuiltStage | undefined;
          while (words[0]?.startsWith('--')) {
            const flag = words.shift()!;
            if (flag.startsWith('--from=')) {
              fromStage = built.get(flag.slice(7));
              if (!fromStage) throw new DockerBuildError(stage.name, ins, `no earlier stage ${flag.slice(7)}`);
            } else if (!flag.startsWith('--chown=')) {
              throw new DockerBuildError(stage.name, ins, `unsupported flag ${flag}`);
            }
          }
          const dest = words.pop()!;
          if (words.length === 0) throw new DockerBuildError(stage.name, ins, 'no source');
          const destPath = inImage(dest);
          const toDir = dest.endsWith('/') || words.length > 1;
          for (const src of words) {
            let from: string;
            if (fromStage) {
              from = join(fromStage.root, posix.resolve(fromStage.workdir, src));
            } else {
              const rel = posix.normalize(src).replace(/^\/+|\/+$/g, '');
              if (rel.startsWith('..') || ignored(rel)) throw new DockerBuildError(stage.name, ins, `${src} is outside the build context or excluded by .dockerignore`);
              from = join(o.context, rel);
            }
            if (!existsSync(from)) throw new DockerBuildError(stage.name, ins, `${src}: not found`);
            const isDir = statSync(from).isDirectory();
            const to = toDir && !isDir ? join(destPath, posix.basename(src)) : destPath;
            if (fromStage) {
              await copyTree(from, to);
              continue;
            }
            mkdirSync(isDir ? to : dirname(to), { recursive: true });
            await cp(from, to, {
              recursive: true,
              verbatimSymlinks: true,
              preserveTimestamps: true,
              filter: (p) => !ignored(p.slice(o.context.length + 1)),
            });
          }
          break;
        }
        case 'RUN': {
          // an absolute path would reach this machine's filesystem, not the stage's
          if (/(^|[\s=:'"])\/(?!dev\/null\b)/.test(ins.args)) throw new DockerBuildError(stage.name, ins, 'a RUN command with an absolute path cannot run here: keep it relative to WORKDIR');
          const r = await run(execForm(ins.args), inImage('.'), { ...o.baseEnv, ...s.env });
          if (r.code !== 0) throw new DockerBuildError(stage.name, ins, `exit ${r.code}\n${r.output}`);
          break;
        }
        case 'USER':
          s.user = ins.args;
          break;
        case 'EXPOSE':
          s.exposed = [...s.exposed, ...ins.args.split(/\s+/)];
          break;
        case 'ENTRYPOINT':
          s.entrypoint = execForm(ins.args);
          s.cmd = [];
          break;
        case 'CMD':
          s.cmd = execForm(ins.args);
          break;
        case 'HEALTHCHECK': {
          const m = /^(?:--\S+\s+)*CMD\s+(.*)$/.exec(ins.args);
          if (!m) throw new DockerBuildError(stage.name, ins, 'HEALTHCHECK without CMD');
          s.healthcheck = execForm(m[1]!);
          break;
        }
        case 'ARG': {
          const [k, v] = ins.args.split('=', 2) as [string, string?];
          if (v !== undefined) file.args.set(k, v);
          break;
        }
        default:
          throw new DockerBuildError(stage.name, ins, `${ins.keyword} is not supported here`);
      }
      o.onStepDone?.(stage.name, ins, Date.now() - began);
    }
    built.set(stage.name, s);
  }
}

/** The argv of a command of the image (ENTRYPOINT, HEALTHCHECK), with its absolute program path mapped into the stage. */
export function imageCommand(stage: BuiltStage, argv: readonly string[]): string[] {
  const [program, ...rest] = argv;
  if (!program) throw new Error('empty command');
  return [program.startsWith('/') && existsSync(join(stage.root, program)) ? join(stage.root, program) : program, ...rest];
}
