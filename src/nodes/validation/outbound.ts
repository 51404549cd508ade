/**
 * validation of outbound documents: the mapped JSON checked against the partner's
 * implementation before anything is written or sent.
 */
import type { NodeDeps } from '../ports.ts';
import { failure } from '../outcomes.ts';
import type { Effects, StepContext } from '../step.ts';

export function validateOutbound(ctx: StepContext, _deps: NodeDeps): Promise<Effects> {
  return Promise.resolve(failure(ctx, { transactionId: null, message: 'Outbound validation is not available in this build.', direction: 'outbound', at: ctx.now }));
}
