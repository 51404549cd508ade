import { describe, expect, it } from 'vitest';
import { findPlaceholders } from '../../../src/domain/mapping-placeholders.ts';

describe('findPlaceholders', () => {
  it('lists TODO string literals with reason, offset, line and column', () => {
    const t = '{\n  "a": "TODO: vendor number",\n  /* "TODO: in a comment" */ "b": \'TODO\', "c": "done"\n}';
    expect(findPlaceholders(t)).toEqual([
      { value: 'TODO: vendor number', reason: 'vendor number', position: 9, line: 2, column: 8 },
      { value: 'TODO', reason: '', position: t.indexOf("'TODO'"), line: 3, column: 35 },
    ]);
  });

  it('finds none in a finished transformation', () => {
    expect(findPlaceholders('{ "x": TODOS, "y": "TODOS are words" }')).toEqual([]);
  });
});
