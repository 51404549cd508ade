#!/usr/bin/env node
// The `tdx` command: loads the TypeScript sources through tsx's ESM loader, so the command
// always runs the code in src/ with no separate build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/tdx.ts');
process.exitCode = await runCli(process.argv.slice(2));
