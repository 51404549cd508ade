/**
 * One definition per API operation: its parameters (each a JSON Schema with the contract's
 * message for a value the schema refuses), request body and responses. The OpenAPI document
 * (openapi.ts) renders these definitions, and the routes validate their query with the same
 * schemas compiled by ajv, so what the document allows and what the service accepts cannot
 * drift apart. Cross-parameter rules a schema cannot state (direction and incoming agreeing) are
 * written in the parameter's description and checked by the route after `parseQuery`.
 *
 * Query values arrive as text. An `integer` parameter is read from its decimal digits (the
 * OpenAPI form serialization of a number); anything else stays a string for ajv to refuse.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { clampMicros, parseIsoMicros, type Micros } from '../../domain/records.ts';
import { errors, type TdxError } from '../../errors.ts';
import { INVALID_CURSOR_MESSAGE, MAX_CURSOR_LENGTH } from '../middleware/cursor.ts';

/** A JSON Schema or an OpenAPI object. */
export type Json = Record<string, unknown>;

/** Query parameters as Koa gives them (and the MCP tools build them). */
export type Query = Record<string, string | string[] | undefined>;

/**
 * One parameter. `T` is the type `parseQuery` gives its value; `A` is true when the value is
 * always there (a required parameter, or one with a default).
 */
export interface ParamDef<N extends string = string, T = unknown, A extends boolean = boolean, L extends 'query' | 'path' = 'query' | 'path'> {
  readonly name: N;
  readonly in: L;
  readonly required: boolean;
  readonly description: string;
  readonly schema: Json;
  /** The contract's error for a value (as sent) that the schema refuses. */
  readonly refuse: (value: string) => TdxError;
  /** Set on a parameter beyond the contract: rendered as `x-tdx-extension` with this text (docs/api.md, "Extensions"). */
  readonly extension?: string;
  /** Phantom: the parsed value's type. */
  readonly __type?: T;
  /** Phantom: whether the parsed value is always there. */
  readonly __always?: A;
}

/** A query parameter. */
export type QueryParam<N extends string, T, A extends boolean> = ParamDef<N, T, A, 'query'>;

/** The parsed query of an operation: each query parameter's value, undefined when absent. */
export type ParsedQuery<P extends readonly ParamDef[]> = {
  readonly [D in P[number] as D extends QueryParam<string, unknown, boolean> ? D['name'] : never]: D extends ParamDef<string, infer T, true> ? T : D extends ParamDef<string, infer T> ? T | undefined : never;
};

const invalid = (name: string, text: string): TdxError => errors.invalidParameter(name, text);

