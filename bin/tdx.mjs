#!/usr/bin/env node
// The `tdx` command. It runs the compiled JavaScript in dist/ (bin/build.mjs, run by npm's
// prepare) when it is up to date: no TypeScript is compiled at start-up, which saves each service
// process seconds of CPU and a third of its memory. dist/ is up to date while no file under src/
// was changed after the build started (dist/.built); otherwise, or with TDX_FROM_SOURCES=1, the
// sources in src/ run through tsx's ESM loader, so the command never runs stale code.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledIsFresh } from './fresh.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const args = process.argv.slice(2);
let runCli;
if (process.env['TDX_FROM_SOURCES'] !== '1' && compiledIsFresh(root)) {
  ({ runCli } = await import('../dist/cli/tdx.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runCli } = await import('../src/cli/tdx.ts'));
}
process.exitCode = await runCli(args);
