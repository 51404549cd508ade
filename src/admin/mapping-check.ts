/**
 * Mapping checks of `tdx config check` and `tdx config apply`: every mapping of a configuration
 * document is run, as the pipeline would run it, on
 *
 * - outbound: its source's sample;
 * - inbound: the translation of a minimal conforming document of its implementation
 *   (src/x12/impl/sample.ts), which has only what a partner must send;
 *
 * and its output is validated against the shape the mapping must produce (mapping-schema.ts:
 * the implementation's schema, or an inbound mapping's canonical shape drawn from its source).
 * Outbound output is also written as X12 and validated against the implementation, so syntax
 * notes the schema cannot express are checked; output that carries placeholder values ("TODO...")
 * or the envelope segments ST and SE (the writer makes those and assigns control numbers) is
 * reported. Every problem is a warning naming the mapping, the path and the problem: warnings
 * never stop an apply.
 */
import { createHash } from 'node:crypto';
import { isTdxError } from '../errors.ts';
import type { DocPath } from '../domain/config-document.ts';
import type { ConfigDocument, MappingDoc } from '../domain/configuration.ts';
import type { ImplementationEngine, ImplementationSpec } from '../domain/implementation-engine.ts';
import type { MappingEngine } from '../domain/mapping-engine.ts';
import { mappingOutputSchema } from '../domain/mapping-schema.ts';
import { implementationModel } from '../domain/x12-implementation-engine.ts';
import { sampleSet, translateSetJson, validateDocument } from '../x12/impl/index.ts';
import type { Finding, Implementation } from '../x12/impl/index.ts';

