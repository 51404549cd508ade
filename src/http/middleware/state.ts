/**
 * What the /platform middleware leaves on `ctx.state` for the handlers after it.
 */
import type { Context } from 'koa';
import type { KeyKind } from '../../domain/api-keys.ts';
import { TdxError } from '../../errors.ts';

export interface AuthState {
  readonly organizationId: string;
  readonly keyId: string;
  readonly kind: KeyKind;
}

/** The authenticated key of the request (set by `authenticate`). */
export function authOf(ctx: Context): AuthState {
  const a = ctx.state['auth'] as AuthState | undefined;
  if (!a) throw new TdxError('unauthorized', 'An API key is required: send "Authorization: Key <API_KEY>".');
  return a;
}
