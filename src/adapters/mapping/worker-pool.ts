/**
 * The mapping engine (src/domain/mapping-engine.ts) over a small pool of worker processes
 * (mapping-worker.mjs, forked with an IPC channel). A JSONata evaluation never yields to the
 * event loop, and compiling the schema of a large transaction set takes seconds, so neither runs
 * on the caller's thread: the caller's consumers keep heartbeating and its timers keep firing.
 *
 * Processes rather than worker threads: a worker thread's `resourceLimits` do not contain one
 * large allocation (`$pad("", 100000000)` in a thread capped at 64 MB aborts the whole process
 * with "Reached heap limit"), whereas a child process capped with `--max-old-space-size` dies
 * alone (docs/mappings.md).
 *
 * Bounds of one job:
 * - JSONata's own `timeout`, `stack` (depth) and `sequence` (length) options, which end an
 *   evaluation with D1012, D1011 or D2015 between two steps of the evaluator;
 * - a wall-clock guard in this process (the timeout plus `graceMs`): a worker that has not
 *   answered by then (stuck inside one built-in function, a huge regular expression, a huge JSON
 *   parse) is killed and replaced;
 * - the heap cap of each worker: a mapping that needs more memory ends its worker, the job fails
 *   and the worker is replaced.
 * Every one of them ends as `{ok: false, kind: 'expression'}`, never as a stuck caller.
 *
 * Jobs wait in one first-in, first-out queue and go to the first idle worker. Workers start on
 * the first job and are unreferenced while idle, so an idle pool never keeps a process alive.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { expressionLocation } from '../../domain/mapping-engine.ts';
import type { MappingEngine, MappingExpressionFailure, MappingResult, MappingRunOptions, SchemaRef } from '../../domain/mapping-engine.ts';

export interface MappingPoolOptions {
  /** Worker processes. */
  readonly workers: number;
  /** Longest evaluation of one mapping (JSONata's `timeout`, and the base of the guard). */
  readonly timeoutMs: number;
  /** Heap cap of each worker (`--max-old-space-size`). */
  readonly heapMb: number;
  /** Deepest JSONata evaluation stack (about three levels per nested function call). @default 5000 */
  readonly stackDepth?: number;
  /** Longest JSONata sequence. @default 5000000 */
  readonly maxSequence?: number;
  /** Wall-clock time a job may take beyond its timeout (parsing input, writing output) before its worker is killed. @default 2000 */
  readonly graceMs?: number;
  /** Wall-clock bound of a validation (the first use of a schema compiles it). @default 120000 */
  readonly validationTimeoutMs?: number;
  /** Compiled expressions kept per worker. @default 256 */
  readonly maxExpressions?: number;
  /** Compiled schemas kept per worker. @default 16 */
  readonly maxValidators?: number;
}

const WORKER_URL = new URL('./mapping-worker.mjs', import.meta.url);

interface RunPayload {
  readonly type: 'run';
  readonly expression: string;
  readonly input: string;
  readonly timeout: number;
  readonly cacheKey?: string;
  readonly schemaJson?: string;
}

interface ValidatePayload {
  readonly type: 'validate';
  readonly json: string;
  readonly cacheKey: string;
  readonly schemaJson: string;
}

type Reply =
  | { readonly id: number; readonly type: 'validating' }
  | { readonly id: number; readonly ok: true; readonly output?: string; readonly violations?: string[] }
  | { readonly id: number; readonly ok: false; readonly code: string; readonly message: string; readonly position?: number; readonly token?: string; readonly value?: number | string };

interface Job {
  readonly id: number;
  readonly payload: RunPayload | ValidatePayload;
  /** Guard before the answer (or before validation starts, for a run). */
  readonly guardMs: number;
  readonly resolve: (reply: Reply) => void;
  readonly reject: (err: Error) => void;
  /** The answer when the worker is lost (guard, memory, exit). */
  readonly lost: (cause: 'timeout' | 'out_of_memory' | 'worker_exit', detail: string) => void;
}

