/**
 * The order the files start in: the integration files' order (test/integration/support/
 * sequencer.ts), and the unit files that take seconds before the others. The unit workers take the
 * files in this order, each the next when it is free, and the run ends when the last file started
 * ends. In a fresh clone vitest knows no durations and starts the larger files first, which put
 * the slowest unit file (sample.test.ts, small and CPU-bound: 38 implementation schemas compiled)
 * last, with the other worker idle meanwhile. The seconds are those of a unit run beside the
 * type-check and lint (as deploy/test.sh runs them) on two cores; only the order matters. A file
 * not listed keeps vitest's order, after the listed ones.
 */
import { relative } from 'node:path';
import type { TestSpecification } from 'vitest/node';
import { IntegrationSequencer } from '../../integration/support/sequencer.ts';

export const unitSeconds: Readonly<Record<string, number>> = {
  'test/unit/x12/impl/sample.test.ts': 12.8,
  'test/unit/cli/commands/config.test.ts': 8.8,
  'test/unit/adapters/mapping/worker-pool.test.ts': 7.5,
  'test/unit/admin/mapping-check.test.ts': 7.2,
  'test/unit/cli/commands/x12.test.ts': 4.4,
  'test/unit/cli/commands/x12-corpus.test.ts': 4.2,
  'test/unit/deploy/stack-script.test.ts': 3.4,
  'test/unit/x12/impl/roundtrip.property.test.ts': 2.4,
  'test/unit/admin/demo-mappings.test.ts': 2.2,
  'test/unit/lint/layering.test.ts': 2.1,
};

/** `files` with the listed unit files first, longest first; every other file keeps its place after them. */
export function unitLongFirst<T extends { project: { name: string }; moduleId: string }>(files: readonly T[], root: string): T[] {
  const seconds = (s: T): number => (s.project.name === 'unit' ? (unitSeconds[relative(root, s.moduleId).split('\\').join('/')] ?? 0) : 0);
  return files
    .map((s, i) => ({ s, i, t: seconds(s) }))
    .sort((a, b) => (a.t === b.t ? a.i - b.i : b.t - a.t))
    .map((x) => x.s);
}

export class TestSequencer extends IntegrationSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return unitLongFirst(sorted, this.ctx.config.root);
  }
}
