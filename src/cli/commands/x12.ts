/**
 * `tdx x12 parse|validate|ack|write FILE`: the X12 engine on files (docs/x12.md).
 *
 * parse     one JSON object per transaction set per line (JSON Lines)
 * validate  one JSON finding per line
 * ack       the 997 or 999 for each group, as X12 text (one response interchange per interchange)
 * write     EDI from a JSON file of envelope settings and translations
 *
 * Exit 0 when the file was read (even with warnings or findings); 2 with one line on stderr
 * when nothing could be read. A reader that closes stdout early (`| head -1`) ends the command
 * quietly with exit 0 (see `Output`).
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isTdxError, TdxError } from '../../errors.ts';
import { acknowledgeInterchange } from '../../x12/ack.ts';
import { structuralWarning, type StructuralFinding, type Warning } from '../../x12/findings.ts';
import { baseDefinitionNote, documentToParts, hasBaseDefinition, referenceOf as referenceOfSet, resolveImplementation, segmentNotes, translateSetInto, validateSet } from '../../x12/impl/index.ts';
import { JsonOut } from '../../x12/json-out.ts';
import { readInterchanges, allFindings } from '../../x12/interchange.ts';
import { readX12Stream } from '../../x12/reader.ts';
import type { TransactionSetRead } from '../../x12/types.ts';
import { addChars, chooseDelimiters, setTrailer, versionFor, writeInterchange, type EnvelopeSettings, type GroupToWrite, type SegmentToWrite, type SetToWrite } from '../../x12/writer.ts';
import type { Delimiters } from '../../x12/types.ts';
import type { Implementation } from '../../x12/impl/index.ts';
import type { CliCommand } from '../tdx.ts';

const usage = `usage: tdx x12 <parse|validate|ack|write> FILE [options]
  parse FILE                  one JSON object per transaction set per line
  validate FILE               one JSON finding per line
  ack FILE [--control-number N] [--group-control-number N] [--kind 997|999] [--accept-with-errors]
                              the 997 or 999 for each group, as X12 text
  write FILE.json             EDI from envelope settings and translations (format: docs/x12.md)
`;

/**
 * What a command writes to stdout. When the reader of stdout goes away (EPIPE: `tdx x12 parse F |
 * head -1`), the command stops quietly: `stopped` turns true, loops end, later writes are dropped
 * and the exit code stays 0. Without an `error` listener the EPIPE would crash the process with a
 * stack trace. Any other stdout error is thrown by the next `write` or by `finish`.
 */
class Output {
  /** The reader has gone: nothing more is written. */
  stopped = false;
  private failure: Error | null = null;

  constructor(private readonly stream: NodeJS.WritableStream) {
    // kept for the life of the stream: an EPIPE can arrive after the command has returned
    stream.on('error', (err: NodeJS.ErrnoException) => this.failed(err));
  }

  private failed(err: NodeJS.ErrnoException): void {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') this.stopped = true;
    else this.failure ??= err;
  }

  write(text: string | Uint8Array): void {
    if (this.failure !== null) throw this.failure;
    if (!this.stopped) this.stream.write(text);
  }

  /** Waits until what was written is handed on; throws a stdout failure other than a closed reader. */
  async finish(): Promise<void> {
    if (!this.stopped && this.failure === null) {
      await new Promise<void>((resolve) => {
        this.stream.write('', (err) => {
          if (err) this.failed(err);
          resolve();
        });
      });
    }
    if (this.failure !== null) throw this.failure;
  }
}

/** stdout guarded by `Output`, stderr as given. */
interface X12Io {
  readonly out: Output;
  readonly stderr: NodeJS.WritableStream;
}

/**
 * The members of a parse line before its document, as JSON text: the opening brace through
 * `"document":`. The warnings (which the translation adds to) follow the document, so the document
 * is written straight into the output by the engine.
 */
function lineHead(set: TransactionSetRead): string {
  const head = JSON.stringify({
    transactionSetIdentifier: set.transactionSetIdentifier,
    transactionSetControlNumber: set.controlNumber,
    groupControlNumber: set.group.controlNumber,
    interchangeControlNumber: set.interchange.controlNumber,
    senderQualifier: set.interchange.sender.qualifier,
    senderExtid: set.interchange.sender.id,
    receiverQualifier: set.interchange.receiver.qualifier,
    receiverExtid: set.interchange.receiver.id,
    usageIndicator: set.interchange.usageIndicator,
    functionalIdentifierCode: set.group.functionalId,
    interchangeVersion: set.interchange.version,
    release: set.group.release,
    reference: referenceOfSet(set),
  });
  return `${head.slice(0, -1)},"document":`;
}

/** The end of a parse line: its warnings, the closing brace and the line break. */
function lineTail(warnings: readonly Warning[]): string {
  return `,"warnings":${JSON.stringify(warnings.map((w) => ({ code: w.code, message: w.message, detail: w.detail ?? null })))}}\n`;
}