interface Slot {
  readonly child: ChildProcess;
  ready: boolean;
  dead: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  /** The end of the worker's standard error: a fatal out-of-memory report lands there. */
  stderr: string;
}

/** V8's report of a heap that reached its cap. */
const OUT_OF_MEMORY = /heap limit|heap out of memory|allocation failed/i;

const sentence = (s: string): string => {
  const t = s.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
};

export class MappingWorkerPool implements MappingEngine {
  private readonly size: number;
  private readonly timeoutMs: number;
  private readonly heapMb: number;
  private readonly stackDepth: number;
  private readonly maxSequence: number;
  private readonly graceMs: number;
  private readonly validationTimeoutMs: number;
  private readonly workerSettings: string;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly schemaTexts = new Map<string, string>();
  private nextId = 1;
  private closed = false;
  /** Set when a worker died before it was ready: new workers are not started until the next job. */
  private startFailure: string | null = null;

  constructor(options: MappingPoolOptions) {
    this.size = Math.max(1, Math.floor(options.workers));
    this.timeoutMs = options.timeoutMs;
    this.heapMb = options.heapMb;
    this.stackDepth = options.stackDepth ?? 5000;
    this.maxSequence = options.maxSequence ?? 5_000_000;
    this.graceMs = options.graceMs ?? 2000;
    this.validationTimeoutMs = options.validationTimeoutMs ?? 120_000;
    this.workerSettings = JSON.stringify({
      stackDepth: this.stackDepth,
      maxSequence: this.maxSequence,
      maxExpressions: options.maxExpressions ?? 256,
      maxValidators: options.maxValidators ?? 16,
    });
  }

  /** Workers alive now (started or starting). */
  get workerCount(): number {
    return this.slots.length;
  }

