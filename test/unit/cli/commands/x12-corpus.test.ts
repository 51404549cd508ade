/**
 * The four `tdx x12` commands over every file of the shared corpus (../shared/corpus/x12,
 * beside the repository; skipped when absent): none crashes; a file that cannot be read gives
 * exit 2 and one line on stderr from every command; for every readable file, what `parse`
 * prints (with its GS01 and ISA12) is accepted by `write`, and the EDI it writes parses back to
 * the same documents; a file SOURCES.md marks malformed in a way that cannot be written back
 * gets the one refusal listed below. `write` always computes SE (SE01 the segment count, SE02 the
 * ST02): a set whose own SE disagreed (a wrong SE01 or SE02 in the file) comes back equal except
 * for its SE, with one note on stderr; every other set comes back exactly.
 */
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { x12Command } from '../../../../src/cli/commands/x12.ts';
import { captured, type Captured } from '../../support/cli-io.ts';

const corpus = fileURLToPath(new URL('../../../../../shared/corpus/x12/', import.meta.url));
const present = existsSync(join(corpus, 'SOURCES.md'));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : name === 'SOURCES.md' ? [] : [p];
  });
}

const run = (...args: string[]): Promise<Captured> => captured((io) => x12Command(args, io));

/** Per written set, counted on the text alone: ST02, SE01 and SE02 as written, segments ST..SE. */
function writtenSets(edi: string): { st02: string; se01: string; se02: string; count: number }[] {
  const element = edi[3]!;
  const terminator = edi[105]!;
  const out: { st02: string; se01: string; se02: string; count: number }[] = [];
  let open: { st02: string; count: number } | null = null;
  for (const raw of edi.split(terminator)) {
    const seg = raw.replace(/^[\r\n]+/, '');
    if (seg === '') continue;
    const e = seg.split(element);
    if (e[0] === 'ST') open = { st02: e[2] ?? '', count: 0 };
    if (open) open.count++;
    if (e[0] === 'SE' && open) {
      out.push({ st02: open.st02, se01: e[1] ?? '', se02: e[2] ?? '', count: open.count });
      open = null;
    }
  }
  return out;
}

/** A document without its SE (the generic `{"id": "SE"}` entry or the implementation's trailer key), and that SE. */
function splitSe(doc: unknown): { rest: unknown; se: unknown[] } {
  const se: unknown[] = [];
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      return v.filter((x) => !((x as { id?: unknown } | null)?.id === 'SE' && se.push(x))).map(walk);
    }
    if (typeof v === 'object' && v !== null) {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === 'transaction_set_trailer_SE') se.push(x);
        else o[k] = walk(x);
      }
      return o;
    }
    return v;
  };
  return { rest: walk(doc), se };
}

const noteLine = /^note: transactionSets\[(\d+)\] \([0-9A-Z]+, ST02 (".*")\): the document's SE \(SE01 ".*"(, SE0\d ".*")*\) disagrees; written as computed: SE01 "(\d+)", SE02 (".*")$/;

/** Files where `write` noted a recomputed SE (checked after the per-file tests). */
const recomputed = new Set<string>();

interface ParsedLine {
  transactionSetIdentifier: string;
  transactionSetControlNumber: string;
  functionalIdentifierCode: string;
  interchangeVersion: string;
  release: string;
  warnings: { code: string; detail: Record<string, unknown> | null }[];
  senderQualifier: string;
  senderExtid: string;
  receiverQualifier: string;
  receiverExtid: string;
  document: unknown;
}

/**
 * Files SOURCES.md marks malformed in a way `write` refuses (exit 2, one line naming the JSON
 * path): sets read without their SE, segment ids that are not segment ids (line breaks inside
 * segments, corrupted ids), and a placeholder ISA12.
 */
const refused: Record<string, RegExp> = {
  'X12Parser/FromBogeyone.txt': /x12_document_invalid: \$\.segments: the SE is missing/,
  'ballerina-edi/edi-837__message.edi': /x12_document_invalid: \$\.segments: the SE is missing/,
  'pyx12/explicit_missing.txt': /x12_document_invalid: \$\.segments: the SE is missing/,
  'vscode-edi-x12/odd-separator.edi': /x12_document_invalid: \$\.segments: the SE is missing/,
  'imsweb-x12-parser/x12_bad_segment_identifier.txt': /x12_document_invalid: \$\.segments\[3\]\.id: "" is not a segment id/,
  'staedi/ts210_80char.edi': /x12_document_invalid: \$\.heading\.name_N1_loop\[0\]\.unrecognized_segments\[0\]\.id: "N4\\n" is not a segment id/,
  // GS08 "004 010" names no release with a base definition: generic documents
  'bots-plugins/850-004010-08.x12': /x12_document_invalid: \$\.segments\[18\]\.id: "DT\\nM" is not a segment id/,
  'bots-plugins/850-004010.16.x12': /x12_document_invalid: \$\.segments\[18\]\.id: "DT\\r\\nM" is not a segment id/,
  'X12Parser/FromLatitude81uk.txt': /invalid_body: .*envelope\.version \(ISA12\) "343434" must be five letters or digits/,
};

