#!/usr/bin/env node
// Compiles src/ to dist/ (tsconfig.build.json) so that `tdx x12` starts without compiling
// TypeScript; run by npm's `prepare` (npm install, npm ci) and `npm run build`. The stamp
// dist/.built holds the time the build started: bin/tdx.mjs uses dist/ only while no source under
// src/ is newer than that, so an edited source is never run stale. Without TypeScript (an install
// without dev dependencies) nothing is built and the command runs the sources through tsx.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const dist = join(root, 'dist');
if (!existsSync(tsc)) {
  console.error('build: TypeScript is not installed; tdx runs from the sources (tsx)');
  process.exit(0);
}
const started = Date.now();
rmSync(dist, { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  // no stamp: tdx keeps running the sources; the type errors were printed above
  console.error('build: tsc failed; tdx runs from the sources (tsx) until a build succeeds');
  process.exit(0);
}
mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, '.built'), `${started}\n`);
