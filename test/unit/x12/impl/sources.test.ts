/**
 * Element reference numbers and syntax notes of the base definitions against a citable source the
 * tests can load: pyx12's maps (BSD-3-Clause, PyPI pyx12==4.0.0, installed with the oracle by
 * test/oracle/setup.sh), the health care guides of 004010 (`*.4010*.xml`) and 005010
 * (`*.5010*.xml`). A guide narrows codes and usage, never the element a position holds nor a
 * segment's syntax notes, so every segment those maps hold is checked position by position. The
 * 997 and 999 are checked by codes.test.ts. Skips, saying so, only when PyPI cannot be reached.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stupidediOnlyNotes, syntaxNotes } from '../../../../src/x12/impl/data-syntax.ts';
import { baseImplementation, supportedSets, type SegmentNode, type StructureNode } from '../../../../src/x12/impl/index.ts';
import { oraclePython, oracleUnavailable } from '../../../oracle/oracle.ts';

const python = oraclePython();
if (python === null) console.warn(`element source tests skipped: ${oracleUnavailable()}`);

interface MapSegment {
  /** Data element (or composite) number per position. */
  readonly refs: Map<number, Set<string>>;
  readonly notes: Set<string>;
}

/** Every segment of pyx12's maps of a release (envelopes and acknowledgments left out). */
function mapSegments(release: '004010' | '005010'): Map<string, MapSegment> {
  const venv = dirname(dirname(python!));
  const pyVersion = readFileSync(join(venv, 'pyvenv.cfg'), 'utf8').match(/version\s*=\s*(\d+\.\d+)/)![1];
  const dir = join(venv, 'lib', `python${pyVersion}`, 'site-packages', 'pyx12', 'map');
  const tag = release === '004010' ? '.4010' : '.5010';
  const out = new Map<string, MapSegment>();
  for (const file of readdirSync(dir).filter((f) => f.includes(tag) && f.endsWith('.xml') && !/^99[79]\./.test(f))) {
    const xml = readFileSync(join(dir, file), 'utf8');
    for (const m of xml.matchAll(/<segment xid="([A-Z0-9]+)">([\s\S]*?)<\/segment>/g)) {
      const id = m[1]!;
      if (['ISA', 'GS', 'GE', 'IEA', 'TA1', 'ST', 'SE'].includes(id)) continue;
      const seg = out.get(id) ?? { refs: new Map<number, Set<string>>(), notes: new Set<string>() };
      for (const n of m[2]!.matchAll(/<syntax>([A-Z0-9]+)<\/syntax>/g)) seg.notes.add(n[1]!);
      // the segment's own elements and composites (a composite's components are nested inside it)
      for (const e of m[2]!.matchAll(/<(element|composite) xid="[A-Z0-9]+?(\d\d)">\s*<data_ele>([^<]+)<\/data_ele>[\s\S]*?<\/\1>/g)) {
        const pos = Number(e[2]);
        const refs = seg.refs.get(pos) ?? new Set<string>();
        refs.add(e[3]!);
        seg.refs.set(pos, refs);
      }
      out.set(id, seg);
    }
  }
  return out;
}

function segmentsOf(nodes: readonly StructureNode[], into: Map<string, SegmentNode>): void {
  for (const n of nodes) {
    if (n.kind === 'loop') segmentsOf(n.children, into);
    else into.set(n.id, n);
  }
}

const releases = ['004010', '005010'] as const;

describe.skipIf(python === null)('element numbers and syntax notes against pyx12', () => {
  it.each(releases)('%s: every position pyx12 numbers holds that element in our definitions', (release) => {
    const maps = mapSegments(release);
    const ours = new Map<string, SegmentNode>();
    for (const s of supportedSets) {
      const impl = baseImplementation(s, release);
      if (impl !== null) for (const t of impl.tables) segmentsOf(t.children, ours);
    }
    const wrong: string[] = [];
    let compared = 0;
    for (const [id, seg] of ours) {
      const m = maps.get(id);
      if (m === undefined || id.startsWith('AK') || id.startsWith('IK') || id === 'CTX') continue;
      for (const [pos, refs] of m.refs) {
        const e = seg.elements[pos - 1];
        compared++;
        // a guide that uses only the first component of a composite may write it as that simple element (830 UIT01: 355 for C001)
        const first = e?.type === 'composite' ? e.components?.[0]?.reference : undefined;
        if (e === undefined || !(refs.has(e.reference) || (first !== undefined && refs.has(first)))) wrong.push(`${id}${String(pos).padStart(2, '0')}: ours ${e === undefined ? 'nothing' : e.reference || '(no number)'}, pyx12 ${[...refs].join('/')}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(compared).toBeGreaterThan(250);
  });

  it.each(releases)('%s: every syntax note not marked as stupidedi-only is one of pyx12', (release) => {
    const maps = mapSegments(release);
    const unsourced: string[] = [];
    let checked = 0;
    for (const [id, notes] of Object.entries(syntaxNotes[release] ?? {})) {
      for (const n of notes) {
        if (stupidediOnlyNotes.has(`${release}/${id}/${n}`)) continue;
        checked++;
        if (!maps.get(id)?.notes.has(n)) unsourced.push(`${id} ${n}`);
      }
    }
    expect(unsourced).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it('release 003060 has no syntax notes (no source)', () => {
    expect(syntaxNotes['003060']).toBeUndefined();
    const notes = (baseImplementation('204', '003060')?.tables ?? []).flatMap((t) => {
      const m = new Map<string, SegmentNode>();
      segmentsOf(t.children, m);
      return [...m.values()].flatMap((s) => s.syntax ?? []);
    });
    expect(notes).toEqual([]);
  });
});
