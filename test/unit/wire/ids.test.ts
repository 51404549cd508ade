import { describe, expect, it } from 'vitest';
import { deterministicId, feedEntryId, resultId } from '../../../src/wire/ids.ts';
import { isWellFormedId } from '../../../src/domain/ids.ts';

describe('deterministic ids', () => {
  it('gives the same result id for the same (trace, node, transaction, attempt)', () => {
    expect(resultId('t', 'n', 'x', 1)).toBe(resultId('t', 'n', 'x', 1));
  });

  it.each([
    ['trace', resultId('t2', 'n', 'x', 1)],
    ['node', resultId('t', 'n2', 'x', 1)],
    ['transaction', resultId('t', 'n', null, 1)],
    ['attempt', resultId('t', 'n', 'x', 2)],
  ])('changes with the %s', (_part, other) => {
    expect(other).not.toBe(resultId('t', 'n', 'x', 1));
  });

  it('does not collide across part boundaries or kinds', () => {
    expect(deterministicId('k', 'ab', 'c')).not.toBe(deterministicId('k', 'a', 'bc'));
    expect(feedEntryId('r')).not.toBe(deterministicId('result', 'r'));
  });

  it('is UUID-shaped, version 8', () => {
    const id = resultId('t', 'n', 'x', 1);
    expect(isWellFormedId(id)).toBe(true);
    expect(id[14]).toBe('8');
  });
});
