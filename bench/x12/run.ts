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
 */
import { Readable } from 'node:stream';
import { metadata } from '@stedi/x12-tools';
import { X12Parser } from 'node-x12';
import { X12parser } from 'x12-parser';
import { genericJson } from '../../src/x12/generic.ts';
import { translateSetJson, validateSet } from '../../src/x12/impl/index.ts';
import { readX12 } from '../../src/x12/reader.ts';
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
