/**
 * Partner implementations: a copy of a base (or other) implementation with adjustments, such as
 * a segment made must-use or not used, codes restricted, repeats lowered. `deviations` lists how
 * an implementation differs from the one it was derived from (the guide prints them).
 */
import { TdxError } from '../../errors.ts';
import type { ElementDef, Implementation, ImplementationStatus, StructureNode, TableDef, Usage } from './model.ts';

/** One change to a node of the structure. */
export interface Adjustment {
  /**
   * Table, then loop and segment ids down to the node: "heading/N1" (the N1 loop),
   * "heading/N1/N4" (N4 inside it), "detail/PO1/PID/PID". A step may carry "@position"
   * ("REF@0500") when the same id appears twice in one level.
   */
  readonly path: string;
  /** Element position (1-based) to adjust instead of the segment itself. */
  readonly element?: number;
  /** Component position inside the composite at `element`. */
  readonly component?: number;
  readonly usage?: Usage;
  /** Segment max use (segments) or loop repeat (loops); for an element, its repetitions. */
  readonly max?: number;
  /** Allowed codes (elements). */
  readonly codes?: readonly string[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly notes?: string;
}

export interface DerivedMeta {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly status?: ImplementationStatus;
  readonly description?: string;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? Mutable<U>[] : T[K] extends object ? Mutable<T[K]> : T[K] };
type MNode = Mutable<StructureNode>;
type MElement = Mutable<ElementDef>;

function bad(path: string, message: string): never {
  throw new TdxError('x12_document_invalid', `Implementation adjustment "${path}": ${message}`, { details: { path } });
}

function findStep(children: MNode[], step: string, path: string): MNode {
  const [id, pos] = step.split('@');
  const hits = children.filter((c) => c.id === id && (pos === undefined || c.position === pos));
  // Inside a loop, its own id names the beginning segment; elsewhere a loop wins over a segment.
  const loop = hits.find((h) => h.kind === 'loop');
  const hit = loop ?? hits[0];
  if (!hit) bad(path, `no "${step}" at this level`);
  if (hits.filter((h) => h.kind === hit.kind).length > 1) bad(path, `"${step}" is ambiguous; add @position`);
  return hit;
}

function locate(tables: Mutable<TableDef>[], path: string): MNode {
  const [table, ...steps] = path.split('/');
  const t = tables.find((x) => x.name === table);
  if (!t) bad(path, `no table "${table ?? ''}"`);
  if (steps.length === 0) bad(path, 'names no segment or loop');
  let children = t.children;
  let node: MNode | null = null;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as string;
    if (node?.kind === 'loop' && i === steps.length - 1 && step.split('@')[0] === node.id) {
      // "heading/N1/N1": the loop's beginning segment.
      const first = node.children[0];
      if (!first) bad(path, 'empty loop');
      return first;
    }
    node = findStep(children, step, path);
    if (i < steps.length - 1) {
      if (node.kind !== 'loop') bad(path, `"${step}" is a segment, not a loop`);
      children = node.children;
    }
  }
  return node as MNode;
}

/** A new implementation: a copy of `source` with the adjustments applied in order. */
export function deriveImplementation(source: Implementation, meta: DerivedMeta, adjustments: readonly Adjustment[]): Implementation {
  const tables = structuredClone(source.tables) as Mutable<TableDef>[];
  for (const a of adjustments) {
    const node = locate(tables, a.path);
    if (a.element === undefined) {
      if (a.component !== undefined || a.codes !== undefined || a.minLength !== undefined || a.maxLength !== undefined) {
        bad(a.path, 'codes and lengths apply to elements; give "element"');
      }
      if (a.usage !== undefined) node.usage = a.usage;
      if (a.notes !== undefined) node.notes = a.notes;
      if (a.max !== undefined) {
        if (!Number.isInteger(a.max) || a.max < 1) bad(a.path, 'max must be a positive integer');
        if (node.kind === 'segment') node.maxUse = a.max;
        else node.repeat = a.max;
      }
      continue;
    }
    if (node.kind !== 'segment') bad(a.path, 'elements belong to segments, not loops');
    let el: MElement | undefined = node.elements.find((e) => e.position === a.element);
    if (!el) bad(a.path, `segment ${node.id} has no element ${a.element}`);
    if (a.component !== undefined) {
      el = el.components?.find((c) => c.position === a.component);
      if (!el) bad(a.path, `element ${a.element} has no component ${a.component}`);
    }
    if (a.usage !== undefined) el.usage = a.usage;
    if (a.notes !== undefined) el.notes = a.notes;
    if (a.codes !== undefined) el.codes = [...a.codes];
    if (a.minLength !== undefined) el.minLength = a.minLength;
    if (a.maxLength !== undefined) el.maxLength = a.maxLength;
    if (a.max !== undefined) el.repeat = a.max;
  }
  const impl: Implementation = {
    id: meta.id,
    name: meta.name,
    version: meta.version,
    status: meta.status ?? 'draft',
    transactionSet: { ...source.transactionSet },
    sourceImplementation: { id: source.id, name: source.name },
    tables,
  };
  return meta.description === undefined ? impl : { ...impl, description: meta.description };
}

