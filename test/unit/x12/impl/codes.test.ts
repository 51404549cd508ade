/**
 * The code lists of our base definitions against their citable source: pyx12's 997 (004010) and
 * 999 (005010) maps (BSD-3-Clause, PyPI pyx12==4.0.0, installed with the oracle by
 * test/oracle/setup.sh). Skips, saying so, only when PyPI cannot be reached.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseImplementation, supportedReleases, supportedSets, type ElementDef, type StructureNode } from '../../../../src/x12/impl/index.ts';
import { oraclePython, oracleUnavailable } from '../../../oracle/oracle.ts';

const python = oraclePython();
if (python === null) console.warn(`code list tests skipped: ${oracleUnavailable()}`);

/** Codes per data element of one pyx12 map. */
function mapCodes(file: string): Map<string, Set<string>> {
  const root = join(dirname(dirname(python!)), 'lib');
  const pyVersion = readFileSync(join(dirname(dirname(python!)), 'pyvenv.cfg'), 'utf8').match(/version\s*=\s*(\d+\.\d+)/)![1];
  const xml = readFileSync(join(root, `python${pyVersion}`, 'site-packages', 'pyx12', 'map', file), 'utf8');
  const out = new Map<string, Set<string>>();
  for (const m of xml.matchAll(/<element[\s\S]*?<\/element>/g)) {
    const de = /<data_ele>([^<]+)<\/data_ele>/.exec(m[0])?.[1];
    if (de === undefined) continue;
    const codes = [...m[0].matchAll(/<code>([^<]*)<\/code>/g)].map((c) => c[1]!);
    if (codes.length === 0) continue;
    const set = out.get(de) ?? new Set<string>();
    for (const c of codes) set.add(c);
    out.set(de, set);
  }
  return out;
}

function elementsWithCodes(nodes: readonly StructureNode[], into: ElementDef[]): void {
  for (const n of nodes) {
    if (n.kind === 'loop') elementsWithCodes(n.children, into);
    else for (const e of n.elements) for (const x of [e, ...(e.components ?? [])]) if (x.codes) into.push(x);
  }
}

/** Element references per segment id of one pyx12 map: "479 28", composites as "C030[722,1528]". */
function mapReferences(file: string): Map<string, string> {
  const root = join(dirname(dirname(python!)), 'lib');
  const pyVersion = readFileSync(join(dirname(dirname(python!)), 'pyvenv.cfg'), 'utf8').match(/version\s*=\s*(\d+\.\d+)/)![1];
  const xml = readFileSync(join(root, `python${pyVersion}`, 'site-packages', 'pyx12', 'map', file), 'utf8');
  const out = new Map<string, string>();
  for (const m of xml.matchAll(/<segment xid="([A-Z0-9]+)">([\s\S]*?)<\/segment>/g)) {
    const refs: string[] = [];
    // a segment's direct elements and composites, in order
    for (const e of m[2]!.matchAll(/<(element|composite)[^>]*>([\s\S]*?)<\/\1>/g)) {
      const own = /<data_ele>([^<]+)<\/data_ele>/.exec(e[2]!)![1]!;
      if (e[1] === 'element') refs.push(own);
      else refs.push(`${own}[${[...e[2]!.matchAll(/<element[^>]*>[\s\S]*?<data_ele>([^<]+)<\/data_ele>/g)].map((c) => c[1]).join(',')}]`);
    }
    out.set(m[1]!, refs.join(' '));
  }
  return out;
}

function segmentsOf(nodes: readonly StructureNode[], into: Map<string, string>): void {
  for (const n of nodes) {
    if (n.kind === 'loop') segmentsOf(n.children, into);
    else into.set(n.id, n.elements.map((e) => (e.components ? `${e.reference}[${e.components.map((c) => c.reference).join(',')}]` : e.reference)).join(' '));
  }
}

describe.skipIf(python === null)('acknowledgment element numbers follow pyx12', () => {
  it.each([
    ['997', '004010', '997.4010.xml'],
    ['999', '005010', '999.5010.xml'],
  ])('%s %s: every segment names the elements of %s', (set, release, file) => {
    const theirs = mapReferences(file);
    const ours = new Map<string, string>();
    for (const t of baseImplementation(set, release)!.tables) segmentsOf(t.children, ours);
    expect(ours.size).toBeGreaterThan(5);
    for (const [id, refs] of ours) expect(refs, `${id} (${set} ${release})`).toBe(theirs.get(id));
  });
});

describe.skipIf(python === null)('base code lists follow pyx12', () => {
  const sources: Record<string, string> = { '004010': '997.4010.xml', '005010': '999.5010.xml' };
  it.each(['004010', '005010'])('every code list of %s is the list of the source', (release) => {
    const source = mapCodes(sources[release]!);
    const withCodes: ElementDef[] = [];
    for (const set of supportedSets) if (supportedReleases(set).includes(release)) for (const t of baseImplementation(set, release)!.tables) elementsWithCodes(t.children, withCodes);
    expect(withCodes.length).toBeGreaterThan(5);
    for (const e of withCodes) {
      const theirs = source.get(e.reference);
      expect(theirs, `element ${e.reference} has no list in ${sources[release]}`).toBeDefined();
      expect([...e.codes!].sort(), `element ${e.reference} (${release})`).toEqual([...theirs!].sort());
    }
  });
});
