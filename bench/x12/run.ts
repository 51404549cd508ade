/**
 * `npm run bench:x12`: the X12 reader against three peers on one generated interchange.
 *
 * (a) envelope scan + split into transaction sets + structural checks: ours (`readX12`) against
 *     @stedi/x12-tools `metadata()` (envelope scan, WebAssembly).
 * (b) full translation to JSON: ours (`readX12` + the generic segment-level translation written as
 *     JSON text, `genericJson`; and the implementation-driven translation, `translateSet`, of
 *     the 850 base implementation) against
 *     node-x12 (full parse into its object model) and x12-parser (segments streamed as objects).
 *
 * Every tool gets the same text; each figure is the best of several runs. BENCH_X12_MB sets the
 * input size (default 24).
 */
import { Readable } from 'node:stream';
import { metadata } from '@stedi/x12-tools';
import { X12Parser } from 'node-x12';
import { X12parser } from 'x12-parser';
import { genericJson } from '../../src/x12/generic.ts';
import { translateSet } from '../../src/x12/impl/index.ts';
import { readX12 } from '../../src/x12/reader.ts';
import { generateInterchange } from './generate.ts';

const mb = Number(process.env['BENCH_X12_MB'] ?? 24);
const { text, sets } = generateInterchange(mb * 1e6);
const size = Buffer.byteLength(text) / 1e6;

async function best(name: string, runs: number, fn: () => unknown): Promise<{ name: string; ms: number; mbs: number }> {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    min = Math.min(min, performance.now() - t0);
  }
  return { name, ms: min, mbs: size / (min / 1000) };
}

function oursScan(): number {
  let n = 0;
  for (const e of readX12(text)) if (e.type === 'set') n++;
  if (n !== sets) throw new Error(`scan found ${n} sets, expected ${sets}`);
  return n;
}

function oursTranslate(): number {
  let chars = 0;
  for (const e of readX12(text)) if (e.type === 'set') chars += genericJson(e.set).length;
  return chars;
}

function oursImplementation(): number {
  let chars = 0;
  for (const e of readX12(text)) if (e.type === 'set') chars += JSON.stringify(translateSet(e.set).document).length;
  return chars;
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
oursTranslate();
const rows = [
  await best('(a) tdx readX12: scan + split + structural checks', 7, oursScan),
  await best('(a) @stedi/x12-tools metadata(): envelope scan', 3, stediScan),
  await best('(b) tdx readX12 + generic translation to JSON text', 5, oursTranslate),
  await best('(b) tdx readX12 + 850 implementation translation, JSON text', 3, oursImplementation),
  await best('(b) node-x12 X12Parser.parse: full parse', 2, nodeX12),
  await best('(b) x12-parser X12parser: streamed segments', 2, x12ParserStream),
];
const w = Math.max(...rows.map((r) => r.name.length));
console.log(`${'tool'.padEnd(w)}  ${'ms'.padStart(9)}  ${'MB/s'.padStart(9)}`);
for (const r of rows) console.log(`${r.name.padEnd(w)}  ${r.ms.toFixed(1).padStart(9)}  ${r.mbs.toFixed(1).padStart(9)}`);
const [scan, stedi, translate, impl, nx, xp] = rows as [typeof rows[0], typeof rows[0], typeof rows[0], typeof rows[0], typeof rows[0], typeof rows[0]];
console.log('\nratios (goal in brackets):');
console.log(`  (a) scan vs @stedi/x12-tools metadata(): ${(scan.mbs / stedi.mbs).toFixed(1)}x  [>= 4x]`);
console.log(`  (b) translation vs node-x12:             ${(translate.mbs / nx.mbs).toFixed(1)}x  [>= 10x]`);
console.log(`  (b) translation vs x12-parser:           ${(translate.mbs / xp.mbs).toFixed(1)}x  [>= 4x]`);
console.log(`  (b) implementation translation vs node-x12:   ${(impl.mbs / nx.mbs).toFixed(1)}x  [>= 10x]`);
console.log(`  (b) implementation translation vs x12-parser: ${(impl.mbs / xp.mbs).toFixed(1)}x  [>= 4x]`);
