import { describe, expect, it } from 'vitest';
import { SHAPE_DEPTH, parseJsonPath, resolveJsonPath, shapeOf } from '../../../src/domain/payload.ts';

const doc = {
  heading: { beginning: { number: 'PO-1', date: '20260301' } },
  detail: { lines: [{ sku: 'A', qty: 2, tags: ['x'] }, { sku: 'B', qty: 3, tags: [] }] },
  '7': 'a key of digits',
  flag: true,
  nothing: null,
};

describe('jsonPath', () => {
  it('splits on dots and refuses empty paths and empty segments', () => {
    expect(parseJsonPath('detail.lines.0.sku')).toEqual(['detail', 'lines', '0', 'sku']);
    expect(parseJsonPath('')).toBeNull();
    expect(parseJsonPath('a..b')).toBeNull();
    expect(parseJsonPath('.a')).toBeNull();
    expect(parseJsonPath('a.')).toBeNull();
  });

  it('indexes arrays with numeric segments and names object keys with any other (digits included)', () => {
    expect(resolveJsonPath(doc, ['detail', 'lines', '1', 'sku'])).toBe('B');
    expect(resolveJsonPath(doc, ['detail', 'lines', '0'])).toEqual({ sku: 'A', qty: 2, tags: ['x'] });
    expect(resolveJsonPath(doc, ['7'])).toBe('a key of digits');
    expect(resolveJsonPath(doc, ['nothing'])).toBeNull();
    expect(resolveJsonPath(doc, [])).toBe(doc);
  });

  it('does not resolve past the end, through a scalar, or by a name on an array', () => {
    expect(resolveJsonPath(doc, ['detail', 'lines', '2'])).toBeUndefined();
    expect(resolveJsonPath(doc, ['detail', 'lines', 'first'])).toBeUndefined();
    expect(resolveJsonPath(doc, ['flag', 'x'])).toBeUndefined();
    expect(resolveJsonPath(doc, ['heading', 'missing'])).toBeUndefined();
    expect(resolveJsonPath(doc, ['heading', 'toString'])).toBeUndefined();
    expect(resolveJsonPath('text', ['0'])).toBeUndefined();
  });
});

describe('keysOnly shape', () => {
  it('describes keys, value types and arrays (length and first element) four levels deep', () => {
    expect(SHAPE_DEPTH).toBe(4);
    expect(shapeOf(doc)).toEqual({
      type: 'object',
      keys: {
        heading: { type: 'object', keys: { beginning: { type: 'object', keys: { number: { type: 'string' }, date: { type: 'string' } } } } },
        detail: { type: 'object', keys: { lines: { type: 'array', length: 2, sample: { type: 'object', keyCount: 3 } } } },
        '7': { type: 'string' },
        flag: { type: 'boolean' },
        nothing: { type: 'null' },
      },
    });
  });

  it('gives an empty array its length only, and a container at the last level its size only', () => {
    expect(shapeOf([])).toEqual({ type: 'array', length: 0 });
    expect(shapeOf([[1, 2]], 2)).toEqual({ type: 'array', length: 1, sample: { type: 'array', length: 2 } });
    expect(shapeOf({ a: { b: 1 } }, 1)).toEqual({ type: 'object', keyCount: 1 });
    expect(shapeOf(3)).toEqual({ type: 'number' });
    expect(shapeOf('x')).toEqual({ type: 'string' });
  });
});
