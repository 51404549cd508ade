import { describe, expect, it } from 'vitest';
import { deterministicId, feedEntryId, isWellFormedId, resultId } from '../../../src/domain/ids.ts';

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

  it('keeps the stored derivation (golden values: changing it would re-key stored rows)', () => {
    expect(resultId('01890a5d-ac96-774b-bcce-b302099a8057', 'flow-1.n2', null, 1)).toBe(GOLDEN_RESULT);
    expect(feedEntryId(GOLDEN_RESULT)).toBe(GOLDEN_FEED);
  });
});

const GOLDEN_RESULT = '68f392cc-8781-8a4f-8d4d-59b2d72fbcdd';
const GOLDEN_FEED = 'b515a4cc-f4b0-8209-9332-3de4e59f2c20';
