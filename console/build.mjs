// Builds the operator console (console/src, Preact) with esbuild into one folder of static files
// that the api role serves at /console (src/http/console.ts): index.html plus a script and a
// style sheet whose names carry a hash of their content. Run by bin/build.mjs (npm ci, npm run
// build), by `node console/build.mjs [outDir]`, and by the console's browser test before it
// starts. Fails when the compressed script outgrows the budget of docs/console.md.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
/** Compressed JavaScript of the first load, at most. */
export const SCRIPT_BUDGET_BYTES = 250 * 1024;

/** Builds into `outDir` (default dist/console); returns the file names and the script's gzip size. */
// eslint-disable-next-line @typescript-eslint/explicit-module-boundary-types -- plain JavaScript: the return type is in the comment above
export async function buildConsole(outDir = join(here, '..', 'dist', 'console')) {
  const { build } = await import('esbuild');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const r = await build({
    entryPoints: [join(here, 'src', 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: outDir,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(r.metafile.outputs).map((f) => basename(f));
  const script = outputs.find((f) => f.endsWith('.js'));
  const style = outputs.find((f) => f.endsWith('.css'));
  if (!script || !style) throw new Error('console build: esbuild wrote no script or no style sheet');
  const gzip = gzipSync(readFileSync(join(outDir, script))).length;
  if (gzip > SCRIPT_BUDGET_BYTES) throw new Error(`console build: the script is ${gzip} bytes compressed, over the budget of ${SCRIPT_BUDGET_BYTES}`);
  const html = readFileSync(join(here, 'index.html'), 'utf8').replace('%STYLE%', style).replace('%SCRIPT%', script);
  writeFileSync(join(outDir, 'index.html'), html);
  return { outDir, script, style, scriptGzipBytes: gzip };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildConsole(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.error(`console: ${out.script} (${Math.round(out.scriptGzipBytes / 1024)} KB compressed), ${out.style} in ${out.outDir}`);
}
