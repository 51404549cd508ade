/**
 * Query parameter parsing for /platform lists: every parameter is checked against the
 * endpoint's vocabulary, and a bad one gives 400 naming it (`invalid_parameter`,
 * `missing_parameter`). Unknown parameters are rejected too, so a misspelt filter never
 * silently returns everything.
 */
import type { Context } from 'koa';
import { errors } from '../../errors.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export class QueryParams {
  private readonly used = new Set<string>();
  constructor(private readonly query: Context['query']) {}

  /** A single-valued parameter, or undefined. */
  string(name: string): string | undefined {
    this.used.add(name);
    const v = this.query[name];
    if (v === undefined) return undefined;
    if (Array.isArray(v)) throw errors.invalidParameter(name, `Query parameter "${name}" may be given once.`);
    return v;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) {
      throw errors.invalidParameter(name, `Query parameter "${name}" must be one of ${allowed.join(', ')}; got "${v}".`);
    }
    return v as T;
  }

  matching(name: string, re: RegExp, description: string): string | undefined {
    const v = this.string(name);
    if (v !== undefined && !re.test(v)) throw errors.invalidParameter(name, `Query parameter "${name}" must be ${description}; got "${v}".`);
    return v;
  }

  /** `limit`: integer from 1 to 100, default 50. */
  limit(): number {
    const v = this.string('limit');
    if (v === undefined) return DEFAULT_LIMIT;
    if (!/^\d{1,4}$/.test(v) || Number(v) < 1 || Number(v) > MAX_LIMIT) {
      throw errors.invalidParameter('limit', `Query parameter "limit" must be an integer from 1 to ${MAX_LIMIT}; got "${v}".`);
    }
    return Number(v);
  }

  cursor(): string | undefined {
    const v = this.string('cursor');
    if (v === '') throw errors.invalidParameter('cursor', 'Query parameter "cursor" is empty.');
    return v;
  }

  /** Call after reading every parameter: rejects any the endpoint does not know. */
  rejectUnknown(): void {
    for (const name of Object.keys(this.query)) {
      if (!this.used.has(name)) throw errors.invalidParameter(name, `Unknown query parameter "${name}".`);
    }
  }
}
