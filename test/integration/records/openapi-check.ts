/**
 * Checking responses against the served OpenAPI document: the path template a request matched,
 * JSON pointers into the document (added to ajv as `openapi`), and closed object schemas so an
 * undocumented property fails validation.
 */
import type { ValidateFunction } from 'ajv';

/** A JSON-pointer reference into the document added to ajv as `openapi`. */
export const pointer = (...parts: string[]): string => `openapi#/${parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;

/** Forbids properties a documented object schema does not name. */
export function closeObjects(node: unknown): void {
  if (Array.isArray(node)) for (const n of node) closeObjects(n);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o['type'] === 'object' && o['properties'] && o['additionalProperties'] === undefined) o['additionalProperties'] = false;
    for (const v of Object.values(o)) closeObjects(v);
  }
}

/** The documented template (`/platform/results/{id}`) a request path matches, or null. */
export function templateOf(templates: readonly string[], path: string): string | null {
  const bare = path.split('?')[0]!;
  const parts = bare.split('/');
  for (const t of templates) {
    const tp = t.split('/');
    if (tp.length !== parts.length) continue;
    if (tp.every((seg, i) => (seg.startsWith('{') && seg.endsWith('}') ? parts[i] !== '' : seg === parts[i]))) return t;
  }
  return null;
}

/** A compiled validator for each JSON pointer into the document, compiled once (compiling per response cost seconds). */
export function validators(ajv: { compile(schema: object): ValidateFunction }): (ref: string) => ValidateFunction {
  const compiled = new Map<string, ValidateFunction>();
  return (ref) => {
    let v = compiled.get(ref);
    if (!v) {
      v = ajv.compile({ $ref: ref });
      compiled.set(ref, v);
    }
    return v;
  };
}
