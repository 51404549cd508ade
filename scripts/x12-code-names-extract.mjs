#!/usr/bin/env node
/**
 * Writes test/fixtures/x12/code-names/ansi-5010-extract.txt: the lines of the OopFactory X12
 * Parser's 005010 segment set (the citable source of src/x12/impl/data-code-names.ts) that
 * define the code meanings the console shows, verbatim and with their line numbers, so that
 * test/unit/x12/impl/code-names.test.ts can check every meaning without the whole file.
 *
 *   git clone https://github.com/Inteligenz/X12Parser && git -C X12Parser checkout <commit>
 *   node scripts/x12-code-names-extract.mjs X12Parser/src/OopFactory.X12/Specifications/Ansi-5010Specification.xml
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { codeMeaningTable } from '../src/x12/impl/data-code-names.ts';

const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/x12-code-names-extract.mjs <path of Ansi-5010Specification.xml>');
  process.exit(2);
}
const lines = readFileSync(file, 'utf8').split(/\r?\n/);
const wanted = codeMeaningTable();
const out = [];
let element;
lines.forEach((line, i) => {
  const set = /<QualifierSet Id="([^"]+)"/.exec(line);
  if (set) {
    element = wanted[set[1]] ? set[1] : undefined;
    if (element) out.push(`${i + 1}\t${line.trim()}`);
    return;
  }
  if (line.includes('</QualifierSet>')) element = undefined;
  const code = /<Allowed ID="([^"]*)">/.exec(line);
  if (element && code && wanted[element][code[1]] !== undefined) out.push(`${i + 1}\t${line.trim()}`);
});
const header = [
  '# Extract of the OopFactory X12 Parser\'s segment set for X12 005010 (the source of src/x12/impl/data-code-names.ts).',
  '# repository: https://github.com/Inteligenz/X12Parser',
  '# path: src/OopFactory.X12/Specifications/Ansi-5010Specification.xml',
  '# commit: 9f8cd51f2911dc87a64beae158a386065e1ce017 (file blob d6b21220ed26e0ce323c5206704a24e9ea99a285)',
  '# license: CDDL-1.0 (License.html of the repository)',
  '# written by scripts/x12-code-names-extract.mjs: each line is the line number in that file, a tab, and the line as it is there (indentation trimmed).',
];
writeFileSync(new URL('../test/fixtures/x12/code-names/ansi-5010-extract.txt', import.meta.url), `${[...header, ...out].join('\n')}\n`);
console.log(`${out.length} lines`);