function warningsOf(findings: readonly StructuralFinding[]): Warning[] {
  const out: Warning[] = [];
  for (const f of findings) {
    const w = structuralWarning(f);
    if (w) out.push(w);
  }
  return out;
}

/**
 * Streams the file. A group's lines are held until its GE, so the group's warnings ride on its
 * first set and lines stay in input order. Lines are written as bytes: each translation is
 * appended to the group's buffer as the engine writes it (translateSetInto), no string per
 * document. A set whose set and release have no base definition gets one `note:` line on stderr
 * per set identifier and release (validated structurally only, generic translation).
 */
async function parse(file: string, io: X12Io): Promise<number> {
  /** The group's first line, held apart: its warnings get the group's at the GE. */
  const firstLine = new JsonOut();
  let firstWarnings: Warning[] | null = null;
  const rest = new JsonOut();
  /** The group's further lines, in chunks of a few megabytes (no buffer growth copies). */
  const held: Buffer[] = [];
  const noted = new Set<string>();
  const flush = (groupWarnings: Warning[]): void => {
    if (firstWarnings !== null) {
      firstLine.text(lineTail([...firstWarnings, ...groupWarnings]));
      io.out.write(firstLine.take());
    }
    if (rest.n > 0) held.push(rest.take());
    for (const chunk of held) io.out.write(chunk);
    held.length = 0;
    firstWarnings = null;
  };
  for await (const e of readX12Stream(createReadStream(file, { highWaterMark: 1 << 20 }))) {
    if (io.out.stopped) break; // the reader of stdout has gone: stop reading (closes the file)
    if (e.type === 'set') {
      const set = e.set;
      // parse translates: a set without any base definition in its release gets the generic shape
      const note = hasBaseDefinition(set.transactionSetIdentifier, set.group.release) ? null : baseDefinitionNote(set.transactionSetIdentifier, set.group.release);
      if (note !== null) {
        const key = `${set.transactionSetIdentifier}/${set.group.release}`;
        if (!noted.has(key)) {
          noted.add(key);
          io.stderr.write(`note: ${note}\n`);
        }
      }
      const warnings = warningsOf(e.findings);
      const out = firstWarnings === null ? firstLine : rest;
      out.text(lineHead(set));
      warnings.push(...translateSetInto(set, out));
      if (firstWarnings === null) firstWarnings = warnings;
      else {
        rest.text(lineTail(warnings));
        if (rest.n > 1 << 22) held.push(rest.take());
      }
    } else if (e.type === 'group_end') {
      flush(warningsOf(e.findings));
    } else if (e.type === 'interchange_end' || e.type === 'note') {
      const findings = e.type === 'note' ? [e.finding] : e.findings;
      for (const f of findings) io.stderr.write(`note: ${f.kind}${f.code ? ` (TA1 ${f.code})` : ''}: ${f.message}\n`);
    }
  }
  flush([]);
  return 0;
}

async function validate(file: string, io: X12Io): Promise<number> {
  const read = readInterchanges(await readFile(file));
  for (const ic of read.interchanges) {
    if (io.out.stopped) return 0;
    const where = (f: StructuralFinding, group?: string, set?: string) =>
      JSON.stringify({ ...f, interchangeControlNumber: ic.header.controlNumber, groupControlNumber: group ?? null, transactionSetControlNumber: set ?? null });
    for (const f of ic.findings) io.out.write(where(f) + '\n');
    for (const g of ic.groups) {
      for (const f of g.findings) io.out.write(where(f, g.header.controlNumber) + '\n');
      for (const s of g.sets) {
        for (const f of s.findings) io.out.write(where(f, g.header.controlNumber, s.set.controlNumber) + '\n');
        for (const f of validateSet(s.set)) {
          io.out.write(JSON.stringify({ scope: 'segment', ...f, interchangeControlNumber: ic.header.controlNumber, groupControlNumber: g.header.controlNumber, transactionSetControlNumber: s.set.controlNumber }) + '\n');
        }
      }
    }
  }
  for (const f of read.notes) io.out.write(JSON.stringify(f) + '\n');
  void allFindings;
  return 0;
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined) throw new TdxError('missing_parameter', `Option ${name} needs a value.`, { details: { parameter: name } });
  return v;
}

function intOption(args: string[], name: string, fallback: number): number {
  const v = option(args, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 999_999_999) throw new TdxError('invalid_parameter', `Option ${name} must be an integer from 1 to 999999999.`, { details: { parameter: name } });
  return n;
}

