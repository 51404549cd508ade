/**
 * Reads a configuration file (YAML or JSON; JSON is read by the YAML parser too, so both keep
 * line numbers), validates it against the published JSON Schema
 * (schemas/config/organization-config.schema.json), then runs the document checks and a JSONata
 * syntax check of every transformation. AS2 key and certificate paths are read here, relative to
 * the file. Every problem names the file, line and field; any problem rejects the whole file
 * before anything is written.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import jsonata from 'jsonata';
import { TdxError } from '../errors.ts';
import type { ConfigDocument } from '../domain/configuration.ts';
import { checkDocument, type DocPath } from '../domain/config-document.ts';
import type { ImplementationEngine } from '../domain/implementation-engine.ts';
import { readKeyFiles, substituteEnv, type Env } from './config-substitution.ts';

export const CONFIG_SCHEMA_PATH = fileURLToPath(new URL('../../schemas/config/organization-config.schema.json', import.meta.url));

export interface FileProblem {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** Dotted path of the field, such as `partners[0].webhooks.inbound`. */
  readonly field: string;
  readonly message: string;
}

let validator: ValidateFunction | undefined;
function schemaValidator(): ValidateFunction {
  if (!validator) {
    const schema = JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
    validator = new Ajv2020({ allErrors: true, strict: true }).compile(schema);
  }
  return validator;
}

export function fieldName(path: DocPath): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s === '' ? p : `.${p}`;
  return s === '' ? '(document)' : s;
}

function pointerToPath(pointer: string): DocPath {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((t) => (/^\d+$/.test(t) ? Number(t) : t));
}

function describeAjv(e: ErrorObject): { path: DocPath; message: string } {
  const path = pointerToPath(e.instancePath);
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return { path: [...path, String(params['additionalProperty'])], message: 'unknown field' };
  if (e.keyword === 'required') return { path: [...path, String(params['missingProperty'])], message: 'required field is missing' };
  if (e.keyword === 'enum') return { path, message: `must be one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
  return { path, message: e.message ?? e.keyword };
}

/** Finds the closest line of a path in the parsed document (its nearest existing ancestor). */
function locate(doc: Document, lines: LineCounter, path: DocPath): { line: number; column: number } {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) {
      // a key's value: point at the key's line when it is a mapping pair
      const pos = lines.linePos(node.range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return { line: 1, column: 1 };
}

/** Where a file's `${VAR}` references and `privateKeyFile` paths are resolved (config-substitution.ts). */
export interface ConfigFileOptions {
  /** Variables for `${NAME}` references; none when absent. */
  readonly env?: Env;
  /** Folder `privateKeyFile` paths are relative to. @default the folder of `file` */
  readonly baseDir?: string;
}

/** Parses and checks a configuration file's text; throws `config_file_invalid` listing every problem. */
export function parseConfigText(file: string, text: string, engine: ImplementationEngine, options: ConfigFileOptions = {}): ConfigDocument {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems: FileProblem[] = [];
  for (const e of doc.errors) {
    const pos = lines.linePos(e.pos[0]);
    problems.push({ file, line: pos.line, column: pos.col, field: '(syntax)', message: e.message.split('\n')[0] ?? e.message });
  }
  const add = (path: DocPath, message: string): void => {
    const at = locate(doc, lines, path);
    problems.push({ file, line: at.line, column: at.column, field: fieldName(path), message });
  };
  if (problems.length === 0) substituteEnv(doc, options.env ?? {}, add);
  if (problems.length === 0) {
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    const validate = schemaValidator();
    if (!validate(value)) {
      const seen = new Set<string>();
      for (const e of validate.errors ?? []) {
        const d = describeAjv(e);
        const k = `${fieldName(d.path)}|${d.message}`;
        if (!seen.has(k)) {
          seen.add(k);
          add(d.path, d.message);
        }
      }
    } else {
      const cfg = value as ConfigDocument;
      readKeyFiles(cfg, options.baseDir ?? dirname(file), add);
      resolveAs2Files(file, cfg, add);
      for (const p of checkDocument(cfg, engine)) add(p.path, p.message);
      (cfg.mappings ?? []).forEach((m, i) => {
        try {
          jsonata(m.transformation);
        } catch (err) {
          const e = err as { message?: string; position?: number };
          add(['mappings', i, 'transformation'], `not a valid JSONata expression: ${e.message ?? String(err)}${e.position === undefined ? '' : ` (at character ${e.position})`}`);
        }
      });
    }
    if (problems.length === 0) return value as ConfigDocument;
  }
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  const listing = problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.field}: ${p.message}`).join('\n');
  throw new TdxError('config_file_invalid', `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was applied.\n${listing}`, {
    details: { file, problems },
  });
}

/** Line and column of a field of a configuration file's text (its nearest existing ancestor's). */
export function locateField(text: string, path: DocPath): { line: number; column: number } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  return locate(doc, lines, path);
}

/** `as2` file fields and the connection field each fills. */
const AS2_FILES = [
  ['privateKeyFile', 'privateKey'],
  ['certificateFile', 'certificate'],
  ['partnerCertificateFile', 'partnerCertificate'],
] as const;

/**
 * Replaces the key and certificate paths of each `as2` block (relative to the configuration
 * file) by the PEM text they hold, in the connection's secret fields; the paths themselves are
 * not kept. A path that cannot be read, a file without PEM armour, or a value given both inline
 * and by path is a problem of that field.
 */
function resolveAs2Files(file: string, cfg: ConfigDocument, add: (path: DocPath, message: string) => void): void {
  const base = dirname(resolve(file));
  (cfg.connections ?? []).forEach((c, i) => {
    const block = c.as2 as unknown as Record<string, unknown> | undefined;
    if (!block) return;
    for (const [pathField, secretField] of AS2_FILES) {
      const rel = block[pathField];
      delete block[pathField];
      if (typeof rel !== 'string') continue;
      const at: DocPath = ['connections', i, 'as2', pathField];
      if (c[secretField] !== undefined) {
        add(at, `${secretField} is also given inline; give it once`);
        continue;
      }
      const full = isAbsolute(rel) ? rel : resolve(base, rel);
      let text: string;
      try {
        text = readFileSync(full, 'utf8');
      } catch (err) {
        add(at, `cannot read ${full}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        continue;
      }
      if (!/-----BEGIN [A-Z0-9 ]+-----/.test(text)) {
        add(at, `${full} is not a PEM file (no -----BEGIN ...----- line)`);
        continue;
      }
      c[secretField] = text;
    }
  });
}

/** Reads and checks a configuration file. */
export function readConfigFile(file: string, engine: ImplementationEngine, options: ConfigFileOptions = {}): ConfigDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TdxError('config_file_invalid', `${file}: cannot be read (${(err as Error).message}); nothing was applied.`, { details: { file }, cause: err });
  }
  return parseConfigText(file, text, engine, options);
}
