import { describe, expect, it } from 'vitest';
import { retryWorkId, workId } from '../../../src/nodes/outcomes.ts';

describe('retryWorkId', () => {
  it('derives each retry from the failing item and the attempt (pinned: step clocks are stored under it)', () => {
    expect(retryWorkId('01890a5d-ac96-774b-bcce-b302099a8057', 2)).toBe('295017e5-8012-8c24-bd74-523f67bf5166');
    const first = workId('trace', 'node', 'tx', 1);
    const second = retryWorkId(first, 2);
    const third = retryWorkId(second, 3);
    expect(new Set([first, second, third, retryWorkId(first, 3)]).size).toBe(4);
    expect(retryWorkId(first, 2)).toBe(second);
  });
});
