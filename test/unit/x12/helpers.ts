import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const fixturesDir = fileURLToPath(new URL('../../fixtures/x12/', import.meta.url));

export function fixture(name: string): Buffer {
  return readFileSync(fixturesDir + name);
}
