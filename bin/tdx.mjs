#!/usr/bin/env node
// The `tdx` command. `tdx x12 ...` runs the compiled JavaScript in dist/ (bin/build.mjs, run by
// npm's prepare) when it is up to date: no TypeScript is compiled at start-up. dist/ is up to date
// while no file under src/ was changed after the build started (dist/.built); otherwise, and for
// every other command (services that read files beside their sources), the sources in src/ run
// through tsx's ESM loader, so the command never runs stale code.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** True when dist/ was built after the last change to any file under src/. */
function compiledIsFresh() {
  let built;
  try {
    built = Number(readFileSync(join(root, 'dist', '.built'), 'utf8'));
  } catch {
    return false;
  }
  if (!Number.isFinite(built)) return false;
  const src = join(root, 'src');
  // a directory's mtime changes when a file is added, removed or renamed in it
  if (statSync(src).mtimeMs >= built) return false;
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs >= built) return false;
  }
  return true;
}

const args = process.argv.slice(2);
let runCli;
if (args[0] === 'x12' && process.env['TDX_FROM_SOURCES'] !== '1' && compiledIsFresh()) {
  ({ runCli } = await import('../dist/cli/tdx.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runCli } = await import('../src/cli/tdx.ts'));
}
process.exitCode = await runCli(args);
