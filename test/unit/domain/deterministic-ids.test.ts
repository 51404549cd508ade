import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bucketOfId, deterministicId, feedEntryId, isWellFormedId, resultId, traceBucket, traceScopedId } from '../../../src/domain/ids.ts';

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

  it("begins a result id with its trace's bucket, so every result of a trace shares it, and keeps the rest of the derivation", () => {
    const a = resultId('trace-a', 'n', 'x', 1);
    const b = resultId('trace-b', 'n', 'x', 1);
    expect(bucketOfId(a)).toBe(traceBucket('trace-a'));
    expect(bucketOfId(resultId('trace-a', 'n9', null, 3))).toBe(bucketOfId(a));
    expect(bucketOfId(b)).toBe(traceBucket('trace-b'));
    expect(bucketOfId(b)).not.toBe(bucketOfId(a));
    // the bucket is SHA-256 of `trace NUL guid`, whichever trace was asked before
    for (const t of ['trace-a', 'trace-b', 'trace-a']) expect(traceBucket(t)).toBe(createHash('sha256').update(`trace\u0000${t}`).digest('hex').slice(0, 8));
    expect(a.slice(8)).toBe(deterministicId('result', 'trace-a', 'n', 'x', 1).slice(8));
    expect(traceScopedId('other', 'trace-a', 'n', 'x', 1)).not.toBe(a);
  });

  it('keeps the stored derivation (golden values: changing it would re-key stored rows)', () => {
    expect(resultId('01890a5d-ac96-774b-bcce-b302099a8057', 'flow-1.n2', null, 1)).toBe(GOLDEN_RESULT);
    expect(feedEntryId(GOLDEN_RESULT)).toBe(GOLDEN_FEED);
  });

  it('equals the derivation written out byte by byte (SHA-256 of kind NUL parts, version and variant bits set) for any parts', () => {
    const reference = (kind: string, ...parts: Array<string | number>): string => {
      const h = createHash('sha256');
      h.update(kind);
      for (const p of parts) {
        h.update('\u0000');
        h.update(String(p));
      }
      const b = h.digest();
      b[6] = (b[6]! & 0x0f) | 0x80;
      b[8] = (b[8]! & 0x3f) | 0x80;
      const x = b.toString('hex', 0, 16);
      return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
    };
    const alphabet = ['a', 'Z', '0', '-', '.', '\u0000', 'é', '漢', '😀', ' '];
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const text = (): string => Array.from({ length: rand(12) }, () => alphabet[rand(alphabet.length)]).join('');
    const variants = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const parts = Array.from({ length: rand(5) }, () => (rand(3) === 0 ? rand(100000) : text()));
      const kind = text();
      const id = deterministicId(kind, ...parts);
      expect(id, JSON.stringify([kind, parts])).toBe(reference(kind, ...parts));
      variants.add(id[19]!);
    }
    // every variant nibble occurs, so the mapping of each is checked
    expect([...variants].sort()).toEqual(['8', '9', 'a', 'b']);
  });
});

const GOLDEN_RESULT = 'b95c50b2-8781-8a4f-8d4d-59b2d72fbcdd';
const GOLDEN_FEED = '781239c5-2c13-8ec0-8a32-32f924bc9961';
