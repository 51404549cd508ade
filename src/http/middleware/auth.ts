/**
 * `Authorization: Key <API_KEY>` for every /platform endpoint (contract "Authentication").
 * A missing, malformed, unknown or revoked key gives 401 `unauthorized`; the kind of the key
 * then decides each endpoint group (`requireAccess`, matrix in src/domain/api-keys.ts).
 */
import type { Middleware } from 'koa';
import { hashApiKey, isWellFormedKey, mayAccess, type EndpointGroup } from '../../domain/api-keys.ts';
import type { OrganizationStore } from '../../domain/config-ports.ts';
import { TdxError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { authOf, type AuthState } from './state.ts';

export interface AuthDeps {
  readonly keys: Pick<OrganizationStore, 'findKeyByHash' | 'touchKey'>;
  readonly logger: Logger;
  /** Minimum interval between `lastUsedAt` writes of one key from this process. @default 60000 */
  readonly touchIntervalMs?: number;
  /** How long this process reuses a valid key's lookup (a revocation takes effect within it; 0: never). @default 0 */
  readonly cacheMs?: number;
  /** Clock in milliseconds (tests). */
  readonly now?: () => number;
}

/** Keys whose lookup a process remembers at most. */
const CACHED_KEYS_MAX = 10_000;

const HEADER_RE = /^Key\s+(\S+)\s*$/i;

export function authenticate(deps: AuthDeps): Middleware {
  const touched = new Map<string, number>();
  const interval = deps.touchIntervalMs ?? 60_000;
  const clock = deps.now ?? Date.now;
  const cacheMs = deps.cacheMs ?? 0;
  type Found = Awaited<ReturnType<AuthDeps['keys']['findKeyByHash']>>;
  // Requests carrying the same key while its lookup is under way share that lookup; a valid key
  // is then reused for `cacheMs` (a revoked key is refused once that has passed).
  const pending = new Map<string, Promise<Found>>();
  const cached = new Map<string, { found: NonNullable<Found>; until: number }>();
  const lookup = (hash: string): Promise<Found> => {
    const hit = cached.get(hash);
    if (hit && hit.until > clock()) return Promise.resolve(hit.found);
    let p = pending.get(hash);
    if (!p) {
      p = deps.keys.findKeyByHash(hash).finally(() => pending.delete(hash));
      pending.set(hash, p);
      if (cacheMs > 0) {
        p.then(
          (found) => {
            cached.delete(hash);
            if (!found || found.revokedAt !== null) return;
            if (cached.size >= CACHED_KEYS_MAX) cached.delete(cached.keys().next().value!);
            cached.set(hash, { found, until: clock() + cacheMs });
          },
          () => undefined,
        );
      }
    }
    return p;
  };
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    const m = HEADER_RE.exec(header);
    const key = m?.[1];
    if (!key || !isWellFormedKey(key)) {
      throw new TdxError('unauthorized', header ? 'The Authorization header must be "Key <API_KEY>" with a valid key.' : 'An API key is required: send "Authorization: Key <API_KEY>".');
    }
    const found = await lookup(hashApiKey(key));
    if (!found || found.revokedAt !== null) throw new TdxError('unauthorized', 'The API key is not valid (unknown or revoked).');
    const auth: AuthState = { organizationId: found.organizationId, keyId: found.id, kind: found.kind };
    ctx.state['auth'] = auth;
    const now = Date.now();
    if ((touched.get(found.id) ?? 0) + interval <= now) {
      touched.set(found.id, now);
      deps.keys.touchKey(found.organizationId, found.id, new Date(now).toISOString()).catch((err: unknown) => {
        deps.logger.warn({ event: 'api:key-touch-failed', keyId: found.id, err }, 'could not record key use');
      });
    }
    await next();
  };
}

/** 403 `forbidden` unless the key's kind may call endpoints of `group`. */
export function requireAccess(group: EndpointGroup): Middleware {
  return async (ctx, next) => {
    const { kind } = authOf(ctx);
    if (!mayAccess(kind, group)) throw new TdxError('forbidden', `A ${kind} key may not call this endpoint.`);
    await next();
  };
}
