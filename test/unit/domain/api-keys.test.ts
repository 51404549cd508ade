import { describe, expect, it } from 'vitest';
import { ENDPOINT_GROUPS, KEY_KINDS, generateApiKey, hashApiKey, isWellFormedKey, keyPrefix, mayAccess } from '../../../src/domain/api-keys.ts';

describe('key-kind access matrix (contract "Authentication", DESIGN §3)', () => {
  // group → [standard, read-only, sandbox]
  const matrix: Record<(typeof ENDPOINT_GROUPS)[number], [boolean, boolean, boolean]> = {
    transactions: [true, true, false],
    replay: [true, false, false],
    results: [true, true, true],
    artifacts: [true, true, true],
    feed: [true, true, false],
    logs: [true, true, false],
    configuration: [true, true, false],
    partners: [true, true, false],
    partner_submission: [true, false, false],
    traces: [true, true, false],
    documentation: [true, true, true],
  };

  it('gives every kind its row for every group', () => {
    for (const group of ENDPOINT_GROUPS) {
      expect(KEY_KINDS.map((kind) => mayAccess(kind, group)), group).toEqual(matrix[group]);
    }
    expect(Object.keys(matrix).sort()).toEqual([...ENDPOINT_GROUPS].sort());
  });
});

describe('API keys', () => {
  it('are 32 random bytes after tdx_, stored as their SHA-256 only', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).not.toBe(b);
    expect(isWellFormedKey(a)).toBe(true);
    expect(isWellFormedKey(`${a}x`)).toBe(false);
    expect(isWellFormedKey(a.replace('tdx_', 'tdy_'))).toBe(false);
    expect(hashApiKey(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(a)).toBe(hashApiKey(a));
    expect(hashApiKey(a)).not.toContain(a.slice(4, 14));
    expect(keyPrefix(a)).toBe(a.slice(0, 10));
  });
});
