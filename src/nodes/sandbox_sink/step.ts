/**
 * sandbox_sink, the pure part: the delivery of a sandbox partner or connection. Nothing leaves
 * the service: the document is kept as the sink result's output artifact and payload, where the
 * organization's sandbox keys may read it (DESIGN §3: a sandbox key reads the results, payloads
 * and artifacts its sandbox sink received; the adapter records the receipt: the result the sink
 * received, its own results, and every artifact they point to). Otherwise the delivery is like
 * any other:
 *
 * - an inbound document (a `usesSandbox` partner's inbound flow) is delivered as the feed and
 *   webhook deliveries are (`deliveredInbound`);
 * - an outbound document or a 997 (a sandbox connection) is delivered as an upload is
 *   (`deliveredOutbound`: `deliveredAt`, the outbound success feed entry, the outbound
 *   notification, `unacknowledged` when tracked), with the document as the result's payload.
 */
import { type ArtifactPointer, type ArtifactRecord, isoMicros } from '../../domain/records.ts';
import { deliveredDocument, deliveredInbound } from '../delivery.ts';
import { artifactId, failure, stepResultId } from '../outcomes.ts';
import { deliveredOutbound, transactionsOf, trackedOf } from '../outbound.ts';
import type { Effects, StepContext } from '../step.ts';

export interface SinkOutcome {
  readonly effects: Effects;
  /** What sandbox keys may read (recorded before the effects are written); empty when nothing was delivered. */
  readonly receipt: { readonly resultIds: readonly string[]; readonly artifactIds: readonly string[] };
}

const NOTHING = { resultIds: [], artifactIds: [] } as const;

/** The receipt of a delivery: the result the sink received, its own results, and the artifacts they point to. */
function receiptOf(ctx: StepContext, e: Effects): SinkOutcome['receipt'] {
  const m = ctx.message;
  const resultIds = [...(m.inputResultId ? [m.inputResultId] : []), ...e.results.map((r) => r.id)];
  const artifactIds = new Set<string>(m.artifacts.map((a) => a.id));
  for (const r of e.results) {
    for (const a of r.detail.artifacts ?? []) artifactIds.add(a.id);
    if (r.payload) artifactIds.add(r.payload.artifactId);
  }
  return { resultIds, artifactIds: [...artifactIds] };
}

export function sinkDelivery(ctx: StepContext, connectionName: string | null): SinkOutcome {
  const m = ctx.message;
  if (m.direction === 'inbound') {
    const doc = deliveredDocument(ctx);
    if (!doc) return { effects: failure(ctx, { transactionId: m.transactionId, message: 'No document reached the sandbox sink.', direction: 'inbound', at: ctx.now }), receipt: NOTHING };
    const e = deliveredInbound(ctx, doc, { direction: 'outbound', at: ctx.now, detail: { sandbox: { receivedAt: isoMicros(ctx.now), ...(connectionName ? { connection: connectionName } : {}) } } });
    return { effects: e, receipt: receiptOf(ctx, e) };
  }
  const document = m.artifacts[0];
  if (!document) return { effects: failure(ctx, { transactionId: m.transactionId, message: 'No document reached the sandbox sink.', direction: 'outbound', at: ctx.now }), receipt: NOTHING };
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
  return { effects: e, receipt: receiptOf(ctx, e) };
}
