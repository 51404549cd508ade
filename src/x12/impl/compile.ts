/**
 * Lookup tables of an implementation, computed once per implementation object (cached by
 * identity) so that translation, validation and writing do no name building, no regex and no
 * searching per element: JSON keys, numeric type codes, code sets and, per structure level, a
 * map from segment id to the children it may start.
 */
import { asciiBytes } from '../json-out.ts';
import type { DataType, ElementDef, Implementation, LoopNode, SegmentNode, StructureNode, TableName } from './model.ts';

/** Numeric type codes for the hot paths. */
export const T_STRING = 0;
export const T_N = 1;
export const T_R = 2;
export const T_DT = 3;
export const T_TM = 4;
export const T_COMPOSITE = 5;

export interface CElement {
  readonly def: ElementDef;
  readonly key: string;
  /** JSON text of the key as the first member of an object (`"key":`) and after another (`,"key":`). */
  readonly k0: string;
  readonly k1: string;
  /** The same as bytes. */
  readonly b0: Uint8Array;
  readonly b1: Uint8Array;
  /** The same followed by the opening quote of a string value. */
  readonly q0: Uint8Array;
  readonly q1: Uint8Array;
  /** Name used in messages: "DTM02", or "REF04-01" for a component. */
  readonly name: string;
  /** AK4 element position (the composite's position for a component). */
  readonly ep: number;
  /** AK4 component position; null for a simple element. */
  readonly cp: number | null;
  readonly position: number;
  readonly reference: string;
  readonly t: number;
  readonly decimals: number;
  readonly min: number;
  readonly max: number;
  readonly mandatory: boolean;
  readonly notUsed: boolean;
  readonly repeat: number;
  /** Translated as the string it is (ID, AN, B, TM; not repeating): copied as it is scanned. */
  readonly plainString: boolean;
  readonly codes: ReadonlySet<string> | null;
  readonly components: readonly CElement[] | null;
}

/** A parsed syntax note: kind letter and 0-based element indexes. */
export interface CSyntax {
  readonly note: string;
  readonly kind: string;
  readonly at: readonly number[];
}

export interface CSegment {
  readonly node: SegmentNode;
  readonly id: string;
  readonly key: string;
  readonly elements: readonly CElement[];
  readonly syntax: readonly CSyntax[];
  /** JSON holds an array (max use above 1). */
  readonly array: boolean;
}

export interface CChild {
  readonly segId: string;
  readonly key: string;
  /** JSON text of the key, first in its object (`"key":`) and after another (`,"key":`). */
  readonly k0: string;
  readonly k1: string;
  /** The same as bytes, followed by `[` when the value is an array. */
  readonly b0: Uint8Array;
  readonly b1: Uint8Array;
  /** The JSON value is an array (a loop, or a segment with max use above 1). */
  readonly array: boolean;
  readonly table: TableName;
  readonly mandatory: boolean;
  readonly notUsed: boolean;
  /** Maximum use or repeat; Infinity when unbounded. */
  readonly max: number;
  readonly seg: CSegment | null;
  readonly loop: CLevel | null;
}

export interface CLevel {
  readonly loopId: string | null;
  readonly node: LoopNode | null;
  readonly children: readonly CChild[];
  /** Segment id → indexes of the children it can be (a segment use, or a loop it begins), ascending. */
  readonly lookup: ReadonlyMap<string, readonly number[]>;
  /** The same keyed by `segmentCode` of the id, for the hot path. */
  readonly byCode: ReadonlyMap<number, readonly number[]>;
}

export interface Compiled {
  readonly impl: Implementation;
  readonly root: CLevel;
  /** Every segment id used anywhere in the structure. */
  readonly segmentIds: ReadonlySet<string>;
}

/**
 * A number standing for the segment id `t[a, b)`, so that the hot path looks segments up without
 * making a string: two or three ASCII characters; -1 for anything else (never a defined id).
 */
export function segmentCode(t: string, a: number, b: number): number {
  const n = b - a;
  if (n < 2 || n > 3) return -1;
  const c0 = t.charCodeAt(a);
  const c1 = t.charCodeAt(a + 1);
  const c2 = n === 3 ? t.charCodeAt(a + 2) : 0;
  if ((c0 | c1 | c2) > 127) return -1;
  return (n << 21) | (c0 << 14) | (c1 << 7) | c2;
}

/** "Beginning Segment for Purchase Order" → "beginning_segment_for_purchase_order". */
export function snake(name: string): string {
  let out = '';
  let pendingSep = false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!alnum) {
      pendingSep = out.length > 0;
      continue;
    }
    if (pendingSep) out += '_';
    pendingSep = false;
    out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : name[i];
  }
  return out;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** JSON key of an element or component: its name and two-digit position. */
export const elementKey = (e: ElementDef): string => `${snake(e.name)}_${pad2(e.position)}`;
/** JSON key of a segment: its name and id. */
export const segmentKey = (s: SegmentNode): string => `${snake(s.name)}_${s.id}`;
/** JSON key of a loop: its beginning segment's name, the loop id and "loop". */
export function loopKey(l: LoopNode): string {
  const first = l.children[0];
  return `${first?.kind === 'segment' ? snake(first.name) : 'loop'}_${l.id}_loop`;
}