  run(expression: string, inputJson: string, options: MappingRunOptions = {}): Promise<MappingResult> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const v = options.validateWith;
    const payload: RunPayload = v
      ? { type: 'run', expression, input: inputJson, timeout: timeoutMs, cacheKey: v.cacheKey, schemaJson: this.schemaText(v) }
      : { type: 'run', expression, input: inputJson, timeout: timeoutMs };
    return new Promise<MappingResult>((resolve, reject) => {
      this.enqueue({
        id: this.nextId++,
        payload,
        guardMs: timeoutMs + this.graceMs,
        resolve: (reply) => {
          if ('type' in reply) return;
          if (reply.ok) {
            const out = { ok: true as const, outputJson: reply.output ?? 'null' };
            resolve(reply.violations === undefined ? out : { ...out, violations: reply.violations });
          } else if (reply.code === 'worker_error') reject(new Error(`mapping worker failed: ${reply.message}`));
          else resolve(this.failure(expression, reply, timeoutMs));
        },
        reject,
        lost: (cause, detail) => resolve(this.lostFailure(cause, detail, timeoutMs)),
      });
    });
  }

  validate(schema: SchemaRef, json: string): Promise<string[]> {
    const payload: ValidatePayload = { type: 'validate', json, cacheKey: schema.cacheKey, schemaJson: this.schemaText(schema) };
    return new Promise<string[]>((resolve, reject) => {
      this.enqueue({
        id: this.nextId++,
        payload,
        guardMs: this.validationTimeoutMs,
        resolve: (reply) => {
          if ('type' in reply) return;
          if (reply.ok) resolve(reply.violations ?? []);
          else reject(new Error(reply.code === 'input_not_json' ? `not valid JSON: ${reply.message}` : `validation failed: ${reply.message}`));
        },
        reject,
        lost: (cause, detail) => reject(new Error(cause === 'timeout' ? `validation did not finish within ${this.validationTimeoutMs} ms` : `validation worker stopped: ${detail}`)),
      });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const err = new Error('the mapping engine is closed');
    for (const job of this.queue.splice(0)) job.reject(err);
    const stopping: Promise<void>[] = [];
    for (const slot of this.slots.splice(0)) {
      slot.dead = true;
      if (slot.timer) clearTimeout(slot.timer);
      slot.job?.reject(err);
      slot.job = null;
      const child = slot.child;
      if (child.exitCode === null && child.signalCode === null) {
        stopping.push(new Promise<void>((resolve) => child.once('exit', () => resolve())));
        // referenced until it has exited, so that this wait keeps the process alive
        child.ref();
        child.kill('SIGKILL');
      }
    }
    await Promise.all(stopping);
  }

  /** JSON text of a schema, made once per cache key. */
  private schemaText(ref: SchemaRef): string {
    let text = this.schemaTexts.get(ref.cacheKey);
    if (text === undefined) {
      text = JSON.stringify(ref.schema);
      this.schemaTexts.set(ref.cacheKey, text);
      if (this.schemaTexts.size > 64) this.schemaTexts.delete(this.schemaTexts.keys().next().value as string);
    }
    return text;
  }

  private failure(expression: string, reply: Extract<Reply, { ok: false }>, timeoutMs: number): MappingExpressionFailure {
    switch (reply.code) {
      case 'D1012':
        return { ok: false, kind: 'expression', code: 'D1012', message: `The mapping did not finish within ${timeoutMs} ms (JSONata D1012): look for a loop or recursion that does not end.` };
      case 'D1011':
        return { ok: false, kind: 'expression', code: 'D1011', message: `The mapping nested deeper than ${this.stackDepth} evaluation levels (JSONata D1011): look for a recursive function that does not end.` };
      case 'D2015':
        return { ok: false, kind: 'expression', code: 'D2015', message: `The mapping built a sequence longer than ${this.maxSequence} items (JSONata D2015).` };
      case 'no_output':
        return {
          ok: false,
          kind: 'expression',
          code: 'no_output',
          message: reply.message === 'no output' ? 'The mapping produced no output: the expression evaluated to nothing (its paths match no field of the input).' : `The mapping produced ${reply.message}, not a JSON value.`,
        };
      case 'input_not_json':
        return { ok: false, kind: 'expression', code: 'input_not_json', message: `The mapping's input is not valid JSON: ${sentence(reply.message)}` };
      default:
        break;
    }
    const text = sentence(reply.message.charAt(0).toUpperCase() + reply.message.slice(1));
    const code = reply.code;
    const tail = code === 'error' ? '' : ` (JSONata ${code})`;
    const body = tail === '' ? text : `${text.slice(0, -1)}${tail}.`;
    if (reply.position === undefined) return { ok: false, kind: 'expression', code, message: body };
    const at = expressionLocation(expression, reply.position);
    return { ok: false, kind: 'expression', code, message: `line ${at.line}, column ${at.column}: ${body}`, line: at.line, column: at.column, position: reply.position };
  }

  private lostFailure(cause: 'timeout' | 'out_of_memory' | 'worker_exit', detail: string, timeoutMs: number): MappingExpressionFailure {
    switch (cause) {
      case 'timeout':
        return { ok: false, kind: 'expression', code: 'timeout', message: `The mapping did not finish within ${timeoutMs} ms and was stopped: look for a loop or recursion that does not end, or an operation on a huge value.` };
      case 'out_of_memory':
        return { ok: false, kind: 'expression', code: 'out_of_memory', message: `The mapping needed more than ${this.heapMb} MB of memory and was stopped.` };
      case 'worker_exit':
        return { ok: false, kind: 'expression', code: 'worker_exit', message: `The mapping worker stopped unexpectedly (${detail}).` };
    }
  }

  private enqueue(job: Job): void {
    if (this.closed) {
      job.reject(new Error('the mapping engine is closed'));
      return;
    }
    this.startFailure = null;
    this.queue.push(job);
    this.dispatch();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.slots.find((s) => s.ready && !s.dead && s.job === null);
      if (idle === undefined) break;
      this.assign(idle, this.queue.shift() as Job);
    }
    if (this.startFailure !== null) {
      for (const job of this.queue.splice(0)) job.reject(new Error(`mapping worker cannot start: ${this.startFailure}`));
      return;
    }
    const starting = this.slots.filter((s) => !s.ready).length;
    let missing = Math.min(this.queue.length - starting, this.size - this.slots.length);
    while (missing-- > 0) this.spawn();
  }

  private spawn(): void {
    const env = { ...process.env };
    // the worker is plain JavaScript: no loader of the parent (tsx, a test runner) and no heap flag but ours
    delete env['NODE_OPTIONS'];
    const child = fork(WORKER_URL, [this.workerSettings], {
      execArgv: [`--max-old-space-size=${this.heapMb}`],
      env,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const slot: Slot = { child, ready: false, dead: false, job: null, timer: null, stderr: '' };
    this.slots.push(slot);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      slot.stderr = (slot.stderr + chunk).slice(-8192);
    });
    // reading its standard error never keeps this process alive
    (child.stderr as { unref?: () => void } | null)?.unref?.();
    child.on('message', (m: Reply | { type: 'ready' }) => this.onMessage(slot, m));
    child.on('error', (err: Error) => this.onLost(slot, 'worker_exit', err.message));
    child.on('exit', (code, signal) => {
      // the standard error may still be draining: give it one turn before reading it
      setImmediate(() => this.onLost(slot, OUT_OF_MEMORY.test(slot.stderr) ? 'out_of_memory' : 'worker_exit', signal ? `signal ${signal}` : `exit code ${String(code)}`));
    });
    this.hold(slot, true);
  }

  /** Keeps this process alive for a busy (or starting) worker only. */
  private hold(slot: Slot, busy: boolean): void {
    const c = slot.child;
    if (busy) {
      c.ref();
      c.channel?.ref();
    } else {
      c.unref();
      c.channel?.unref();
    }
  }

  private assign(slot: Slot, job: Job): void {
    slot.job = job;
    this.hold(slot, true);
    slot.child.send({ id: job.id, ...job.payload }, (err) => {
      if (err) this.onLost(slot, 'worker_exit', err.message);
    });
    this.arm(slot, job.guardMs);
  }

  private arm(slot: Slot, ms: number): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = setTimeout(() => this.onLost(slot, 'timeout', `no answer within ${ms} ms`), ms);
  }

  private onMessage(slot: Slot, m: Reply | { type: 'ready' }): void {
    if (slot.dead) return;
    if ('type' in m && m.type === 'ready') {
      slot.ready = true;
      this.hold(slot, false);
      this.dispatch();
      return;
    }
    const reply = m;
    const job = slot.job;
    if (job === null || reply.id !== job.id) return;
    if ('type' in reply) {
      // evaluation done; the output is being validated (a first use compiles the schema)
      this.arm(slot, this.validationTimeoutMs);
      return;
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    this.hold(slot, false);
    job.resolve(reply);
    this.dispatch();
  }

  private onLost(slot: Slot, cause: 'timeout' | 'out_of_memory' | 'worker_exit', detail: string): void {
    if (slot.dead) return;
    slot.dead = true;
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    if (slot.child.exitCode === null && slot.child.signalCode === null) slot.child.kill('SIGKILL');
    this.hold(slot, false);
    const job = slot.job;
    slot.job = null;
    if (job) job.lost(cause, detail);
    else if (!slot.ready && !this.closed) this.startFailure = `${detail}${slot.stderr ? `: ${slot.stderr.trim().split('\n')[0] ?? ''}` : ''}`;
    if (!this.closed) this.dispatch();
  }
}

/** The engine with the service's settings (`Config['mapping']`). */
export function createMappingEngine(settings: { readonly workers: number; readonly timeoutMs: number; readonly heapMb: number }): MappingWorkerPool {
  return new MappingWorkerPool(settings);
}
