/**
 * Result payloads (contract: Payload; GET /platform/results/:id/payload): the `jsonPath`
 * selection and the `keysOnly` shape description. Pure.
 *
 * - `jsonPath` is dot-separated; a segment that is all digits indexes an array, any other
 *   segment names an object key (so a key made of digits is reached on an object too).
 * - The shape (`keysOnly`) describes a value without its contents: an object lists its keys
 *   with the shape of each value, an array gives its length and the shape of its first element
 *   as a sample, a scalar gives its type. It goes four levels deep: a container on the fourth
 *   level is described by its type and size only.
 */

/** Levels a shape description expands (contract Limits: "Payload shape depth: four levels"). */
export const SHAPE_DEPTH = 4;

export type ValueType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export type Shape =
  | { readonly type: 'object'; readonly keys: Readonly<Record<string, Shape>> }
  | { readonly type: 'object'; readonly keyCount: number }
  | { readonly type: 'array'; readonly length: number; readonly sample?: Shape }
  | { readonly type: 'string' | 'number' | 'boolean' | 'null' };

export function typeOf(v: unknown): ValueType {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'object':
      return 'object';
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'null';
  }
}

/** The shape of `value`, expanded `depth` levels (the value itself is level 1). */
export function shapeOf(value: unknown, depth: number = SHAPE_DEPTH): Shape {
  const t = typeOf(value);
  if (t === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o);
    if (depth <= 1) return { type: 'object', keyCount: keys.length };
    const out: Record<string, Shape> = {};
    for (const k of keys) out[k] = shapeOf(o[k], depth - 1);
    return { type: 'object', keys: out };
  }
  if (t === 'array') {
    const a = value as unknown[];
    if (depth <= 1 || a.length === 0) return { type: 'array', length: a.length };
    return { type: 'array', length: a.length, sample: shapeOf(a[0], depth - 1) };
  }
  return { type: t };
}

/** The segments of a `jsonPath`; null when it is empty or has an empty segment. */
export function parseJsonPath(path: string): string[] | null {
  if (path === '') return null;
  const parts = path.split('.');
  return parts.some((p) => p === '') ? null : parts;
}

/** The value at `segments` inside `value`, or `undefined` when the path does not resolve. */
export function resolveJsonPath(value: unknown, segments: readonly string[]): unknown {
  let cur: unknown = value;
  for (const s of segments) {
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(s)) return undefined;
      const i = Number(s);
      if (i >= cur.length) return undefined;
      cur = cur[i];
    } else if (cur !== null && typeof cur === 'object') {
      if (!Object.prototype.hasOwnProperty.call(cur, s)) return undefined;
      cur = (cur as Record<string, unknown>)[s];
    } else {
      return undefined;
    }
  }
  return cur;
}
