/**
 * The portable export of an implementation: one JSON document keyed by table names, loop ids,
 * segment ids, positions and element reference numbers, with no database ids, and its import
 * back (which checks the document's shape and names the path of anything wrong).
 */
import { TdxError } from '../../errors.ts';
import { dataTypes } from './model.ts';
import type { DataType, ElementDef, Implementation, LoopNode, SegmentNode, StructureNode, TableDef, TableName, Usage } from './model.ts';
import { tableNames } from './model.ts';

export const EXPORT_FORMAT = 'tdx.x12.implementation';
export const EXPORT_FORMAT_VERSION = 1;

const strip = <T extends object>(o: T): T => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
};

function exportElement(e: ElementDef): Record<string, unknown> {
  return strip({
    position: e.position,
    reference: e.reference,
    name: e.name,
    requirement: e.requirement,
    usage: e.usage,
    type: e.type,
    minLength: e.minLength,
    maxLength: e.maxLength,
    repeat: e.repeat,
    codes: e.codes ? [...e.codes] : undefined,
    notes: e.notes,
    components: e.components ? e.components.map(exportElement) : undefined,
  });
}

function exportNode(n: StructureNode): Record<string, unknown> {
  if (n.kind === 'loop') {
    return strip({ loop: n.id, position: n.position, requirement: n.requirement, usage: n.usage, repeat: n.repeat, notes: n.notes, children: n.children.map(exportNode) });
  }
  return strip({
    segment: n.id,
    name: n.name,
    position: n.position,
    requirement: n.requirement,
    usage: n.usage,
    maxUse: n.maxUse,
    syntax: n.syntax ? [...n.syntax] : undefined,
    notes: n.notes,
    elements: n.elements.map(exportElement),
  });
}

/** The whole implementation as one portable JSON document. */
export function exportImplementation(impl: Implementation): Record<string, unknown> {
  return strip({
    format: EXPORT_FORMAT,
    formatVersion: EXPORT_FORMAT_VERSION,
    name: impl.name,
    version: impl.version,
    status: impl.status,
    description: impl.description,
    transactionSet: { identifier: impl.transactionSet.identifier, release: impl.transactionSet.release },
    sourceImplementation: impl.sourceImplementation ? { name: impl.sourceImplementation.name } : undefined,
    tables: impl.tables.map((t) => ({ table: t.name, children: t.children.map(exportNode) })),
  });
}

// --- import -------------------------------------------------------------------------------

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function bad(path: string, message: string): never {
  throw new TdxError('x12_document_invalid', `Implementation export ${path}: ${message}`, { details: { path } });
}

function str(o: Obj, k: string, path: string): string {
  const v = o[k];
  if (typeof v !== 'string') bad(`${path}.${k}`, 'must be a string');
  return v;
}
function int(o: Obj, k: string, path: string, min = 0): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) bad(`${path}.${k}`, `must be an integer from ${min}`);
  return v;
}
function maxOf(o: Obj, k: string, path: string): number | null {
  return o[k] === null ? null : int(o, k, path, 1);
}
function oneOf<T extends string>(o: Obj, k: string, path: string, allowed: readonly T[]): T {
  const v = o[k];
  if (typeof v !== 'string' || !allowed.includes(v as T)) bad(`${path}.${k}`, `must be one of ${allowed.join(', ')}`);
  return v as T;
}
function optStr(o: Obj, k: string, path: string): string | undefined {
  return o[k] === undefined ? undefined : str(o, k, path);
}
function strList(o: Obj, k: string, path: string): string[] | undefined {
  const v = o[k];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) bad(`${path}.${k}`, 'must be an array of strings');
  return v as string[];
}
function list(o: Obj, k: string, path: string): unknown[] {
  const v = o[k];
  if (!Array.isArray(v)) bad(`${path}.${k}`, 'must be an array');
  return v;
}

const usages: readonly Usage[] = ['must_use', 'used', 'not_used'];

