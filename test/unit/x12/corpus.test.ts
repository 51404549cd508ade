/**
 * The shared corpus (../shared/corpus/x12, beside the repository): every file is read or refused
 * with a typed error; valid files raise no structural warning; malformed ones give the findings
 * their SOURCES.md row names. Differential checks: our 997 against @stedi/x12-tools `ack()` on
 * every valid file it handles, and against pyx12's expected 997s (`*.997.base`).
 * Skips when the corpus folder is absent.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ack as stediAck } from '@stedi/x12-tools';
import { describe, expect, it } from 'vitest';
import { isTdxError } from '../../../src/errors.ts';
import { acknowledgeInterchange, outcomeForSet, readAcknowledgment, type AckGroupRead } from '../../../src/x12/ack.ts';
import type { FindingKind } from '../../../src/x12/findings.ts';
import { allFindings, readInterchanges, setsWithWarnings, type X12Read } from '../../../src/x12/interchange.ts';

const corpus = fileURLToPath(new URL('../../../../shared/corpus/x12/', import.meta.url));
const present = existsSync(corpus + 'SOURCES.md');

interface Row {
  path: string;
  malformed: string;
}

function rows(): Row[] {
  const out: Row[] = [];
  // a row may be broken over two lines (a value containing a line break)
  const text = readFileSync(corpus + 'SOURCES.md', 'utf8').replace(/\n(?![|\n#])/g, ' ');
  for (const line of text.split('\n').map((l) => l.trimEnd())) {
    const m = /^\| \d+ \| `([^`]+)` \|.*\| ([^|]*(?:\|[^|]*)*?) \|$/.exec(line);
    if (!m) continue;
    const cells = line.split(' | ');
    out.push({ path: m[1]!, malformed: cells[cells.length - 1]!.replace(/ \|$/, '') });
  }
  return out;
}

const detectors: [RegExp, FindingKind | 'unreadable'][] = [
  [/SE01=\S* but \d+ segments/, 'segment_count_mismatch'],
  [/SE02 '[^']*' != ST02/, 'set_control_mismatch'],
  [/missing SE/, 'missing_se'],
  [/missing GE/, 'missing_ge'],
  [/missing IEA/, 'missing_iea'],
  [/GE02 '[^']*' != GS06/, 'group_control_mismatch'],
  [/GE01=\d+ but/, 'set_count_mismatch'],
  [/IEA02 '[^']*' != ISA13/, 'interchange_control_mismatch'],
  [/IEA01=\d+ but/, 'group_count_mismatch'],
  [/ISA is \d+ chars|ISA contains non-ASCII/, 'malformed_isa'],
  [/bad ISA09 date/, 'invalid_isa_date'],
  [/bad ISA10 time/, 'invalid_isa_time'],
  [/duplicate ST02/, 'duplicate_set_control'],
  [/duplicate GS06/, 'duplicate_group_control'],
  [/duplicate ISA13/, 'duplicate_interchange_control'],
  [/component and repetition separators are the same/, 'delimiter_clash'],
  [/outside ST\/SE/, 'segment_outside_set'],
  [/no ISA segment/, 'unreadable'],
];

/** Envelope arithmetic: what we report must be named by the row too. */
const arithmetic = new Set<string>(['segment_count_mismatch', 'set_control_mismatch', 'missing_se', 'missing_ge', 'group_control_mismatch', 'set_count_mismatch', 'interchange_control_mismatch', 'group_count_mismatch', 'missing_iea']);

function tryRead(path: string): X12Read | 'unreadable' {
  try {
    return readInterchanges(readFileSync(corpus + path));
  } catch (err) {
    if (isTdxError(err) && err.code === 'x12_unreadable') return 'unreadable';
    throw err;
  }
}

const files = present
  ? readdirSync(corpus)
      .filter((d) => statSync(corpus + d).isDirectory())
      .flatMap((d) => readdirSync(corpus + d).map((f) => `${d}/${f}`))
  : [];

