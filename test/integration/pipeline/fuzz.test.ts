/**
 * Hostile input through the whole pipeline: mutated copies of the shared corpus's interchanges
 * (bytes overwritten, segments dropped, delimiters swapped, files cut short) submitted through
 * the partner endpoint. Every accepted submission ends as transactions that left `processing`
 * or as an error result naming the fault; none is stuck, none is set aside for operators (a
 * step that gave up, which would mean a fault in our code rather than in the input), and the
 * node services' process never exits.
 *
 * The node services run in a child process so that a crash shows as an exit; the API, the
 * materializer and the scheduler run here. FUZZ_PIPELINE_COUNT sets the number of submissions
 * (300 in the integration suite; `npm run fuzz:pipeline` runs 10,000). Skipped when the corpus
 * folder is absent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_SERVICES } from '../../../src/domain/node-services.ts';
import { statusOf } from '../../../src/domain/records.ts';
import { mutate, mutation } from '../../support/x12-mutate.ts';
import { root } from '../platform/support.ts';
import { corpusDoc, corpusFiles, corpusPresent } from './corpus-support.ts';
import { startPipeline, type Pipeline } from './support.ts';

const COUNT = Number(process.env['FUZZ_PIPELINE_COUNT'] ?? 300);
const CONCURRENCY = 8;
const NODES = NODE_SERVICES.filter((s) => s !== 'partner_endpoint').map((s) => `node:${s}`).join(',');

let p: Pipeline;
let child: ChildProcess | undefined;
let exited: string | null = null;

beforeAll(async () => {
  if (!corpusPresent) return;
  // every submission uses one key: the 240 a minute of the contract would refuse most of them
  p = await startPipeline(corpusDoc(corpusFiles()), { roles: 'api,materializer,scheduler,node:partner_endpoint', env: { TDX_RATE_LIMIT_PER_MINUTE: '1000000' }, sharedKeyspace: true });
  const env: NodeJS.ProcessEnv = { ...process.env, ...p.iso.env, TDX_LOG_LEVEL: 'warn', TDX_LOG_FORMAT: 'json' };
  delete env['NODE_OPTIONS'];
  // FUZZ_CHILD_LOG=<file> keeps the node services' own log (info and above) for a failure's diagnosis
  const logTo = process.env['FUZZ_CHILD_LOG'];
  if (logTo) env['TDX_LOG_LEVEL'] = 'info';
  const out = logTo ? openSync(logTo, 'w') : 'ignore';
  child = spawn(process.execPath, ['bin/tdx.mjs', 'start', '--role', NODES], { cwd: root, env, stdio: ['ignore', out, logTo ? out : 'inherit'] });
  child.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
}, 240_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await p?.stop();
});

/** The trace's state once it ended, or undefined while work remains. */
async function ended(trace: string): Promise<'transactions' | 'error' | 'empty' | undefined> {
  const stores = await p.reader.stores();
  const results = await stores.results.byTrace(p.org, trace);
  const split = results.some((r) => r.service === 'x12_split');
  const failed = results.some((r) => r.status === 'error');
  if (!split && !failed) return undefined;
  // the split writes a trace's transactions before its result, so they all exist by now
  const txs = await stores.transactions.byTrace(p.org, trace);
  if (txs.some((t) => statusOf(t) === 'processing')) return undefined;
  return txs.length > 0 ? 'transactions' : failed ? 'error' : 'empty';
}

/** What a stuck trace holds, for the failure message. */
async function describeTraces(traces: readonly string[]): Promise<string> {
  const stores = await p.reader.stores();
  const lines: string[] = [];
  for (const t of traces) {
    const results = (await stores.results.byTrace(p.org, t)).map((r) => `${r.service}:${r.status}${r.detail.errorMessage ? ` (${r.detail.errorMessage.slice(0, 160)})` : ''}`);
    const txs = (await stores.transactions.byTrace(p.org, t)).map((x) => `${x.transactionSetIdentifier}:${statusOf(x)}`);
    lines.push(`${t}: results [${results.join(', ')}] transactions [${txs.join(', ')}]`);
  }
  return lines.join('\n');
}

describe.skipIf(!corpusPresent)('mutated corpus interchanges through the pipeline', () => {
  it(`ends every one of ${COUNT} submissions as transactions or an error result, with no step giving up and no process exit`, async () => {
    const files = corpusFiles()
      .map((f) => readFileSync(f))
      .filter((b) => b.length < 200_000 && b.subarray(0, 3).toString() === 'ISA');
    const cases = fc.sample(fc.tuple(fc.integer({ min: 0, max: files.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 })), { seed: 4711, numRuns: COUNT });
    const traces: string[] = [];
    const caseOf = new Map<string, number>();
    const statuses = new Map<number, number>();
    let next = 0;
    const started = Date.now();
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= cases.length) return;
        const [which, ms] = cases[i]!;
        const body = mutate(files[which]!, ms);
        const r = await p.submitEdi('CORPUS', body, 'text/plain');
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 202) {
          traces.push(r.body['traceGuid'] as string);
          caseOf.set(r.body['traceGuid'] as string, i);
        }
        else {
          // refused at the door, with a JSON error naming why; nothing was stored
          expect([400, 413], JSON.stringify(r.body)).toContain(r.status);
          expect((r.body['error'] as { code?: string } | undefined)?.code).toMatch(/^[a-z_]+$/);
        }
        if (i % 1000 === 999) process.stderr.write(`fuzz: ${i + 1} of ${COUNT} submitted (${Math.round((Date.now() - started) / 1000)} s)\n`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(traces.length).toBeGreaterThan(COUNT / 2);

    const outcome = new Map<string, number>();
    let pending = [...traces];
    // the deadline follows progress: it moves as long as traces keep ending
    let deadline = Date.now() + 180_000;
    while (pending.length > 0) {
      const still: string[] = [];
      for (const t of pending) {
        const state = await ended(t);
        if (state) outcome.set(state, (outcome.get(state) ?? 0) + 1);
        else still.push(t);
      }
      if (still.length < pending.length) deadline = Date.now() + 180_000;
      pending = still;
      expect(exited, 'the node services process').toBeNull();
      if (pending.length > 0 && Date.now() > deadline) throw new Error(`${pending.length} traces never ended (cases ${pending.map((t) => caseOf.get(t)).join(', ')}): ${await describeTraces(pending.slice(0, 5))}`);
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 1000));
    }
    process.stderr.write(`fuzz: ${COUNT} submissions in ${Math.round((Date.now() - started) / 1000)} s; answers ${JSON.stringify(Object.fromEntries(statuses))}; ended ${JSON.stringify(Object.fromEntries(outcome))}\n`);

    // no step gave up: every error result names a fault of the input or of the configuration
    const stores = await p.reader.stores();
    for (const t of traces) {
      for (const r of await stores.results.byTrace(p.org, t)) {
        if (r.status !== 'error') continue;
        expect(r.detail.errorMessage ?? '', `trace ${t}`).not.toMatch(/set aside for operators/);
        expect(r.detail.errorMessage ?? '', `trace ${t}`).not.toBe('');
      }
    }
    expect(outcome.get('transactions') ?? 0).toBeGreaterThan(0);
    expect(outcome.get('error') ?? 0).toBeGreaterThan(0);
    expect(exited).toBeNull();
  }, 6 * 3600_000);
});
