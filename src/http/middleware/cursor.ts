/**
 * Pagination cursors: opaque and tamper-evident. A cursor carries the endpoint, the
 * organization, a digest of the query's filters and the last key returned, signed with HMAC
 * (config.api.cursorSecret, equal on every replica). A changed cursor, one from another
 * organization, another endpoint or other filters gives 400 `invalid_parameter` (`cursor`).
 *
 * Lists page by key (ids are time-ordered UUIDv7): a page holds the rows with a key greater
 * than the cursor's, so rows inserted meanwhile never shift a page (no duplicate, no skip).
 */
import { createHmac } from 'node:crypto';
import { errors } from '../../errors.ts';
import { sameSecret } from '../../domain/constant-time.ts';

/** The message every cursor that is not the service's own gets (400 `invalid_parameter`). */
export const INVALID_CURSOR_MESSAGE = 'Query parameter "cursor" is not valid for this request: pass nextCursor unchanged, with the same filters, to the endpoint that returned it.';

/** Longest cursor taken; the service's own are far shorter. */
export const MAX_CURSOR_LENGTH = 2048;

export interface CursorScope {
  /** Endpoint name, such as `GET /platform/flows`. */
  readonly endpoint: string;
  readonly organizationId: string;
  /** Canonical text of the filters in force. */
  readonly filters: string;
}

export interface Page<T> {
  readonly items: T[];
  readonly pagination: { readonly hasMore: boolean; readonly nextCursor: string | null };
}

export class CursorCodec {
  constructor(private readonly secret: string) {}

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, 18);
  }

  encode(scope: CursorScope, lastKey: string): string {
    const payload = Buffer.from(JSON.stringify({ v: 1, e: scope.endpoint, o: scope.organizationId, f: scope.filters, k: lastKey })).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The last key of a cursor issued for this scope; 400 `invalid_parameter` otherwise. */
  decode(scope: CursorScope, cursor: string): string {
    const bad = (): Error => errors.invalidParameter('cursor', INVALID_CURSOR_MESSAGE);
    const dot = cursor.indexOf('.');
    if (dot <= 0 || cursor.length > MAX_CURSOR_LENGTH) throw bad();
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
    const want = this.mac(payload);
    if (!sameSecret(given, want)) throw bad();
    let parsed: { v?: unknown; e?: unknown; o?: unknown; f?: unknown; k?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof parsed;
    } catch {
      throw bad();
    }
    if (parsed.v !== 1 || parsed.e !== scope.endpoint || parsed.o !== scope.organizationId || parsed.f !== scope.filters || typeof parsed.k !== 'string') throw bad();
    return parsed.k;
  }

  /**
   * One page of `items`, which must be sorted ascending by `keyOf` (a string compare, or pass
   * zero-padded numbers). `cursor` undefined starts at the beginning.
   */
  page<T>(scope: CursorScope, items: readonly T[], keyOf: (item: T) => string, limit: number, cursor: string | undefined): Page<T> {
    let start = 0;
    if (cursor !== undefined) {
      const after = this.decode(scope, cursor);
      start = items.findIndex((i) => keyOf(i) > after);
      if (start < 0) start = items.length;
    }
    const slice = items.slice(start, start + limit);
    const hasMore = start + limit < items.length;
    const last = slice[slice.length - 1];
    return { items: slice, pagination: { hasMore, nextCursor: hasMore && last !== undefined ? this.encode(scope, keyOf(last)) : null } };
  }
}
