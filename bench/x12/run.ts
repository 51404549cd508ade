/**
 * `npm run bench:x12`: the X12 engine against three peers on one generated interchange of 850
 * purchase orders.
 *
 * (a) envelope scan + split into transaction sets + structural checks: ours (`readX12`) against
 *     @stedi/x12-tools `metadata()` (envelope scan, WebAssembly).
 * (b) full translation to JSON: ours is the product path, `readX12` + `translateSetJson` driven
 *     by the 850 base implementation (tables, loops, typed values), JSON text materialized as a
 *     string; against node-x12 (full parse into its object model) and x12-parser (segments
 *     streamed as objects). Extra rows: the generic segment-level translation (`genericJson`,
 *     used for sets without an implementation) and validation (`readX12` + `validateSet`).
 *
 * Every tool gets the same text. The tools run in interleaved rounds (each tool once per round,
 * BENCH_X12_ROUNDS rounds, default 5), so a change of machine load during the run weighs on all
 * of them alike; each figure is a tool's best round. Ratios are printed for each of our rows
 * against each peer. BENCH_X12_MB sets the input size (default 24).
 *
 * (c) whole commands: `tdx x12 parse FILE` as a process against node-x12 and x12-parser run the
 *     same way (bench/x12/commands.ts), each reading the file and writing its JSON to stdout (a
 *     pipe the benchmark reads); start-up included. BENCH_X12_CLI_MB sets the file's size
 *     (default 20), BENCH_X12_CLI_ROUNDS the rounds (default 3). BENCH_X12_ONLY=cli runs (c)
 *     alone, BENCH_X12_ONLY=engine the in-process rows alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { metadata } from '@stedi/x12-tools';
import { X12Parser } from 'node-x12';
import { X12parser } from 'x12-parser';
import { genericJson } from '../../src/x12/generic.ts';
import { translateSetJson, validateSet } from '../../src/x12/impl/index.ts';
import { readX12 } from '../../src/x12/reader.ts';
import { commands, runCommand } from './commands.ts';
import { generateInterchange } from './generate.ts';

const mb = Number(process.env['BENCH_X12_MB'] ?? 24);
const { text, sets } = generateInterchange(mb * 1e6);
const size = Buffer.byteLength(text) / 1e6;

interface Row {
  readonly name: string;
  ms: number;
  mbs: number;
}

/** Runs every tool once per round, `rounds` times, interleaved; keeps each tool's best round. */
async function interleaved(rounds: number, tools: readonly (readonly [string, () => unknown])[]): Promise<Row[]> {
  const rows: Row[] = tools.map(([name]) => ({ name, ms: Infinity, mbs: 0 }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, [, fn]] of tools.entries()) {
      const t0 = performance.now();
      await fn();
      const ms = performance.now() - t0;
      const row = rows[i]!;
      if (ms < row.ms) {
        row.ms = ms;
        row.mbs = size / (ms / 1000);
      }
    }
  }
  return rows;
}

function oursScan(): number {
  let n = 0;
  for (const e of readX12(text)) if (e.type === 'set') n++;
  if (n !== sets) throw new Error(`scan found ${n} sets, expected ${sets}`);
  return n;
}

/** (b) the product path: implementation-driven translation of each 850 to JSON text. */
function oursImplementation(): number {
  let chars = 0;
  for (const e of readX12(text)) if (e.type === 'set') chars += translateSetJson(e.set).json.length;
  return chars;
}

function oursGeneric(): number {
  let chars = 0;
  for (const e of readX12(text)) if (e.type === 'set') chars += genericJson(e.set).length;
  return chars;
}

function oursValidate(): number {
  let findings = 0;
  for (const e of readX12(text)) if (e.type === 'set') findings += validateSet(e.set).length;
  if (findings !== 0) throw new Error(`validation found ${findings} findings in the generated 850s`);
  return findings;
}

function stediScan(): number {
  const m = metadata(text);
  const n = m.interchanges[0]!.functionalGroups[0]!.transactionSets.length;
  if (n !== sets) throw new Error(`stedi found ${n} sets, expected ${sets}`);
  return n;
}

function nodeX12(): unknown {
  return new X12Parser(true).parse(text);
}

function x12ParserStream(): Promise<number> {
  const chunk = 1 << 20;
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += chunk) parts.push(text.slice(i, i + chunk));
  return new Promise((resolve, reject) => {
    let n = 0;
    const parser = new X12parser();
    parser.on('data', () => n++);
    parser.on('end', () => resolve(n));
    parser.on('error', reject);
    Readable.from(parts).pipe(parser);
  });
}

const only = process.env['BENCH_X12_ONLY'];
if (only !== 'cli') await inProcess();
if (only !== 'engine') await wholeCommands();