function typeCode(type: DataType | 'composite'): { t: number; decimals: number } {
  if (type === 'composite') return { t: T_COMPOSITE, decimals: 0 };
  if (type === 'R') return { t: T_R, decimals: 0 };
  if (type === 'DT') return { t: T_DT, decimals: 0 };
  if (type === 'TM') return { t: T_TM, decimals: 0 };
  if (type.length === 2 && type[0] === 'N') return { t: T_N, decimals: Number(type[1]) };
  return { t: T_STRING, decimals: 0 };
}

function compileElement(e: ElementDef, segmentId: string, parent: number | null): CElement {
  const { t, decimals } = typeCode(e.type);
  const key = elementKey(e);
  return {
    def: e,
    key,
    k0: `${JSON.stringify(key)}:`,
    k1: `,${JSON.stringify(key)}:`,
    b0: asciiBytes(`${JSON.stringify(key)}:`),
    b1: asciiBytes(`,${JSON.stringify(key)}:`),
    q0: asciiBytes(`${JSON.stringify(key)}:"`),
    q1: asciiBytes(`,${JSON.stringify(key)}:"`),
    name: parent === null ? `${segmentId}${pad2(e.position)}` : `${segmentId}${pad2(parent)}-${pad2(e.position)}`,
    ep: parent ?? e.position,
    cp: parent === null ? null : e.position,
    position: e.position,
    reference: e.reference,
    t,
    decimals,
    min: e.minLength,
    max: e.maxLength,
    mandatory: e.usage === 'must_use',
    notUsed: e.usage === 'not_used',
    repeat: e.repeat,
    plainString: (t === T_STRING || t === T_TM) && e.repeat <= 1,
    codes: e.codes ? new Set(e.codes) : null,
    components: e.components ? e.components.map((c) => compileElement(c, segmentId, e.position)) : null,
  };
}

function compileSyntax(note: string): CSyntax {
  const at: number[] = [];
  for (let i = 1; i + 1 < note.length; i += 2) at.push(Number(note.slice(i, i + 2)) - 1);
  return { note, kind: note[0] ?? '', at };
}

function compileSegment(s: SegmentNode): CSegment {
  return {
    node: s,
    id: s.id,
    key: segmentKey(s),
    elements: s.elements.map((e) => compileElement(e, s.id, null)),
    syntax: (s.syntax ?? []).map(compileSyntax),
    array: s.maxUse === null || s.maxUse > 1,
  };
}

function compileLevel(nodes: readonly { node: StructureNode; table: TableName }[], loop: LoopNode | null, ids: Set<string>): CLevel {
  const children: CChild[] = [];
  const lookup = new Map<string, number[]>();
  const keyCount = new Map<string, number>();
  const keys = nodes.map(({ node, table }) => {
    const k = node.kind === 'segment' ? segmentKey(node) : loopKey(node);
    const scoped = `${table}/${k}`;
    keyCount.set(scoped, (keyCount.get(scoped) ?? 0) + 1);
    return k;
  });
  nodes.forEach(({ node, table }, i) => {
    let key = keys[i] ?? '';
    // The same segment or loop twice in one level: positions tell them apart.
    if ((keyCount.get(`${table}/${key}`) ?? 0) > 1) key = `${key}_${node.position}`;
    let child: CChild;
    if (node.kind === 'segment') {
      ids.add(node.id);
      child = {
        segId: node.id,
        key,
        k0: `${JSON.stringify(key)}:`,
        k1: `,${JSON.stringify(key)}:`,
        b0: asciiBytes(`${JSON.stringify(key)}:${node.maxUse === null || node.maxUse > 1 ? '[' : ''}`),
        b1: asciiBytes(`,${JSON.stringify(key)}:${node.maxUse === null || node.maxUse > 1 ? '[' : ''}`),
        array: node.maxUse === null || node.maxUse > 1,
        table,
        mandatory: node.usage === 'must_use',
        notUsed: node.usage === 'not_used',
        max: node.maxUse ?? Infinity,
        seg: compileSegment(node),
        loop: null,
      };
    } else {
      const first = node.children[0];
      const sub = compileLevel(
        node.children.map((n) => ({ node: n, table })),
        node,
        ids,
      );
      child = {
        segId: first?.kind === 'segment' ? first.id : '',
        key,
        k0: `${JSON.stringify(key)}:`,
        k1: `,${JSON.stringify(key)}:`,
        b0: asciiBytes(`${JSON.stringify(key)}:[`),
        b1: asciiBytes(`,${JSON.stringify(key)}:[`),
        array: true,
        table,
        mandatory: node.usage === 'must_use',
        notUsed: node.usage === 'not_used',
        max: node.repeat ?? Infinity,
        seg: null,
        loop: sub,
      };
    }
    children.push(child);
    const list = lookup.get(child.segId);
    if (list) list.push(i);
    else lookup.set(child.segId, [i]);
  });
  const byCode = new Map<number, readonly number[]>();
  for (const [id, list] of lookup) {
    const code = segmentCode(id, 0, id.length);
    if (code >= 0) byCode.set(code, list);
  }
  return { loopId: loop ? loop.id : null, node: loop, children, lookup, byCode };
}

const cache = new WeakMap<Implementation, Compiled>();

/** The lookup tables of an implementation (computed on first use, then cached). */
export function compile(impl: Implementation): Compiled {
  let c = cache.get(impl);
  if (c) return c;
  const ids = new Set<string>();
  const nodes: { node: StructureNode; table: TableName }[] = [];
  for (const t of impl.tables) for (const n of t.children) nodes.push({ node: n, table: t.name });
  c = { impl, root: compileLevel(nodes, null, ids), segmentIds: ids };
  cache.set(impl, c);
  return c;
}