/** One difference between an implementation and the one it came from. */
export interface Deviation {
  /** Where: "heading/N1/N4" and, for an element, "N402" (or "C04001" style "N402-01"). */
  readonly path: string;
  readonly field: 'usage' | 'max' | 'codes' | 'minLength' | 'maxLength' | 'notes' | 'structure';
  readonly base: string;
  readonly value: string;
}

const show = (v: string | number | null | undefined | readonly string[]): string => (v === undefined ? '(none)' : v === null ? 'unbounded' : typeof v === 'object' ? v.join(', ') : String(v));
const pad2 = (n: number): string => String(n).padStart(2, '0');

function diffElements(a: readonly ElementDef[], b: readonly ElementDef[], where: string, label: string, out: Deviation[]): void {
  for (const e of a) {
    const o = b.find((x) => x.position === e.position);
    const name = `${label}${pad2(e.position)}`;
    if (!o) {
      out.push({ path: `${where} ${name}`, field: 'structure', base: '(absent)', value: 'present' });
      continue;
    }
    const cmp = (field: Deviation['field'], x: Parameters<typeof show>[0], y: Parameters<typeof show>[0]): void => {
      if (show(x) !== show(y)) out.push({ path: `${where} ${name}`, field, base: show(y), value: show(x) });
    };
    cmp('usage', e.usage, o.usage);
    cmp('max', e.repeat, o.repeat);
    cmp('codes', e.codes, o.codes);
    cmp('minLength', e.minLength, o.minLength);
    cmp('maxLength', e.maxLength, o.maxLength);
    cmp('notes', e.notes, o.notes);
    if (e.components && o.components) diffElements(e.components, o.components, where, `${name}-`, out);
  }
}

function diffNodes(a: readonly StructureNode[], b: readonly StructureNode[], where: string, out: Deviation[]): void {
  for (const n of a) {
    const o = b.find((x) => x.kind === n.kind && x.id === n.id && x.position === n.position);
    const path = `${where}/${n.id}`;
    if (!o) {
      out.push({ path, field: 'structure', base: '(absent)', value: 'present' });
      continue;
    }
    if (n.usage !== o.usage) out.push({ path, field: 'usage', base: o.usage, value: n.usage });
    if ((n.notes ?? '') !== (o.notes ?? '')) out.push({ path, field: 'notes', base: show(o.notes), value: show(n.notes) });
    if (n.kind === 'segment' && o.kind === 'segment') {
      if (n.maxUse !== o.maxUse) out.push({ path, field: 'max', base: show(o.maxUse), value: show(n.maxUse) });
      diffElements(n.elements, o.elements, path, n.id, out);
    } else if (n.kind === 'loop' && o.kind === 'loop') {
      if (n.repeat !== o.repeat) out.push({ path, field: 'max', base: show(o.repeat), value: show(n.repeat) });
      diffNodes(n.children, o.children, path, out);
    }
  }
}

/** Differences of `impl` from `source`, in structure order. */
export function deviations(impl: Implementation, source: Implementation): Deviation[] {
  const out: Deviation[] = [];
  for (const t of impl.tables) {
    const o = source.tables.find((x) => x.name === t.name);
    diffNodes(t.children, o ? o.children : [], t.name, out);
  }
  return out;
}
