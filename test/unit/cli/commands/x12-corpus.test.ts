/**
 * The four `tdx x12` commands over every file of the shared corpus (../shared/corpus/x12,
 * beside the repository; skipped when absent): none crashes; a file that cannot be read gives
 * exit 2 and one line on stderr from every command; for every readable file, what `parse`
 * prints (with its GS01 and ISA12) is accepted by `write`, and the EDI it writes parses back to
 * the same documents; a file SOURCES.md marks malformed in a way that cannot be written back
 * gets the one refusal listed below.
 */
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { x12Command } from '../../../../src/cli/commands/x12.ts';

const corpus = fileURLToPath(new URL('../../../../../shared/corpus/x12/', import.meta.url));
const present = existsSync(join(corpus, 'SOURCES.md'));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : name === 'SOURCES.md' ? [] : [p];
  });
}

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (parts: string[]) =>
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        parts.push(chunk.toString());
        cb();
      },
    });
  const code = await x12Command(args, { stdout: sink(out), stderr: sink(err) });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

interface ParsedLine {
  transactionSetIdentifier: string;
  transactionSetControlNumber: string;
  functionalIdentifierCode: string;
  interchangeVersion: string;
  release: string;
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
  'bots-plugins/850-004010-08.x12': /x12_document_invalid: \$\.detail\.baseline_item_data_PO1_loop\[0\]\.product_item_description_PID_loop\[0\]\.unrecognized_segments\[0\]\.id: "DT\\nM" is not a segment id/,
  'bots-plugins/850-004010.16.x12': /x12_document_invalid: \$\.detail\.baseline_item_data_PO1_loop\[0\]\.product_item_description_PID_loop\[0\]\.unrecognized_segments\[0\]\.id: "DT\\r\\nM" is not a segment id/,
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
    expect(parseLines(again.stdout).map((l) => l.document)).toEqual(lines.map((l) => l.document));
  });
});