const parseLines = (stdout: string): ParsedLine[] =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ParsedLine);

describe.skipIf(!present)('tdx x12 over the corpus', () => {
  const all = present ? files(corpus).map((p) => p.slice(corpus.length)) : [];
  const tmp = present ? mkdtempSync(join(tmpdir(), 'tdx-x12-corpus-')) : '';

  it('covers the whole corpus', () => {
    expect(all.length).toBeGreaterThan(100);
  });

  it.each(all)('%s', async (rel) => {
    const file = join(corpus, rel);
    const parse = await run('parse', file);
    const validate = await run('validate', file);
    const ack = await run('ack', file);
    if (parse.code === 2) {
      for (const r of [parse, validate, ack]) {
        expect(r.code).toBe(2);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toMatch(/x12_unreadable/);
      }
      return;
    }
    expect(parse.code, parse.stderr).toBe(0);
    expect(validate.code, validate.stderr).toBe(0);
    expect(ack.code, ack.stderr).toBe(0);
    for (const line of validate.stdout.split('\n').filter(Boolean)) expect(JSON.parse(line)).toHaveProperty('code');
    expect(ack.stdout).toMatch(/^ISA/);

    const lines = parseLines(parse.stdout);
    if (lines.length === 0) return; // envelopes only: nothing to write
    const first = lines[0]!;
    const input = {
      envelope: {
        sender: { qualifier: first.senderQualifier, id: first.senderExtid },
        receiver: { qualifier: first.receiverQualifier, id: first.receiverExtid },
        interchangeControlNumber: 1,
        version: first.interchangeVersion,
        date: '2026-01-02T03:04:00Z',
      },
      transactionSets: lines.map((l) => ({
        transactionSetIdentifier: l.transactionSetIdentifier,
        controlNumber: l.transactionSetControlNumber,
        functionalIdentifierCode: l.functionalIdentifierCode,
        release: l.release,
        document: l.document,
      })),
    };
    const jsonFile = join(tmp, rel.replace(/[/\\]/g, '_') + '.json');
    writeFileSync(jsonFile, JSON.stringify(input));
    const write = await run('write', jsonFile);
    const refusal = refused[rel.replace(/\\/g, '/')];
    if (refusal) {
      expect(write.code).toBe(2);
      expect(write.stderr.trim().split('\n')).toHaveLength(1);
      expect(write.stderr).toMatch(refusal);
      return;
    }
    expect(write.code, write.stderr).toBe(0);
    const ediFile = jsonFile + '.edi';
    writeFileSync(ediFile, write.stdout);
    const again = await run('parse', ediFile);
    expect(again.code, again.stderr).toBe(0);
    const back = parseLines(again.stdout);
    expect(back).toHaveLength(lines.length);

    // the SE written is the computed one: counted on the written text, SE02 the ST02 written
    const sets = writtenSets(write.stdout);
    expect(sets).toHaveLength(lines.length);
    for (const w of sets) expect([w.se01, w.se02]).toEqual([String(w.count), w.st02]);

    // one note per set whose own SE disagreed, naming the values written
    const noted = new Set<number>();
    for (const n of write.stderr.split('\n').filter(Boolean)) {
      const m = noteLine.exec(n);
      expect(m, n).not.toBeNull();
      const i = Number(m![1]);
      expect(noted.has(i), n).toBe(false);
      noted.add(i);
      const w = sets[i]!;
      expect([JSON.parse(m![2]!), m![4], JSON.parse(m![5]!)]).toEqual([w.st02, String(w.count), w.st02]);
    }
    lines.forEach((l, i) => {
      const original = splitSe(l.document);
      expect(original.se, `set ${i}: one SE in the document`).toHaveLength(1);
      // noted exactly when the reader found a wrong SE01 (AK5 4) or SE02 (AK5 3) in the original
      const wrongSe = l.warnings.some((w) => w.detail?.['ak502'] === '3' || w.detail?.['ak502'] === '4');
      expect(noted.has(i), `set ${i}: noted when its SE was found wrong`).toBe(wrongSe);
      if (noted.has(i)) {
        const written = splitSe(back[i]!.document);
        expect(written.rest).toEqual(original.rest);
        expect(written.se).not.toEqual(original.se);
      } else {
        expect(back[i]!.document).toEqual(l.document);
      }
    });
    if (noted.size > 0) recomputed.add(rel.replace(/\\/g, '/'));
  });

  it('noted a recomputed SE on files whose SE disagreed, not on every file', () => {
    expect([...recomputed].sort()).toEqual(
      expect.arrayContaining(['imsweb-x12-parser/x12_valid.txt', 'pyx12/trailer_errors.txt']),
    );
    expect(recomputed.size).toBeLessThan(all.length);
  });
});
