/**
 * bin/tdx.mjs runs dist/ only while it is up to date with src/: an edited, added or removed
 * source makes it stale, so the sources run instead (never stale code).
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the command line, no types
import { compiledIsFresh } from '../../../bin/fresh.mjs';

const fresh = compiledIsFresh as (root: string) => boolean;
let root = '';
afterEach(() => rmSync(root, { recursive: true, force: true }));

function tree(builtAt: number): void {
  root = mkdtempSync(join(tmpdir(), 'tdx-fresh-'));
  mkdirSync(join(root, 'src', 'x12'), { recursive: true });
  writeFileSync(join(root, 'src', 'x12', 'a.ts'), 'export {};\n');
  const old = new Date(builtAt - 60_000);
  utimesSync(join(root, 'src', 'x12', 'a.ts'), old, old);
  utimesSync(join(root, 'src', 'x12'), old, old);
  utimesSync(join(root, 'src'), old, old);
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist', '.built'), `${builtAt}\n`);
}

describe('compiled command freshness', () => {
  it('is fresh when every source is older than the build', () => {
    tree(Date.now());
    expect(fresh(root)).toBe(true);
  });
  it('is stale when a source changed after the build started', () => {
    tree(Date.now() - 10_000);
    writeFileSync(join(root, 'src', 'x12', 'a.ts'), 'export const x = 1;\n');
    expect(fresh(root)).toBe(false);
  });
  it('is stale when a source was added', () => {
    tree(Date.now() - 10_000);
    writeFileSync(join(root, 'src', 'x12', 'b.ts'), 'export {};\n');
    expect(fresh(root)).toBe(false);
  });
  it('is stale without a build stamp', () => {
    tree(Date.now());
    rmSync(join(root, 'dist', '.built'));
    expect(fresh(root)).toBe(false);
  });
});