function importElement(v: unknown, path: string): ElementDef {
  if (!isObj(v)) bad(path, 'must be an object');
  const type = oneOf<DataType | 'composite'>(v, 'type', path, [...dataTypes, 'composite']);
  const components = v['components'] === undefined ? undefined : list(v, 'components', path).map((c, i) => importElement(c, `${path}.components[${i}]`));
  if (type === 'composite' && !components) bad(`${path}.components`, 'a composite needs components');
  return strip({
    position: int(v, 'position', path, 1),
    reference: str(v, 'reference', path),
    name: str(v, 'name', path),
    requirement: oneOf(v, 'requirement', path, ['M', 'O', 'X'] as const),
    usage: oneOf(v, 'usage', path, usages),
    type,
    minLength: int(v, 'minLength', path),
    maxLength: int(v, 'maxLength', path),
    repeat: int(v, 'repeat', path, 1),
    codes: strList(v, 'codes', path),
    notes: optStr(v, 'notes', path),
    components,
  });
}

function importNode(v: unknown, path: string): StructureNode {
  if (!isObj(v)) bad(path, 'must be an object');
  if (typeof v['loop'] === 'string') {
    const children = list(v, 'children', path).map((c, i) => importNode(c, `${path}.children[${i}]`));
    if (children[0]?.kind !== 'segment') bad(`${path}.children`, 'a loop begins with a segment');
    const loop: LoopNode = strip({
      kind: 'loop' as const,
      id: v['loop'],
      position: str(v, 'position', path),
      requirement: oneOf(v, 'requirement', path, ['M', 'O'] as const),
      usage: oneOf(v, 'usage', path, usages),
      repeat: maxOf(v, 'repeat', path),
      children,
      notes: optStr(v, 'notes', path),
    });
    return loop;
  }
  const seg: SegmentNode = strip({
    kind: 'segment' as const,
    id: str(v, 'segment', path),
    name: str(v, 'name', path),
    position: str(v, 'position', path),
    requirement: oneOf(v, 'requirement', path, ['M', 'O'] as const),
    usage: oneOf(v, 'usage', path, usages),
    maxUse: maxOf(v, 'maxUse', path),
    elements: list(v, 'elements', path).map((e, i) => importElement(e, `${path}.elements[${i}]`)),
    syntax: strList(v, 'syntax', path),
    notes: optStr(v, 'notes', path),
  });
  return seg;
}

export interface ImportOptions {
  /** Id of the imported implementation. */
  readonly id: string;
  /** Where it was copied from (ids are not part of the export). @default null */
  readonly sourceImplementation?: { readonly id: string; readonly name: string } | null;
}

/** Reads a portable export back into an implementation. */
export function importImplementation(json: unknown, options: ImportOptions): Implementation {
  if (!isObj(json)) bad('$', 'must be an object');
  if (json['format'] !== EXPORT_FORMAT) bad('$.format', `must be "${EXPORT_FORMAT}"`);
  if (json['formatVersion'] !== EXPORT_FORMAT_VERSION) bad('$.formatVersion', `must be ${EXPORT_FORMAT_VERSION}`);
  const ts = json['transactionSet'];
  if (!isObj(ts)) bad('$.transactionSet', 'must be {identifier, release}');
  const tables: TableDef[] = list(json, 'tables', '$').map((t, i) => {
    const p = `$.tables[${i}]`;
    if (!isObj(t)) bad(p, 'must be an object');
    return { name: oneOf<TableName>(t, 'table', p, tableNames), children: list(t, 'children', p).map((c, j) => importNode(c, `${p}.children[${j}]`)) };
  });
  return strip({
    id: options.id,
    name: str(json, 'name', '$'),
    version: str(json, 'version', '$'),
    status: oneOf(json, 'status', '$', ['draft', 'published'] as const),
    transactionSet: { identifier: str(ts, 'identifier', '$.transactionSet'), release: str(ts, 'release', '$.transactionSet') },
    description: optStr(json, 'description', '$'),
    sourceImplementation: options.sourceImplementation ?? null,
    tables,
  });
}
