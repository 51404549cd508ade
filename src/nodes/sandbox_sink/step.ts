/**
 * sandbox_sink, the pure part: the delivery of a sandbox partner or connection. Nothing leaves
 * the service: the document is kept as the sink result's output artifact and payload, where the
 * organization's sandbox keys may read it (DESIGN §3: a sandbox key reads the results, payloads
 * and artifacts its sandbox sink received; the step's effects carry the receipt: the result the
 * sink received, its own results, and every artifact they point to). Otherwise the delivery is like
 * any other:
 *
 * - an inbound document (a `usesSandbox` partner's inbound flow) is delivered as the feed and
 *   webhook deliveries are (`deliveredInbound`);
 * - an outbound document or a 997 (a sandbox connection) is delivered as an upload is
 *   (`deliveredOutbound`: `deliveredAt`, the outbound success feed entry, the outbound
 *   notification, `unacknowledged` when tracked), with the document as the result's payload.
 */
import { type ArtifactPointer, type ArtifactRecord, isoMicros } from '../../domain/records.ts';
import { watchAcknowledgments } from '../deadlines.ts';
import { deliveredDocument, deliveredInbound } from '../delivery.ts';
import { artifactId, failure, stepResultId } from '../outcomes.ts';
import { deliveredOutbound, transactionsOf, trackedOf } from '../outbound.ts';
import type { Effects, StepContext } from '../step.ts';

/**
 * Notes the receipt of a delivery in `e` when it delivered (what the organization's sandbox keys
 * may read: the result the sink received, its own results, and the artifacts they point to), and
 * for an outbound document the deadline of its acknowledgment. Returns `e`.
 */
function received(ctx: StepContext, e: Effects): Effects {
  if (!e.results.some((r) => r.status === 'success')) return e;
  const m = ctx.message;
  const resultIds = [...(m.inputResultId ? [m.inputResultId] : []), ...e.results.map((r) => r.id)];
  const artifactIds = new Set<string>(m.artifacts.map((a) => a.id));
  for (const r of e.results) {
    for (const a of r.detail.artifacts ?? []) artifactIds.add(a.id);
    if (r.payload) artifactIds.add(r.payload.artifactId);
  }
  e.sandboxReceipts.push({ organizationId: m.organizationId, resultIds, artifactIds: [...artifactIds], receivedAt: ctx.now });
  return m.direction === 'outbound' ? watchAcknowledgments(e, ctx, trackedOf(ctx)) : e;
}

export function sinkDelivery(ctx: StepContext, connectionName: string | null): Effects {
  const m = ctx.message;
  if (m.direction === 'inbound') {
    const doc = deliveredDocument(ctx);
    if (!doc) return failure(ctx, { transactionId: m.transactionId, message: 'No document reached the sandbox sink.', direction: 'inbound', at: ctx.now });
    const e = deliveredInbound(ctx, doc, { direction: 'outbound', at: ctx.now, detail: { sandbox: { receivedAt: isoMicros(ctx.now), ...(connectionName ? { connection: connectionName } : {}) } } });
    return received(ctx, e);
  }
  const document = m.artifacts[0];
  if (!document) return failure(ctx, { transactionId: m.transactionId, message: 'No document reached the sandbox sink.', direction: 'outbound', at: ctx.now });
  // the sink's own copy (sharing the written bytes), so what a sandbox key may read is the sink's
  const first = stepResultId(ctx, transactionsOf(ctx)[0] ?? null);
  const copy: ArtifactRecord = {
    organizationId: m.organizationId,
    id: artifactId(first, 'output'),
    traceGuid: m.traceGuid,
    resultId: first,
    nodeName: ctx.node?.name ?? 'Sandbox sink',
    usage: 'output',
    contentType: document.contentType,
    filename: document.filename,
    size: 0,
    sha256: '',
    blobId: document.id,
    createdAt: ctx.now,
  };
  const pointer: ArtifactPointer = { id: copy.id, usage: 'output', contentType: copy.contentType, filename: copy.filename };
  const e = deliveredOutbound(ctx, { document: pointer, detail: { sandbox: { receivedAt: isoMicros(ctx.now), ...(connectionName ? { connection: connectionName } : {}) } }, keepsPayload: true, tracked: trackedOf(ctx) });
  e.artifacts.unshift({ record: copy, bytes: null });
  return received(ctx, e);
}
