/**
 * Whole commands for the benchmark: each reads a file and writes its JSON to stdout, timed as a
 * process (start-up included). Ours is `node bin/tdx.mjs x12 parse FILE` (compiled JavaScript when
 * dist/ is up to date, see bin/tdx.mjs); the peers are the few lines below, run as ES modules with
 * `node --input-type=module -e` from the project root (so they load from node_modules), writing
 * one JSON line per transaction set (node-x12) or per segment object (x12-parser).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

const nodeX12 = `
import { readFileSync } from 'node:fs';
import { X12Parser } from 'node-x12';
const interchange = new X12Parser(true).parse(readFileSync(process.argv[1], 'utf8'));
let out = '';
for (const group of interchange.functionalGroups) {
  for (const set of group.transactions) {
    out += JSON.stringify(set) + '\\n';
    if (out.length > 1 << 22) { process.stdout.write(out); out = ''; }
  }
}
process.stdout.write(out);
`;

const x12Parser = `
import { createReadStream } from 'node:fs';
import { X12parser } from 'x12-parser';
let out = '';
const parser = new X12parser();
parser.on('data', (segment) => {
  out += JSON.stringify(segment) + '\\n';
  if (out.length > 1 << 22) { process.stdout.write(out); out = ''; }
});
parser.on('end', () => process.stdout.write(out));
createReadStream(process.argv[1], { highWaterMark: 1 << 20 }).pipe(parser);
`;

export const commands: Readonly<Record<'tdx' | 'node-x12' | 'x12-parser', (file: string) => string[]>> = {
  tdx: (file) => ['bin/tdx.mjs', 'x12', 'parse', file],
  'node-x12': (file) => ['--input-type=module', '-e', nodeX12, file],
  'x12-parser': (file) => ['--input-type=module', '-e', x12Parser, file],
};

/** Runs one command to its end, stdout read and counted (a pipe, as a consumer would); resolves the bytes written. */
export function runCommand(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let err = '';
    child.stdout.on('data', (b: Buffer) => (bytes += b.length));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && bytes > 0 ? resolve(bytes) : reject(new Error(`node ${args.slice(0, 2).join(' ')} exited ${code}: ${err.slice(-500)}`))));
  });
}
