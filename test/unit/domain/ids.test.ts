import { describe, expect, it } from 'vitest';
import { isWellFormedId, newId } from '../../../src/domain/ids.ts';

describe('newId', () => {
  it('makes well-formed version 7 ids that increase strictly, also within one millisecond', () => {
    const t = Date.now() + 10_000;
    const ids = Array.from({ length: 5000 }, () => newId(t));
    for (const id of ids) expect(isWellFormedId(id) && id[14] === '7').toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newId(t - 5000) > ids[ids.length - 1]!).toBe(true);
  });

  it('rejects anything but a lowercase UUID', () => {
    expect(isWellFormedId("x'")).toBe(false);
    expect(isWellFormedId(newId().toUpperCase())).toBe(false);
  });
});
