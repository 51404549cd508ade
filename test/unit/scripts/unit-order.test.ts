import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unitLongFirst, unitSeconds } from '../support/sequencer.ts';

const root = process.cwd();
const spec = (project: string, file: string) => ({ project: { name: project }, moduleId: `${root}/${file}` });

describe('the unit files start order', () => {
  it('lists only unit files that exist', () => {
    for (const file of Object.keys(unitSeconds)) expect(existsSync(file) && file.startsWith('test/unit/'), file).toBe(true);
  });

  it('starts the listed unit files first, longest first; every other file keeps its order after them', () => {
    const files = [
      spec('integration', 'test/integration/a.test.ts'),
      spec('unit', 'test/unit/small.test.ts'),
      spec('unit', 'test/unit/admin/demo-mappings.test.ts'),
      spec('unit', 'test/unit/other.test.ts'),
      spec('unit', 'test/unit/x12/impl/sample.test.ts'),
      // a listed path in another project is not moved
      spec('integration', 'test/unit/lint/layering.test.ts'),
    ];
    expect(unitLongFirst(files, root).map((s) => `${s.project.name}:${s.moduleId.slice(root.length + 1)}`)).toEqual([
      'unit:test/unit/x12/impl/sample.test.ts',
      'unit:test/unit/admin/demo-mappings.test.ts',
      'integration:test/integration/a.test.ts',
      'unit:test/unit/small.test.ts',
      'unit:test/unit/other.test.ts',
      'integration:test/unit/lint/layering.test.ts',
    ]);
  });
});
