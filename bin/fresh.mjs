// Whether the compiled JavaScript in ROOT/dist is up to date with ROOT/src (see bin/tdx.mjs).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** True when dist/ was built (dist/.built: the time the build started) after the last change under src/. */
// eslint-disable-next-line @typescript-eslint/explicit-module-boundary-types -- plain JavaScript: no type annotations
export function compiledIsFresh(root) {
  let built;
  try {
    built = Number(readFileSync(join(root, 'dist', '.built'), 'utf8'));
  } catch {
    return false;
  }
  if (!Number.isFinite(built)) return false;
  const src = join(root, 'src');
  // an installation without the sources (the container image) runs what was built
  if (!existsSync(src)) return true;
  // a directory's mtime changes when a file is added, removed or renamed in it
  if (statSync(src).mtimeMs >= built) return false;
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs >= built) return false;
  }
  return true;
}
