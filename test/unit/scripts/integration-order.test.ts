import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectedSeconds, longestFirst } from '../../integration/support/sequencer.ts';

const durations = JSON.parse(readFileSync('test/integration/support/durations.json', 'utf8')) as Record<string, number>;
const spec = (project: string, file: string) => ({ project: { name: project }, moduleId: `${process.cwd()}/test/${project === 'integration' ? 'integration' : 'unit'}/${file}` });

describe('the integration files start order', () => {
  it("reads each listed file's seconds by its path under test/integration, and knows no other", () => {
    expect(expectedSeconds(`${process.cwd()}/test/integration/pipeline/chaos.test.ts`)).toBe(durations['pipeline/chaos.test.ts']);
    expect(expectedSeconds(`${process.cwd()}/test/integration/nowhere/new.test.ts`)).toBe(Infinity);
    for (const file of Object.keys(durations)) expect(existsSync(`test/integration/${file}`), file).toBe(true);
  });

  it('starts the integration files longest first, unknown ones before them, in the places integration files held', () => {
    const seconds: Record<string, number> = { 'a.test.ts': 5, 'b.test.ts': 60, 'c.test.ts': 1, 'd.test.ts': 60 };
    const of = (id: string) => seconds[id.split('/').pop()!] ?? Infinity;
    const files = [spec('unit', 'u1.test.ts'), spec('integration', 'a.test.ts'), spec('integration', 'b.test.ts'), spec('unit', 'u2.test.ts'), spec('integration', 'c.test.ts'), spec('integration', 'new.test.ts'), spec('integration', 'd.test.ts')];
    const names = longestFirst(files, of).map((s) => `${s.project.name}:${s.moduleId.split('/').pop()!}`);
    // b and d tie: they keep the order they came in
    expect(names).toEqual(['unit:u1.test.ts', 'integration:new.test.ts', 'integration:b.test.ts', 'unit:u2.test.ts', 'integration:d.test.ts', 'integration:a.test.ts', 'integration:c.test.ts']);
  });
});
