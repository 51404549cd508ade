/**
 * The order the integration files start in. The workers take the files in this order, each the
 * next when it is free, and the run ends when the last file started ends: a long file started
 * near the end leaves the other worker idle (in a fresh clone vitest knows no durations and
 * starts the larger files first, so the 55 s chaos file, a small one, started last). The files
 * start longest first, by the seconds each took in a whole run (durations.json, paths relative
 * to test/integration); a file not listed there starts before them, as vitest starts a file it
 * has not timed. Files of the other projects keep vitest's order. Refresh durations.json with
 * scripts/integration-durations.mjs when files are added or their times change much: only the
 * order matters.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const here = dirname(fileURLToPath(import.meta.url));
const dir = resolve(here, '..');
const seconds = JSON.parse(readFileSync(resolve(here, 'durations.json'), 'utf8')) as Record<string, number>;

/** The listed seconds of an integration file; Infinity when it is not listed. */
export function expectedSeconds(moduleId: string): number {
  return seconds[relative(dir, moduleId).split('\\').join('/')] ?? Infinity;
}

/**
 * `files` with those of the integration project in decreasing expected time, in the places the
 * integration files held; equal (or unknown) times keep their order.
 */
export function longestFirst<T extends { project: { name: string }; moduleId: string }>(files: readonly T[], secondsOf: (moduleId: string) => number = expectedSeconds): T[] {
  const ordered = files
    .map((s, i) => ({ s, i, t: secondsOf(s.moduleId) }))
    .filter((x) => x.s.project.name === 'integration')
    .sort((a, b) => (a.t === b.t ? a.i - b.i : b.t - a.t))
    .map((x) => x.s);
  let next = 0;
  return files.map((s) => (s.project.name === 'integration' ? ordered[next++]! : s));
}

export class IntegrationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return longestFirst(await super.sort(files));
  }
}