async function ack(file: string, args: string[], io: X12Io): Promise<number> {
  const read = readInterchanges(await readFile(file));
  let control = intOption(args, '--control-number', 1);
  let groupControl = intOption(args, '--group-control-number', 1);
  const kind = option(args, '--kind');
  if (kind !== undefined && kind !== '997' && kind !== '999') throw new TdxError('invalid_parameter', 'Option --kind must be 997 or 999.', { details: { parameter: '--kind' } });
  const date = new Date();
  for (const ic of read.interchanges) {
    if (io.out.stopped) return 0;
    io.out.write(
      acknowledgeInterchange(ic, { interchangeControlNumber: control++, groupControlNumber: groupControl, date, lineBreak: true }, {
        ...(kind ? { kind } : {}),
        acceptWithErrors: args.includes('--accept-with-errors'),
        validate: (set) => ({
          segmentErrors: segmentNotes(validateSet(set)).map((n) => ({
            segmentId: n.segmentId,
            position: n.position,
            ...(n.loopId ? { loopId: n.loopId } : {}),
            code: n.code,
            elements: n.elements.map((e) => ({
              position: e.elementPosition,
              ...(e.componentPosition !== null ? { component: e.componentPosition } : {}),
              ...(e.repetitionPosition !== null ? { repetition: e.repetitionPosition } : {}),
              reference: e.elementReference,
              code: e.code,
              ...(e.value !== null ? { value: e.value } : {}),
            })),
          })),
        }),
      }),
    );
    groupControl += ic.groups.length;
  }
  return 0;
}

interface WriteSetInput {
  transactionSetIdentifier: string;
  controlNumber?: string | number;
  transactionSetControlNumber?: string;
  release: string;
  /** GS01; `functionalId` is the older name. */
  functionalIdentifierCode?: string;
  functionalId?: string;
  implementationReference?: string;
  document: unknown;
}

interface WriteInput {
  envelope: Omit<EnvelopeSettings, 'date'> & { date?: string; groupControlNumber?: number };
  transactionSets: WriteSetInput[];
}

/** Every character of the strings (and numbers) in a JSON value. */
function collectChars(v: unknown, into: Set<string>): void {
  if (typeof v === 'string') addChars(into, v);
  else if (typeof v === 'number') addChars(into, String(v));
  else if (Array.isArray(v)) for (const x of v) collectChars(x, into);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) collectChars(x, into);
}

/** The set's documented implementation (base one of its set and release), or null for a generic document. */
function implementationOf(t: WriteSetInput): Implementation | null {
  if (Array.isArray((t.document as { segments?: unknown } | null)?.segments)) return null;
  const impl = resolveImplementation(t.transactionSetIdentifier, t.release);
  if (impl === null) throw new TdxError('x12_document_invalid', `$: transaction set ${t.transactionSetIdentifier} release ${t.release} has no implementation; give the generic {"segments": [...]} form.`, { details: { path: '$' } });
  return impl;
}

/**
 * One set to write. ST is the document's own when it carries one: ST02 as written (spaces kept)
 * unless `controlNumber` names another number, ST03 on as given. SE is always computed (SE01 the
 * segment count, SE02 the ST02 written); when the document's own SE says otherwise, a note names
 * the set and both values. A renumbered set's SE02 is checked against the document's own ST02, as
 * the new number is asked for.
 */
function setToWrite(t: WriteSetInput, i: number, d: Delimiters, notes: string[]): SetToWrite {
  const parts = documentToParts(t.document, implementationOf(t), { delimiters: d });
  const body: SegmentToWrite[] = parts.body.map((s) => ({ id: s.id, elements: s.elements, joined: true }));
  const given = t.controlNumber ?? t.transactionSetControlNumber;
  const own = parts.st?.elements[1];
  const renumbered = given !== undefined && (own === undefined || String(given).trim() !== own.trim());
  const control = renumbered ? given : own ?? i + 1;
  const written = typeof control === 'number' ? String(control).padStart(4, '0') : control;
  if (parts.se !== null) {
    const se = parts.se.elements;
    const [count, se02] = setTrailer(body.length, written);
    const expected02 = renumbered ? (own ?? '') : se02;
    if (se[0] !== count || (se[1] ?? '') !== expected02 || se.slice(2).some((e) => e !== '')) {
      const q = (v: string | undefined): string => JSON.stringify(v ?? '');
      const givenText = se.map((e, k) => `SE${String(k + 1).padStart(2, '0')} ${q(e)}`).join(', ');
      notes.push(`transactionSets[${i}] (${t.transactionSetIdentifier}, ST02 ${q(written)}): the document's SE (${givenText}) disagrees; written as computed: SE01 ${q(count)}, SE02 ${q(se02)}`);
    }
  }
  return {
    transactionSetIdentifier: t.transactionSetIdentifier,
    controlNumber: control,
    segments: body,
    ...(parts.st !== null && parts.st.elements.length > 2 ? { headerElements: parts.st.elements.slice(2) } : {}),
    ...(t.implementationReference ? { implementationReference: t.implementationReference } : {}),
  };
}

