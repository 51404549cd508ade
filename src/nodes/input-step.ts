/**
 * The input step of a flow (partner_endpoint; sftp_fetch and as2_receive share it): records the
 * result of receiving a document — the stored input as its artifact and payload, with what the
 * transport knew (`detail.sftp`, `detail.as2`) — and hands the document to the next node.
 * The bytes were stored before this work item was produced (by the API, the poller or the AS2
 * endpoint), so nothing received is ever only in a message.
 */
import { EDI_CONTENT_TYPE, type ArtifactPointer, type ResultDetail } from '../domain/records.ts';
import { failure, log, next, result, stepResultId } from './outcomes.ts';
import { effects, type Effects, type StepContext } from './step.ts';

/** Transport details a work item carries in `params` under a prefix (`sftp.filename`...). */
export function transportDetail(params: Readonly<Record<string, string>>, prefix: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (k.startsWith(`${prefix}.`)) out[k.slice(prefix.length + 1)] = v;
  return Object.keys(out).length > 0 ? out : null;
}

/** Receiving an inbound document. */
export function receiveInbound(ctx: StepContext, stored: boolean): Effects {
  const m = ctx.message;
  const input: ArtifactPointer | undefined = m.artifacts.find((a) => a.usage === 'input') ?? m.artifacts[0];
  if (!input || !stored) {
    return failure(ctx, { transactionId: null, message: `The received document ${input?.filename ?? input?.id ?? ''} is not stored; nothing to process.`.replace('  ', ' '), direction: 'inbound', at: ctx.now });
  }
  const detail: ResultDetail = { transformations: [m.service] };
  const sftp = transportDetail(m.params, 'sftp');
  if (sftp) detail.sftp = sftp;
  const as2 = transportDetail(m.params, 'as2');
  if (as2) detail['as2'] = as2;
  const rid = stepResultId(ctx, null);
  const e = effects();
  e.results.push(
    result(ctx, {
      id: rid,
      transactionId: null,
      status: 'success',
      direction: 'inbound',
      createdAt: ctx.now,
      detail,
      artifacts: [input],
      payload: { artifactId: input.id, format: input.contentType === EDI_CONTENT_TYPE || input.contentType === null ? 'edi' : 'json' },
    }),
  );
  const via = sftp ? ` over SFTP from ${sftp['host'] ?? ''}:${sftp['path'] ?? sftp['filename'] ?? ''}` : as2 ? ` over AS2 (message ${as2['messageId'] ?? ''})` : ' through the partner endpoint';
  e.logs.push(log(ctx, rid, 0, 'info', `Received ${input.filename ?? input.id}${via}.`));
  e.emit.push(...next(ctx, { transactionId: null, inputResultId: rid, artifacts: [input], createdAt: ctx.now + 1 }));
  return e;
}