async function inProcess(): Promise<void> {
  console.log(`input: ${size.toFixed(1)} MB, ${sets} transaction sets, node ${process.version}\n`);
  // warm up
  oursScan();
  oursImplementation();
  oursGeneric();
  oursValidate();
  const rounds = Number(process.env['BENCH_X12_ROUNDS'] ?? 5);
  const rows = await interleaved(rounds, [
    ['(a) tdx readX12: scan + split + structural checks', oursScan],
    ['(b) tdx readX12 + translateSetJson (850 implementation) to JSON text', oursImplementation],
    ['    tdx readX12 + generic segment JSON (genericJson)', oursGeneric],
    ['    tdx readX12 + validateSet (850 implementation)', oursValidate],
    ['(a) @stedi/x12-tools metadata(): envelope scan', stediScan],
    ['(b) node-x12 X12Parser.parse: full parse', nodeX12],
    ['(b) x12-parser X12parser: streamed segments', x12ParserStream],
  ]);
  const [scan, impl, generic, validate, stedi, nx, xp] = rows as [Row, Row, Row, Row, Row, Row, Row];
  const w = Math.max(...rows.map((r) => r.name.length));
  console.log(`${'tool'.padEnd(w)}  ${'ms'.padStart(9)}  ${'MB/s'.padStart(9)}`);
  for (const r of rows) console.log(`${r.name.padEnd(w)}  ${r.ms.toFixed(1).padStart(9)}  ${r.mbs.toFixed(1).padStart(9)}`);

  const peers = [
    { label: 'stedi metadata()', row: stedi },
    { label: 'node-x12', row: nx },
    { label: 'x12-parser', row: xp },
  ];
  const ours = [
    { label: '(a) scan', row: scan, goal: { 'stedi metadata()': 4 } as Record<string, number> },
    { label: '(b) implementation translation', row: impl, goal: { 'node-x12': 10, 'x12-parser': 4 } as Record<string, number> },
    { label: '    generic translation', row: generic, goal: {} as Record<string, number> },
    { label: '    validation', row: validate, goal: {} as Record<string, number> },
  ];
  const lw = Math.max(...ours.map((o) => o.label.length));
  console.log(`\nratios (ours / peer, MB/s; goal in brackets):`);
  console.log(`${''.padEnd(lw)}  ${peers.map((p) => p.label.padStart(18)).join('')}`);
  for (const o of ours) {
    const cells = peers.map((p) => {
      const g = o.goal[p.label];
      return `${(o.row.mbs / p.row.mbs).toFixed(1)}x${g === undefined ? '' : ` [>=${g}x]`}`.padStart(18);
    });
    console.log(`${o.label.padEnd(lw)}  ${cells.join('')}`);
  }
}

/** (c) whole commands, interleaved rounds; each figure is the command's best round. */
async function wholeCommands(): Promise<void> {
  const cliMb = Number(process.env['BENCH_X12_CLI_MB'] ?? 20);
  const generated = generateInterchange(cliMb * 1e6);
  const dir = mkdtempSync(join(tmpdir(), 'tdx-bench-'));
  const file = join(dir, 'input.x12');
  writeFileSync(file, generated.text);
  const mbIn = Buffer.byteLength(generated.text) / 1e6;
  try {
    const tools = Object.entries(commands).map(([name, args]) => ({ name, args: args(file), ms: Infinity, out: 0 }));
    for (const t of tools) t.out = await runCommand(t.args); // warms the file cache; checks each runs
    const rounds = Number(process.env['BENCH_X12_CLI_ROUNDS'] ?? 3);
    for (let r = 0; r < rounds; r++) {
      for (const t of tools) {
        const t0 = performance.now();
        await runCommand(t.args);
        t.ms = Math.min(t.ms, performance.now() - t0);
      }
    }
    console.log(`\n(c) whole commands: ${mbIn.toFixed(1)} MB file, ${generated.sets} sets, JSON to stdout, best of ${rounds} interleaved rounds`);
    console.log(`${'command'.padEnd(12)}  ${'s'.padStart(7)}  ${'MB/s'.padStart(7)}  ${'JSON MB'.padStart(8)}  tdx's ratio [goal]`);
    const tdx = tools.find((t) => t.name === 'tdx')!;
    for (const t of tools) {
      const mbs = mbIn / (t.ms / 1000);
      const ratio = t === tdx ? '' : `${(t.ms / tdx.ms).toFixed(1)}x [>=${t.name === 'node-x12' ? 10 : 4}x]`;
      console.log(`${t.name.padEnd(12)}  ${(t.ms / 1000).toFixed(2).padStart(7)}  ${mbs.toFixed(1).padStart(7)}  ${(t.out / 1e6).toFixed(1).padStart(8)}  ${ratio}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
