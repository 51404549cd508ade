import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { TdxError, errorCatalog, errorCodes, httpStatusOf } from '../../src/errors.ts';

const rows = readFileSync('docs/errors.md', 'utf8')
  .split('\n')
  .filter((l) => /^\| [a-z0-9_]+ \|/.test(l) && !l.startsWith('| code |'))
  .map((l) => l.split('|').map((c) => c.trim()).slice(1, -1));

describe('error catalog', () => {
  it('has unique codes', () => {
    expect(new Set(errorCodes).size).toBe(errorCodes.length);
  });

  it('gives each error the status and code of its catalog entry', () => {
    for (const code of errorCodes) {
      const e = new TdxError(code, 'x');
      expect(e.code).toBe(code);
      expect(e.status).toBe(errorCatalog[code].status);
      expect(httpStatusOf(code)).toBe(errorCatalog[code].status);
    }
  });

  it('documents every code in docs/errors.md exactly once, with its status', () => {
    const documented = rows.map((r) => r[0]);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...errorCodes].sort());
    for (const r of rows) {
      expect(r).toHaveLength(4);
      expect(Number(r[2])).toBe(errorCatalog[r[0] as keyof typeof errorCatalog].status);
      expect(r[1]!.length).toBeGreaterThan(10);
      expect(r[3]!.length).toBeGreaterThan(5);
    }
  });
});
