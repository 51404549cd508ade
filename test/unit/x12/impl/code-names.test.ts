/**
 * The code meanings the console shows (src/x12/impl/data-code-names.ts) against their citable
 * source: the lines of the OopFactory X12 Parser's 005010 segment set checked in as
 * test/fixtures/x12/code-names/ansi-5010-extract.txt (repository, path and commit in its header).
 * Every element listed must be a qualifier set of the source with the same data element number,
 * and every code's meaning must be the source's word for word.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeMeaning, codeMeaningTable } from '../../../../src/x12/impl/data-code-names.ts';

const extract = readFileSync(new URL('../../../fixtures/x12/code-names/ansi-5010-extract.txt', import.meta.url), 'utf8');

const entities = (s: string): string => s.replace(/&apos;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The source's qualifier sets (element → name and codes), read from the extract's lines. */
function sourceSets(): Map<string, { name: string; line: number; codes: Map<string, string> }> {
  const sets = new Map<string, { name: string; line: number; codes: Map<string, string> }>();
  let current: { name: string; line: number; codes: Map<string, string> } | undefined;
  let previous = 0;
  for (const row of extract.split('\n')) {
    if (row === '' || row.startsWith('#')) continue;
    const [n, text] = row.split('\t') as [string, string];
    const line = Number(n);
    // lines are the source's, in its order
    expect(line, row).toBeGreaterThan(previous);
    previous = line;
    const set = /^<QualifierSet Id="([^"]+)" Name="([^"]*)">$/.exec(text);
    if (set) {
      current = { name: entities(set[2]!), line, codes: new Map() };
      sets.set(set[1]!, current);
      continue;
    }
    const code = /^<Allowed ID="([^"]*)">([^<]*)<\/Allowed>$/.exec(text);
    if (!code || !current) throw new Error(`not a line of a qualifier set: ${row}`);
    current.codes.set(code[1]!, entities(code[2]!));
  }
  return sets;
}

describe('code meanings (data-code-names.ts)', () => {
  const sets = sourceSets();
  const ours = codeMeaningTable();

  it('names its source beside the data', () => {
    expect(extract).toContain('# repository: https://github.com/Inteligenz/X12Parser');
    expect(extract).toMatch(/# commit: [0-9a-f]{40}/);
    expect(readFileSync(new URL('../../../../src/x12/impl/data-code-names.ts', import.meta.url), 'utf8')).toContain('https://github.com/Inteligenz/X12Parser');
  });

  it('lists only elements the source defines, each code with the meaning the source gives it', () => {
    expect(Object.keys(ours).length).toBeGreaterThanOrEqual(15);
    for (const [element, codes] of Object.entries(ours)) {
      const set = sets.get(element);
      expect(set, `element ${element} is in the source`).toBeDefined();
      expect(Object.keys(codes).length, element).toBeGreaterThan(0);
      for (const [code, meaning] of Object.entries(codes)) expect(meaning, `${element} ${code} (${set!.name})`).toBe(set!.codes.get(code));
    }
  });

  it('holds no source line it does not use (the extract is regenerated with the data)', () => {
    for (const [element, set] of sets) {
      expect(ours[element], `element ${element}`).toBeDefined();
      expect([...set.codes.keys()].sort()).toEqual(Object.keys(ours[element]!).sort());
    }
  });

  it('reads the meanings the console shows', () => {
    expect(codeMeaning('92', 'SA')).toBe('Stand-alone Order');
    expect(codeMeaning('717', 'A')).toBe('Accepted');
    expect(codeMeaning('66', '1')).toBe('D-U-N-S Number, Dun & Bradstreet');
    expect(codeMeaning('92', 'ZZ')).toBeUndefined();
    expect(codeMeaning('9999', 'A')).toBeUndefined();
  });
});