async function write(file: string, io: X12Io): Promise<number> {
  let input: WriteInput;
  try {
    input = JSON.parse(await readFile(file, 'utf8')) as WriteInput;
  } catch (err) {
    throw new TdxError('invalid_body', `${file} is not JSON: ${(err as Error).message}`, { details: { file } });
  }
  const env = input?.envelope;
  if (!env || typeof env !== 'object') throw new TdxError('invalid_body', `${file}: "envelope" is required.`, { details: { field: 'envelope' } });
  for (const f of ['sender', 'receiver'] as const) {
    if (typeof env[f]?.qualifier !== 'string' || typeof env[f]?.id !== 'string') throw new TdxError('invalid_body', `${file}: envelope.${f} must be {qualifier, id}.`, { details: { field: `envelope.${f}` } });
  }
  if (!Number.isInteger(env.interchangeControlNumber)) throw new TdxError('invalid_body', `${file}: envelope.interchangeControlNumber must be an integer.`, { details: { field: 'envelope.interchangeControlNumber' } });
  if (!Array.isArray(input.transactionSets) || input.transactionSets.length === 0) throw new TdxError('invalid_body', `${file}: "transactionSets" must be a non-empty array.`, { details: { field: 'transactionSets' } });
  const date = env.date === undefined ? new Date() : new Date(env.date);
  if (Number.isNaN(date.getTime())) throw new TdxError('invalid_body', `${file}: envelope.date is not a date.`, { details: { field: 'envelope.date' } });
  input.transactionSets.forEach((t, i) => {
    if (typeof t?.transactionSetIdentifier !== 'string' || typeof t.release !== 'string') {
      throw new TdxError('invalid_body', `${file}: transactionSets[${i}] needs transactionSetIdentifier and release.`, { details: { field: `transactionSets[${i}]` } });
    }
  });
  const version = versionFor(env, input.transactionSets);
  if (!/^[0-9A-Za-z]{5}$/.test(version)) throw new TdxError('invalid_body', `${file}: envelope.version (ISA12) "${version}" must be five letters or digits.`, { details: { field: 'envelope.version' } });
  // delimiters: those the caller fixed, the others chosen among characters no value uses
  const used = new Set<string>();
  collectChars([env.sender, env.receiver, env.authorization, env.security, input.transactionSets.map((t) => [t.document, t.controlNumber, t.transactionSetControlNumber, t.release, t.implementationReference])], used);
  const fixed = env.delimiters;
  const delimiters = chooseDelimiters(used, version, fixed ? { fixed } : {});
  // consecutive sets with the same functional id, identifier and release share a group
  const groups: (GroupToWrite & { sets: SetToWrite[] })[] = [];
  let groupControl = env.groupControlNumber ?? env.interchangeControlNumber;
  const notes: string[] = [];
  input.transactionSets.forEach((t, i) => {
    const set = setToWrite(t, i, delimiters, notes);
    const functionalId = t.functionalIdentifierCode ?? t.functionalId;
    const last = groups[groups.length - 1];
    if (last && last.release === t.release && last.functionalId === functionalId && last.sets[0]!.transactionSetIdentifier === t.transactionSetIdentifier) last.sets.push(set);
    else groups.push({ controlNumber: groupControl++, release: t.release, sets: [set], ...(functionalId ? { functionalId } : {}) });
  });
  io.out.write(writeInterchange({ ...env, version, delimiters, date, lineBreak: env.lineBreak ?? true }, groups));
  for (const n of notes) io.stderr.write(`note: ${n}\n`);
  return 0;
}

export const x12Command: CliCommand = async (args, cli) => {
  const io: X12Io = { out: new Output(cli.stdout), stderr: cli.stderr };
  const code = await run(args, io);
  await io.out.finish();
  return code;
};

async function run(args: string[], io: X12Io): Promise<number> {
  const [sub, file, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.out.write(usage);
    return sub === undefined ? 2 : 0;
  }
  if (file === undefined) {
    io.stderr.write(`tdx x12 ${sub}: a FILE is required\n${usage}`);
    return 2;
  }
  try {
    switch (sub) {
      case 'parse':
        return await parse(file, io);
      case 'validate':
        return await validate(file, io);
      case 'ack':
        return await ack(file, rest, io);
      case 'write':
        return await write(file, io);
      default:
        io.stderr.write(`tdx x12: unknown subcommand "${sub}"\n${usage}`);
        return 2;
    }
  } catch (err) {
    if (isTdxError(err)) {
      io.stderr.write(`tdx x12 ${sub}: ${file}: ${err.code}: ${err.message}\n`);
      return 2;
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
      io.stderr.write(`tdx x12 ${sub}: ${file}: cannot be read (${code})\n`);
      return 2;
    }
    throw err;
  }
}
