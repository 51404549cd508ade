/**
 * validation, the pure part, inbound: the set was validated against the partner's
 * implementation as it was split (one pass with the translation; the findings feed the 997).
 * This step records what was found: a finding never stops delivery (the 997 tells the partner),
 * so the result is a success that lists the findings in `errors`, with a warning log entry.
 */
import type { ResultDetail } from '../../domain/records.ts';
import { log, next, result, stepResultId } from '../outcomes.ts';
import { effects, type Effects, type StepContext } from '../step.ts';

export function validatedInbound(ctx: StepContext): Effects {
  const m = ctx.message;
  const rid = stepResultId(ctx, m.transactionId);
  const count = Number(m.params['findingCount'] ?? '0') || 0;
  let findings: string[] = [];
  try {
    findings = JSON.parse(m.params['findings'] ?? '[]') as string[];
  } catch {
    findings = [];
  }
  const detail: ResultDetail = { transformations: ['x12_split', 'mapping', 'validation'] };
  const e = effects();
  if (count > 0) {
    detail.errors = findings;
    const more = count - findings.length;
    e.logs.push(
      log(ctx, rid, 0, 'warn', `${count} finding${count === 1 ? '' : 's'} against the partner's implementation (the acknowledgment rejects the set): ${findings[0] ?? ''}${count > 1 ? `, and ${count - 1} other${count > 2 ? 's' : ''}` : ''}${more > 0 ? ` (${more} not listed)` : ''}.`),
    );
  }
  const output = m.params['outputArtifactId'];
  e.results.push(
    result(ctx, {
      id: rid,
      transactionId: m.transactionId,
      status: 'success',
      direction: 'inbound',
      createdAt: ctx.now,
      detail,
      artifacts: m.artifacts,
      payload: output ? { artifactId: output, format: 'json' } : null,
    }),
  );
  e.emit.push(...next(ctx, { inputResultId: rid, artifacts: m.artifacts, createdAt: ctx.now + 1, params: { ...m.params } }));
  return e;
}