describe.skipIf(!present)('corpus', () => {
  it('lists every corpus file in SOURCES.md', () => {
    const listed = new Set(rows().map((r) => r.path));
    expect(files.filter((f) => !listed.has(f))).toEqual([]);
  });

  it.each(present ? rows() : [])('$path', (row) => {
    const read = tryRead(row.path);
    const detected = /\[detected: ([^\]]*)\]/.exec(row.malformed)?.[1] ?? '';
    const expected = new Set(detectors.filter(([re]) => re.test(detected)).map(([, k]) => k));
    // the row's own note may name the 997 the source expects (AK5 code 3: ST02/SE02 differ)
    if (/AK5\*R\*3/.test(row.malformed)) expected.add('set_control_mismatch');
    if (expected.has('unreadable')) {
      expect(read).toBe('unreadable');
      return;
    }
    expect(read).not.toBe('unreadable');
    const r = read as X12Read;
    const found = new Set(allFindings(r).map((f) => f.kind));
    if (row.malformed.startsWith('no')) {
      expect(setsWithWarnings(r).flatMap((s) => s.warnings)).toEqual([]);
      expect([...found].filter((k) => arithmetic.has(k))).toEqual([]);
    }
    for (const k of expected) expect(found, `${row.path} should report ${k}`).toContain(k);
    if (detected !== '' || row.malformed.startsWith('no')) for (const k of found) if (arithmetic.has(k)) expect(expected, `${row.path} reports ${k} that SOURCES.md does not name`).toContain(k);
  });
});

function ackGroups(edi: string): AckGroupRead[] {
  return readInterchanges(edi).interchanges.flatMap((ic) => ic.groups.flatMap((g) => g.sets.flatMap((s) => readAcknowledgment(s.set)?.groups ?? [])));
}

function ours(read: X12Read): AckGroupRead[] {
  const date = new Date('2024-01-01T00:00:00Z');
  return read.interchanges.flatMap((ic) => ackGroups(acknowledgeInterchange(ic, { interchangeControlNumber: 1, groupControlNumber: 1, date })));
}

describe.skipIf(!present)('997 differential', () => {
  const valid = present ? rows().filter((r) => r.malformed.startsWith('no') && !/\.base$|\.999\.txt$/.test(r.path)) : [];

  it('agrees with @stedi/x12-tools ack() on AK1, AK2, AK5 and AK9 of every valid file it handles', () => {
    let compared = 0;
    for (const row of valid) {
      const text = readFileSync(corpus + row.path, 'utf8');
      let theirs: string | undefined;
      try {
        theirs = stediAck(text, '000000001', '1');
      } catch {
        theirs = undefined;
      }
      if (!theirs) continue;
      const read = tryRead(row.path) as X12Read;
      // ack() answers one interchange and merges several groups into one AK1
      if (read.interchanges.length !== 1 || read.interchanges[0]!.groups.length !== 1) continue;
      const mine = ours(read);
      for (const g of ackGroups(theirs)) {
        const m = mine.find((x) => x.functionalId === g.functionalId && Number(x.groupControlNumber) === Number(g.groupControlNumber));
        expect(m, `${row.path}: group ${g.functionalId} ${g.groupControlNumber}`).toBeDefined();
        expect([m!.status, m!.included, m!.received, m!.accepted], row.path).toEqual([g.status, g.included, g.received, g.accepted]);
        const sent = read.interchanges.flatMap((ic) => ic.groups).find((x) => Number(x.header.controlNumber) === Number(g.groupControlNumber))!;
        for (const s of sent.sets) {
          const a = { groups: [g], kind: '997' as const };
          const b = { groups: [m!], kind: '997' as const };
          expect(outcomeForSet(b, m!.groupControlNumber, s.set.controlNumber), `${row.path} ${s.set.controlNumber}`).toBe(outcomeForSet(a, g.groupControlNumber, s.set.controlNumber));
        }
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(50);
  });

  it("agrees with pyx12's expected 997s on AK1, AK2, envelope AK5 codes and AK9 counts and codes", () => {
    const pairs = present ? readdirSync(corpus + 'pyx12').filter((f) => f.endsWith('.997.base')) : [];
    expect(pairs.length).toBeGreaterThan(5);
    for (const base of pairs) {
      const source = base.replace('.997.base', '.txt');
      const read = tryRead(`pyx12/${source}`) as X12Read;
      const expected = ackGroups(readFileSync(`${corpus}pyx12/${base}`, 'utf8'));
      const actual = ours(read);
      const envelope = (codes: readonly string[], allowed: string[]) => codes.filter((c) => allowed.includes(c)).sort();
      const shape = (gs: AckGroupRead[]) =>
        gs.map((g) => ({
          ak1: [g.functionalId, g.groupControlNumber],
          ak2: g.sets.map((s) => [s.transactionSetIdentifier, s.controlNumber, envelope(s.codes, ['2', '3', '4'])]),
          ak9: [g.included, g.received, envelope(g.codes, ['3', '4', '5'])],
        }));
      // pyx12 lists only rejected sets for some files; compare the sets it lists
      const mine = shape(actual).map((g, i) => ({ ...g, ak2: g.ak2.filter((s) => shape(expected)[i]?.ak2.some((e) => e[1] === s[1]) ?? true) }));
      expect(mine, base).toEqual(shape(expected));
    }
  });
});
