/**
 * The shape a mapping must produce, as JSON Schema (draft 2020-12), for the mapping node, the
 * configuration checks and `GET /platform/implementations/:id/schema` alike:
 *
 * - outbound: the partner's document, the implementation's schema (`ImplementationEngine.schema`);
 * - inbound with a source: the canonical shape, the organization's own document shape that the
 *   source's sample shows. A sample is example data, not a schema, so the schema drawn from it
 *   (`sampleSchema`) checks only what a sample can tell: the JSON type of every field it has, at
 *   any depth, and ISO dates and times where the sample has them. It requires no field and admits
 *   others, since a document may lack what the partner did not send;
 * - inbound without a source: the implementation's schema (the translation's own shape).
 *
 * A schema is a function of the implementation record (and source record) it is made from, so
 * `mappingSchemaKey` keys it by their ids and `updatedAt`: a changed record gives a new key.
 */
import type { Direction, ImplementationRecord, SourceRecord } from './configuration.ts';
import type { ImplementationEngine, ImplementationSpec } from './implementation-engine.ts';
import type { SchemaRef } from './mapping-engine.ts';

type Schema = Record<string, unknown>;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Merges the schemas of several sample values of one place (array items): a common type or nothing. */
function mergeSchemas(schemas: Schema[]): Schema {
  if (schemas.length === 0) return {};
  const types = new Set(schemas.map((s) => s['type']));
  if (types.size !== 1 || types.has(undefined)) return {};
  const [first] = schemas as [Schema, ...Schema[]];
  if (first['type'] === 'object') {
    const properties: Record<string, Schema[]> = {};
    for (const s of schemas) for (const [k, v] of Object.entries(s['properties'] as Record<string, Schema>)) (properties[k] ??= []).push(v);
    return { type: 'object', properties: Object.fromEntries(Object.entries(properties).map(([k, vs]) => [k, mergeSchemas(vs)])) };
  }
  if (first['type'] === 'array') return { type: 'array', items: mergeSchemas(schemas.map((s) => (s['items'] as Schema | undefined) ?? {})) };
  if (first['type'] === 'string') {
    const formats = new Set(schemas.map((s) => s['format']));
    return formats.size === 1 && first['format'] !== undefined ? { type: 'string', format: first['format'] } : { type: 'string' };
  }
  return { type: first['type'] };
}

function valueSchema(v: unknown): Schema {
  switch (typeOf(v)) {
    case 'object':
      return { type: 'object', properties: Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, valueSchema(x)])) };
    case 'array':
      return { type: 'array', items: mergeSchemas((v as unknown[]).filter((x) => x !== null).map(valueSchema)) };
    case 'string': {
      const s = v as string;
      if (ISO_DATE.test(s)) return { type: 'string', format: 'date' };
      if (ISO_DATE_TIME.test(s)) return { type: 'string', format: 'date-time' };
      return { type: 'string' };
    }
    case 'number':
      // 25 in a sample says "a number", not "an integer": amounts and quantities may be fractional
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    default:
      // null says nothing about the type
      return {};
  }
}

/** The schema drawn from a source's sample: JSON types of its fields and ISO dates; nothing required. */
export function sampleSchema(sample: unknown, title: string): Schema {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title, ...valueSchema(sample) };
}

/** What a mapping's output schema is made from. */
export interface MappingTarget {
  readonly direction: Direction;
  readonly implementation: ImplementationSpec;
  /** The mapping's source; only an inbound mapping's source changes the shape. */
  readonly source: Pick<SourceRecord, 'name' | 'sample'> | null;
}

/** The JSON Schema of what a mapping must produce (see the module comment). */
export function mappingOutputSchema(engine: ImplementationEngine, target: MappingTarget): Schema {
  if (target.direction === 'inbound' && target.source !== null) {
    return sampleSchema(target.source.sample, `${target.source.name} (canonical shape of ${target.implementation.name} ${target.implementation.transactionSet.identifier} documents)`);
  }
  return engine.schema(target.implementation, target.direction);
}

/** Cache key of `mappingOutputSchema` for stored records: ids and update times of what it is made from. */
export function mappingSchemaKey(direction: Direction, implementation: Pick<ImplementationRecord, 'id' | 'updatedAt'>, source: Pick<SourceRecord, 'id' | 'updatedAt'> | null): string {
  const impl = `implementation:${implementation.id}@${implementation.updatedAt}`;
  return direction === 'inbound' && source !== null ? `inbound:source:${source.id}@${source.updatedAt}|${impl}` : `${direction}:${impl}`;
}

/**
 * Output schemas of stored mappings, made once per key (building the schema of a large set
 * takes tens of milliseconds) and kept for the most recently used `capacity` keys. Hand the
 * result to `MappingEngine.run(expression, input, {validateWith})`: the engine compiles each key
 * once per worker.
 */
export class MappingSchemaCache {
  private readonly refs = new Map<string, SchemaRef>();

  constructor(
    private readonly engine: ImplementationEngine,
    private readonly capacity = 64,
  ) {}

  get(direction: Direction, implementation: ImplementationRecord, source: SourceRecord | null): SchemaRef {
    const cacheKey = mappingSchemaKey(direction, implementation, source);
    let ref = this.refs.get(cacheKey);
    if (ref === undefined) {
      ref = { cacheKey, schema: mappingOutputSchema(this.engine, { direction, implementation, source }) };
      if (this.refs.size >= this.capacity) this.refs.delete(this.refs.keys().next().value as string);
    } else this.refs.delete(cacheKey);
    this.refs.set(cacheKey, ref);
    return ref;
  }
}
