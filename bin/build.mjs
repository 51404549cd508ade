#!/usr/bin/env node
// Compiles src/ to dist/ (tsconfig.build.json), with the other files of src/ copied beside the
// compiled modules, so that `tdx` starts without compiling TypeScript; run by npm's `prepare` (npm install, npm ci) and `npm run build`. The stamp
// dist/.built holds the time the build started: bin/tdx.mjs uses dist/ only while no source under
// src/ is newer than that, so an edited source is never run stale. Without TypeScript (an install
// without dev dependencies) nothing is built and the command runs the sources through tsx.
// The operator console (console/, esbuild) is built first into dist/console, whatever tsc says.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from '../console/build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const dist = join(root, 'dist');
const started = Date.now();
rmSync(dist, { recursive: true, force: true });
try {
  const c = await buildConsole(join(dist, 'console'));
  console.error(`build: console ${c.script} (${Math.round(c.scriptGzipBytes / 1024)} KB compressed)`);
} catch (err) {
  // the service runs without it; /console then says it is not built
  console.error(`build: the console was not built: ${err instanceof Error ? err.message : String(err)}`);
}
if (!existsSync(tsc)) {
  console.error('build: TypeScript is not installed; tdx runs from the sources (tsx)');
  process.exit(0);
}
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  // no stamp: tdx keeps running the sources; the type errors were printed above
  console.error('build: tsc failed; tdx runs from the sources (tsx) until a build succeeds');
  process.exit(0);
}
mkdirSync(dist, { recursive: true });
// Files the code reads beside its own module (migrations, the mapping worker) go beside the
// compiled module too.
const src = join(root, 'src');
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const from = join(entry.parentPath ?? entry.path, entry.name);
  const to = join(dist, from.slice(src.length + 1));
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}
writeFileSync(join(dist, '.built'), `${started}\n`);
