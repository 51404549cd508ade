/**
 * The Node flags of every service process (`tdx start`): deploy/service-node-flags, one per line
 * (`#` starts a comment). For the scripts that start role processes themselves (the benchmarks,
 * the chaos run), so they run them as deploy/start.sh and the container image do.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const file = fileURLToPath(new URL('../../deploy/service-node-flags', import.meta.url));

/** The flags, in file order. */
export function serviceNodeFlags(): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}