/** Page size bounds (contract Limits). */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** Builders of parameters: each returns the schema and the message of the contract. */
export const param = {
  /** A free text filter that may not be empty. */
  text<N extends string>(name: N, description: string): QueryParam<N, string, false> {
    return { name, in: 'query', required: false, description, schema: { type: 'string', minLength: 1 }, refuse: () => invalid(name, `Query parameter "${name}" is empty.`) };
  },
  /** Any text, the empty string included (the endpoint gives it a meaning). */
  anyText<N extends string>(name: N, description: string): QueryParam<N, string, false> {
    return { name, in: 'query', required: false, description, schema: { type: 'string' }, refuse: (v) => invalid(name, `Query parameter "${name}" must be text; got "${v}".`) };
  },
  /** Text matching `pattern`, described in words as `rule` for the message. */
  matching<N extends string>(name: N, description: string, pattern: string, rule: string): QueryParam<N, string, false> {
    return { name, in: 'query', required: false, description, schema: { type: 'string', pattern }, refuse: (v) => invalid(name, `Query parameter "${name}" must be ${rule}; got "${v}".`) };
  },
  /** One of `values`. */
  oneOf<N extends string, const V extends readonly string[]>(name: N, description: string, values: V): QueryParam<N, V[number], false> {
    return param.oneOfOr(name, description, values, undefined) as unknown as QueryParam<N, V[number], false>;
  },
  /** One of `values`, `defaultValue` when absent. */
  oneOfOr<N extends string, const V extends readonly string[]>(name: N, description: string, values: V, defaultValue: V[number] | undefined): QueryParam<N, V[number], true> {
    return {
      name,
      in: 'query',
      required: false,
      description,
      schema: { type: 'string', enum: [...values], ...(defaultValue === undefined ? {} : { default: defaultValue }) },
      refuse: (v) => invalid(name, `Query parameter "${name}" must be one of ${values.join(', ')}; got "${v}".`),
    };
  },
  /** An RFC 3339 date-time with a time zone; parsed to microseconds by `timestampMicros`. */
  timestamp<N extends string>(name: N, description: string): QueryParam<N, string, false> {
    return {
      name,
      in: 'query',
      required: false,
      description,
      schema: { type: 'string', format: 'date-time' },
      refuse: (v) => invalid(name, `Query parameter "${name}" must be an ISO 8601 timestamp with a time zone, such as 2026-03-01T10:00:00Z; got "${v}".`),
    };
  },
  /** `limit`: 1 to 100, default 50. */
  limit(): QueryParam<'limit', number, true> {
    return {
      name: 'limit',
      in: 'query',
      required: false,
      description: `page size, 1 to ${MAX_LIMIT}`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
      refuse: (v) => invalid('limit', `Query parameter "limit" must be an integer from 1 to ${MAX_LIMIT}; got "${v}".`),
    };
  },
  /** `cursor`: opaque and signed; only the service's own nextCursor is taken. */
  cursor(description = 'nextCursor of the previous page, unchanged, with the same filters'): QueryParam<'cursor', string, false> {
    return {
      name: 'cursor',
      in: 'query',
      required: false,
      description: `${description}. Opaque: pass the value the service returned as it is, never build or change one. It is signed for the organization, the endpoint and the filters of the request that returned it; any other string, however well formed, is refused with 400 invalid_parameter.`,
      // the shape of every cursor the service issues (two base64url parts); the shape alone is
      // never enough, the signature decides
      schema: { type: 'string', minLength: 1, maxLength: MAX_CURSOR_LENGTH, pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' },
      refuse: (v) => invalid('cursor', v === '' ? 'Query parameter "cursor" is empty.' : INVALID_CURSOR_MESSAGE),
    };
  },
  /** A path parameter; the route answers 404 for a value that names nothing. */
  path<N extends string>(name: N, description: string, schema: Json = { type: 'string' }): ParamDef<N, string, true, 'path'> {
    return { name, in: 'path', required: true, description, schema, refuse: (v) => errors.notFound(name, `Nothing found for "${v}".`) };
  },
  /** Marks a query parameter as an extension beyond the contract (`x-tdx-extension` in the document). */
  extension<N extends string, T, A extends boolean>(p: QueryParam<N, T, A>, text: string): QueryParam<N, T, A> {
    return { ...p, extension: text };
  },
  /** Makes a query parameter required; absent, it answers 400 `missing_parameter`. */
  required<N extends string, T>(p: QueryParam<N, T, false>, refuse: (value: string) => TdxError = p.refuse): QueryParam<N, T, true> {
    return { name: p.name, in: 'query', required: true, description: p.description, schema: p.schema, refuse };
  },
};

/** What a definition says of one operation. */
export interface OperationDef<P extends readonly ParamDef[]> {
  readonly method: 'get' | 'post';
  /** OpenAPI path template, such as `/platform/results/{id}`. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly parameters: P;
  /** OpenAPI requestBody object. */
  readonly requestBody?: Json;
  /** OpenAPI header parameter objects (documented; the route reads and checks them itself). */
  readonly headers?: readonly Json[];
  /** Set on an extension beyond the contract: rendered as `x-tdx-extension` with this text (docs/api.md, "Extensions"). */
  readonly extension?: string;
  /** OpenAPI responses, by status. */
  readonly responses: Record<string, Json>;
}

/** An operation: its definition, its OpenAPI object, and its query validation. */
export interface Operation<P extends readonly ParamDef[]> extends OperationDef<P> {
  /** The OpenAPI operation object. */
  openapi(): Json;
  /**
   * The query checked against the parameters' schemas: the first parameter (in definition
   * order) whose value is refused, then an unknown parameter, then a missing required one,
   * throws its contract error. Defaults of the schemas are filled in.
   */
  parseQuery(query: Query): ParsedQuery<P>;
}

let ajvInstance: Ajv2020 | null = null;
function ajv(): Ajv2020 {
  if (!ajvInstance) {
    ajvInstance = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, useDefaults: true });
    // ajv-formats is CommonJS: its default export is the module object under ESM interop
    const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020, formats: string[]) => void;
    addFormats(ajvInstance, ['date-time', 'date']);
  }
  return ajvInstance;
}

