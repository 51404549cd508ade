/**
 * The entry of an outbound flow: the organization's JSON document, stored by the API, is
 * recorded as the entry result (its payload; the contract keeps an outbound submission in the
 * result's data, not as an artifact pointer) and handed to the mapping.
 */
import type { ResultDetail } from '../../domain/records.ts';
import { failure, next, result, stepResultId } from '../outcomes.ts';
import { effects, type Effects, type StepContext } from '../step.ts';

export function receiveOutbound(ctx: StepContext, stored: boolean): Effects {
  const m = ctx.message;
  const submission = m.artifacts[0];
  if (!submission || !stored) {
    return failure(ctx, { transactionId: null, message: 'The submitted document is not stored; nothing to process.', direction: 'outbound', at: ctx.now });
  }
  const rid = stepResultId(ctx, null);
  const detail: ResultDetail = { transformations: ['partner_endpoint'] };
  if (m.usageIndicator !== null) detail.usageIndicator = m.usageIndicator;
  const e = effects();
  e.results.push(result(ctx, { id: rid, transactionId: null, status: 'success', direction: 'outbound', createdAt: ctx.now, detail, payload: { artifactId: submission.id, format: 'json' } }));
  // the entry result is every outbound transaction's `input` role (the submitted JSON is its data)
  e.emit.push(...next(ctx, { transactionId: null, inputResultId: rid, artifacts: [submission], createdAt: ctx.now + 1, params: { ...m.params, entryResultId: rid } }));
  return e;
}