export interface MappingWarning {
  /** The mapping's name. */
  readonly mapping: string;
  /** The field of the document the warning is about (`mappings[i].transformation`). */
  readonly field: DocPath;
  /** What the mapping was run on, such as `the sample of source "erp-invoice"`. */
  readonly input: string;
  /**
   * Where the problem is: a JSON path of the output (`$.heading.beginning_segment_for_invoice_BIG`),
   * a place in the expression (`line 3, column 14`), an X12 place (`BIG02 (segment 2)`), or
   * `(mapping)` for the mapping as a whole.
   */
  readonly path: string;
  readonly problem: string;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** The JSON path that leads a violation ("$.a[0].b: must be ..."). */
const VIOLATION_PATH = /^\$(?:\.[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*/;

function splitViolation(v: string): { path: string; problem: string } {
  const path = VIOLATION_PATH.exec(v)?.[0] ?? '$';
  const rest = v.slice(path.length);
  return { path, problem: rest.startsWith(': ') ? rest.slice(2) : rest.trim() };
}

function findingPlace(f: Finding): string {
  if (f.level === 'segment') return `${f.segmentId} (segment ${f.position})`;
  return `${f.segmentId}${pad2(f.elementPosition)}${f.componentPosition === null ? '' : `-${pad2(f.componentPosition)}`} (segment ${f.position})`;
}

/** Strings of the output that are placeholders, with their JSON paths. */
function placeholders(value: unknown, path: string, out: { path: string; value: string }[]): void {
  if (typeof value === 'string') {
    if (/^TODO\b/.test(value)) out.push({ path, value });
  } else if (Array.isArray(value)) value.forEach((v, i) => placeholders(v, `${path}[${i}]`, out));
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) placeholders(v, /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`, out);
  }
}

/** Keys of the transaction set header and trailer at the top of a table (`transaction_set_header_ST`). */
function envelopeSegments(doc: unknown): string[] {
  const out: string[] = [];
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return out;
  for (const [table, body] of Object.entries(doc as Record<string, unknown>)) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) continue;
    for (const key of Object.keys(body)) if (/_(ST|SE)$/.test(key)) out.push(`$.${table}.${key}`);
  }
  return out;
}

function specOf(doc: ConfigDocument, name: string): ImplementationSpec | null {
  const d = (doc.implementations ?? []).find((i) => i.name === name);
  return d ? { ...d, status: d.status ?? 'draft', description: d.description ?? null } : null;
}

/** Runs and checks one mapping; the warnings it gives. */
async function checkMapping(doc: ConfigDocument, index: number, m: MappingDoc, engine: MappingEngine, implementations: ImplementationEngine): Promise<MappingWarning[]> {
  const field: DocPath = ['mappings', index, 'transformation'];
  const spec = specOf(doc, m.implementation);
  let impl: Implementation;
  try {
    if (spec === null) return [];
    impl = implementationModel(spec);
  } catch {
    // an implementation that cannot be built is reported by the document checks
    return [];
  }
  const source = m.source === undefined ? null : ((doc.sources ?? []).find((s) => s.name === m.source) ?? null);
  let input: string;
  let inputJson: string;
  if (m.direction === 'outbound') {
    if (source === null) {
      return [{ mapping: m.name, field, input: 'nothing', path: '(mapping)', problem: 'has no source, so there is no sample to run it on: it was not checked' }];
    }
    input = `the sample of source "${source.name}"`;
    inputJson = JSON.stringify(source.sample ?? null);
  } else {
    input = `the translation of a minimal ${impl.transactionSet.identifier} of implementation "${m.implementation}"`;
    inputJson = translateSetJson(sampleSet(impl), impl).json;
  }
  const warn = (path: string, problem: string): MappingWarning => ({ mapping: m.name, field, input, path, problem });
  const schema = mappingOutputSchema(implementations, { direction: m.direction, implementation: spec, source });
  const cacheKey = `check:${createHash('sha256').update(JSON.stringify(schema)).digest('hex')}`;
  const result = await engine.run(m.transformation, inputJson, { validateWith: { cacheKey, schema } });
  if (!result.ok) {
    const where = result.line === undefined ? '(expression)' : `line ${result.line}, column ${result.column ?? 1}`;
    const problem = result.line === undefined ? result.message : result.message.replace(/^line \d+, column \d+: /, '');
    return [warn(where, `the mapping fails: ${problem}`)];
  }
  const warnings = (result.violations ?? []).map((v) => {
    const s = splitViolation(v);
    return warn(s.path, s.problem);
  });
  const output: unknown = JSON.parse(result.outputJson);
  const found: { path: string; value: string }[] = [];
  placeholders(output, '$', found);
  for (const p of found) warnings.push(warn(p.path, `is a placeholder value left in the output (${JSON.stringify(p.value)})`));
  if (m.direction === 'outbound') {
    for (const p of envelopeSegments(output)) warnings.push(warn(p, 'the writer makes ST and SE and assigns the control numbers: leave them out of the output'));
    try {
      for (const f of validateDocument(output, impl)) warnings.push(warn(findingPlace(f), `${f.message} (written as X12 and validated against "${m.implementation}")`));
    } catch (err) {
      if (!isTdxError(err) || err.code !== 'x12_document_invalid') throw err;
      const path = typeof err.details['path'] === 'string' ? err.details['path'] : '$';
      const text = err.message.startsWith(`${path}: `) ? err.message.slice(path.length + 2) : err.message;
      warnings.push(warn(path, `cannot be written as X12: ${text}`));
    }
  }
  return warnings;
}

/** Runs every mapping of a checked document (see the module comment); warnings in document order. */
export async function checkMappings(doc: ConfigDocument, engine: MappingEngine, implementations: ImplementationEngine): Promise<MappingWarning[]> {
  const all = await Promise.all((doc.mappings ?? []).map((m, i) => checkMapping(doc, i, m, engine, implementations)));
  return all.flat();
}

/** One line of a warning, for the command line. */
export function describeMappingWarning(w: MappingWarning): string {
  return `mapping "${w.mapping}" on ${w.input}: ${w.path}: ${w.problem}`;
}