/** A request body schema compiled by the same ajv as the queries (all errors reported). */
export function compileSchema(schema: Json): ValidateFunction {
  return ajv().compile(schema);
}

/** ajv's errors as one line. */
export function ajvErrorsText(errs: ErrorObject[] | null | undefined): string {
  return ajv().errorsText(errs);
}

/** The JSON Schema of an operation's query object (one property per query parameter). */
export function querySchema(parameters: readonly ParamDef[]): Json {
  const query = parameters.filter((p) => p.in === 'query');
  return {
    type: 'object',
    properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
    required: query.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

const INTEGER = /^-?\d+$/;

/** What the HTTP server itself answers, before any route, to every operation. */
const HTTP_SERVER_RESPONSES: Record<string, Json> = {
  '431': { description: 'the request line and headers are larger than the HTTP server takes (16 KB, such as a query of very long values); answered with no body' },
};

export function defineOperation<const P extends readonly ParamDef[]>(def: OperationDef<P>): Operation<P> {
  const query = def.parameters.filter((p) => p.in === 'query');
  let validate: ValidateFunction | null = null;
  return {
    ...def,
    openapi(): Json {
      return {
        summary: def.summary,
        ...(def.description === undefined ? {} : { description: def.description }),
        tags: [...def.tags],
        ...(def.parameters.length > 0 || (def.headers ?? []).length > 0
          ? { parameters: [...def.parameters.map((p) => ({ name: p.name, in: p.in, required: p.required, description: p.description, schema: p.schema, ...(p.extension === undefined ? {} : { 'x-tdx-extension': p.extension }) })), ...(def.headers ?? [])] }
          : {}),
        ...(def.extension === undefined ? {} : { 'x-tdx-extension': def.extension }),
        ...(def.requestBody === undefined ? {} : { requestBody: def.requestBody }),
        responses: { ...def.responses, ...HTTP_SERVER_RESPONSES },
      };
    },
    parseQuery(raw: Query): ParsedQuery<P> {
      validate ??= ajv().compile(querySchema(def.parameters));
      const data: Record<string, unknown> = {};
      for (const [name, v] of Object.entries(raw)) {
        if (v === undefined) continue;
        if (Array.isArray(v)) throw invalid(name, `Query parameter "${name}" may be given once.`);
        const p = query.find((d) => d.name === name);
        data[name] = p && p.schema['type'] === 'integer' && INTEGER.test(v) ? Number(v) : v;
      }
      if (!validate(data)) {
        const errs: ErrorObject[] = validate.errors ?? [];
        for (const p of query) {
          const given = raw[p.name];
          if (typeof given === 'string' && errs.some((e) => e.instancePath === `/${p.name}`)) throw p.refuse(given);
        }
        const unknown = errs.find((e) => e.keyword === 'additionalProperties');
        if (unknown) {
          const name = String((unknown.params as { additionalProperty: string }).additionalProperty);
          throw invalid(name, `Unknown query parameter "${name}".`);
        }
        const missing = errs.find((e) => e.keyword === 'required');
        if (missing) throw errors.missingParameter(String((missing.params as { missingProperty: string }).missingProperty));
        throw invalid('query', `The query is not valid: ${ajv().errorsText(errs)}.`);
      }
      return data as ParsedQuery<P>;
    },
  };
}

/**
 * Microseconds of a timestamp the `date-time` format accepted (RFC 3339: `T`, `t` or a space
 * between date and time, `Z` or an offset with or without its minutes, any number of fraction
 * digits, a leap second), clamped to the stored span (domain/records.ts).
 */
export function timestampMicros(text: string): Micros {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}(?::?\d{2})?)$/.exec(text);
  if (!m) throw new Error(`not a date-time: ${text}`);
  const [, date, h, mi, s, frac = '', zone = 'Z'] = m;
  // a leap second is the last instant of its minute
  const leap = s === '60';
  const offset = /^[Zz]$/.test(zone) ? 'Z' : zone.length === 3 ? `${zone}:00` : zone;
  const us = parseIsoMicros(`${date}T${h}:${mi}:${leap ? '59' : s}${leap ? '.999999' : frac ? `.${frac.slice(0, 9)}` : ''}${offset}`);
  if (us === null) throw new Error(`not a date-time: ${text}`);
  return clampMicros(us);
}
