/**
 * What every inbound delivery step shares (feed, webhook, sandbox sink): the success result
 * with the delivered document as its `output` artifact (sharing the bytes of the document that
 * was mapped or translated), the transaction completed with its output role and the delivery
 * remembered for redelivery, and the success feed entry (whose createdAt becomes deliveredAt).
 */
import type { ArtifactPointer, ArtifactRecord, ResultDetail } from '../domain/records.ts';
import { JSON_CONTENT_TYPE } from '../domain/records.ts';
import { artifactId, feedRequest, log, result, stepResultId } from './outcomes.ts';
import { effects, type Effects, type StepContext } from './step.ts';

/** The document a delivery step hands over: the pointer the previous steps named as output. */
export function deliveredDocument(ctx: StepContext): ArtifactPointer | null {
  const m = ctx.message;
  const id = m.params['outputArtifactId'];
  return (id ? m.artifacts.find((a) => a.id === id) : undefined) ?? m.artifacts.find((a) => a.usage === 'mapped') ?? m.artifacts.find((a) => a.usage === 'translation') ?? null;
}

export interface Delivered {
  /** Extra detail of the delivery (`webhook`, `sftp`...). */
  readonly detail?: ResultDetail;
  /** Transfer direction of the step: a delivery to the organization's systems is `outbound`. */
  readonly direction: 'inbound' | 'outbound';
  /** When the delivery happened (the step's clock, or a retry's). */
  readonly at: number;
}

/** The effects of delivering an inbound document. */
export function deliveredInbound(ctx: StepContext, document: ArtifactPointer, d: Delivered): Effects {
  const m = ctx.message;
  const txId = m.transactionId;
  const rid = stepResultId(ctx, txId);
  const e = effects();
  const output: ArtifactRecord = {
    organizationId: m.organizationId,
    id: artifactId(rid, 'output'),
    traceGuid: m.traceGuid,
    resultId: rid,
    nodeName: ctx.node?.name ?? m.service,
    usage: 'output',
    contentType: document.contentType ?? JSON_CONTENT_TYPE,
    filename: document.filename,
    size: 0,
    sha256: '',
    blobId: document.id,
    createdAt: d.at,
  };
  e.artifacts.push({ record: output, bytes: null });
  const pointer: ArtifactPointer = { id: output.id, usage: 'output', contentType: output.contentType, filename: output.filename };
  const r = result(ctx, {
    id: rid,
    transactionId: txId,
    status: 'success',
    direction: d.direction,
    createdAt: d.at,
    detail: { transformations: ['x12_split', 'mapping', 'validation', m.service], ...(d.detail ?? {}) },
    artifacts: [...m.artifacts, pointer],
    payload: { artifactId: output.id, format: 'json' },
  });
  e.results.push(r);
  e.logs.push(log(ctx, rid, 0, 'info', m.service === 'feed' ? 'Placed on the feed for polling.' : m.service === 'webhook' ? `Delivered by webhook${typeof d.detail?.webhook?.['url'] === 'string' ? ` to ${d.detail.webhook['url']}` : ''}.` : `Delivered (${m.service}).`, d.at));
  if (txId) {
    e.updates.push({
      organizationId: m.organizationId,
      id: txId,
      traceGuid: m.traceGuid,
      completed: true,
      deliveryNodeId: m.nodeId,
      deliveryResultId: rid,
      deliveryInputResultId: m.inputResultId,
      roles: { output: { resultId: rid, nodeName: r.nodeName, artifact: pointer } },
    });
  }
  const f = feedRequest(r, 'inbound', { setsDeliveredAt: true });
  if (f) e.feed.push(f);
  return e;
}
