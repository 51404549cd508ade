/**
 * What the steps of an outbound flow share (pure): the ids of the documents of a submission,
 * the transaction of a document that failed before its EDI was written, the failure outcome of
 * such documents, and the delivery outcome of written ones (upload or sandbox sink).
 *
 * A submission becomes one transaction per transaction set: one when the mapped document is an
 * object, one per element when it is an array (the sets of one functional group). The ids are
 * deterministic from the trace and the set's position, so every step names the same rows.
 */
import { deterministicId, feedEntryId } from '../domain/ids.ts';
import type { EnvelopeRecord, TransactionSetSetting } from '../domain/configuration.ts';
import type { ArtifactPointer, Micros, ResultDetail, StoredTransaction, TransactionUpdate } from '../domain/records.ts';
import { failure, feedRequest, notification, result, stepResultId } from './outcomes.ts';
import { effects, mergeEffects, type Effects, type StepContext } from './step.ts';

/** Id of the transaction of the n-th set (0-based) of an outbound submission. */
export function outboundTransactionId(traceGuid: string, index: number): string {
  return deterministicId('transaction', traceGuid, 'outbound', index);
}

/** The transactions a work item is about: `params.transactionIds` (JSON), else its transactionId. */
export function transactionsOf(ctx: StepContext): string[] {
  const m = ctx.message;
  const listed = m.params['transactionIds'];
  if (listed) {
    try {
      const ids = JSON.parse(listed) as unknown;
      if (Array.isArray(ids) && ids.length > 0 && ids.every((x) => typeof x === 'string')) return ids;
    } catch {
      /* fall back to the work item's own transaction */
    }
  }
  return m.transactionId ? [m.transactionId] : [];
}

/** What is known of an outbound document before its EDI exists. */
export interface Unwritten {
  readonly setting: TransactionSetSetting | null;
  readonly internal: EnvelopeRecord | null;
  readonly external: EnvelopeRecord | null;
}

/**
 * The transaction of an outbound document that failed before its EDI was written: the set,
 * release, usage indicator and parties as configured, no control numbers (empty: none was
 * assigned), `reference` null (contract: null for an outbound document that failed before its
 * EDI was written), `acknowledgmentStatus` null.
 */
export function unwrittenTransaction(ctx: StepContext, index: number, u: Unwritten): StoredTransaction {
  const m = ctx.message;
  const at = ctx.now + index;
  return {
    id: outboundTransactionId(m.traceGuid, index),
    organizationId: m.organizationId,
    traceGuid: m.traceGuid,
    direction: 'outbound',
    usageIndicator: m.usageIndicator ?? u.setting?.usageIndicator ?? 'P',
    partnerKey: m.partnerKey,
    transactionSetIdentifier: m.params['transactionSetIdentifier'] ?? u.setting?.transactionSetIdentifier ?? '',
    release: u.setting?.release ?? m.params['release'] ?? '',
    reference: null,
    senderQualifier: u.internal?.interchangeExtidQualifier.trim() ?? '',
    senderExtid: u.internal?.interchangeExtid.trim() ?? '',
    receiverQualifier: u.external?.interchangeExtidQualifier.trim() ?? '',
    receiverExtid: u.external?.interchangeExtid.trim() ?? '',
    interchangeControlNumber: '',
    groupControlNumber: '',
    transactionSetControlNumber: '',
    duplicateOf: null,
    flowId: ctx.flow?.id ?? null,
    flowVersion: ctx.flow?.versionNumber ?? null,
    flowName: ctx.flow?.name ?? null,
    createdAt: at,
    failed: false,
    failedNodeName: null,
    completed: false,
    deliveredAt: null,
    warningCount: 0,
    acknowledgmentStatus: null,
    acknowledgedBy: null,
    acknowledges: null,
    resendCount: 0,
    lastResentAt: null,
    roles: m.params['entryResultId'] ? { input: { resultId: m.params['entryResultId'], nodeName: ctx.flow?.nodes[0]?.name ?? 'Partner endpoint', artifact: null } } : {},
    deliveryNodeId: null,
    deliveryResultId: null,
    deliveryInputResultId: null,
    updatedAt: at,
  };
}

/** The failure of one document of a submission before its EDI was written. */
export interface DocumentFailure {
  /** 0-based position of the document in the submission. */
  readonly index: number;
  /** One sentence (errorMessage). */
  readonly message: string;
  readonly errors?: readonly string[];
}

/**
 * Failures of documents that were never written: each document's transaction is recorded (so
 * the failed submission is listed, status `error`) and gets its own error result, feed error
 * entry and error notification. Nothing goes on: no document of a group is sent when one fails.
 */
export function unwrittenFailure(ctx: StepContext, u: Unwritten, failures: readonly DocumentFailure[], detail: ResultDetail = {}): Effects {
  const e = effects();
  for (const f of failures) {
    const tx = unwrittenTransaction(ctx, f.index, u);
    e.transactions.push(tx);
    mergeEffects(
      e,
      failure(ctx, {
        resultId: stepResultId(ctx, tx.id),
        transactionId: tx.id,
        message: f.message,
        ...(f.errors ? { errors: f.errors } : {}),
        direction: 'outbound',
        at: tx.createdAt,
        detail,
      }),
    );
  }
  return e;
}

/** A delivery of a written outbound document (an upload, a sandbox sink). */
export interface OutboundDelivery {
  readonly document: ArtifactPointer;
  /** Transfer detail (`sftp`, `sandbox`). */
  readonly detail: ResultDetail;
  /** The document is the result's payload (a sink keeps it; an upload only moves it on). */
  readonly keepsPayload: boolean;
  /** The partner tracked acknowledgments when the document was written (never for a 997 we sent: `trackedOf`). */
  readonly tracked: boolean;
}

/** Whether a written document is tracked: as x12_write decided (`params.trackAcknowledgments`), never for our own 997s. */
export function trackedOf(ctx: StepContext): boolean {
  const m = ctx.message;
  if (m.params['purpose'] === 'acknowledgment') return false;
  const flag = m.params['trackAcknowledgments'];
  return flag === undefined ? (ctx.partner?.trackAcknowledgments ?? false) : flag === 'true';
}

/**
 * The effects of delivering a written document to the partner: for each of its transactions a
 * success result, the transaction completed (status `delivered`; `deliveredAt` from the success
 * feed entry), `acknowledgmentStatus` `unacknowledged` when tracked (written as of the step's
 * clock, so a 997 taken up later always wins over it, whatever order the two are applied in),
 * the outbound success feed entry and the partner's outbound notification.
 */
export function deliveredOutbound(ctx: StepContext, d: OutboundDelivery): Effects {
  const m = ctx.message;
  const e = effects();
  const txIds = transactionsOf(ctx);
  const ids: (string | null)[] = txIds.length > 0 ? txIds : [null];
  const purpose = m.params['purpose'] === 'acknowledgment' ? 'ack_generate' : 'x12_write';
  for (const [i, txId] of ids.entries()) {
    const rid = stepResultId(ctx, txId);
    const scoped: StepContext = { ...ctx, message: { ...m, transactionId: txId } };
    const at: Micros = ctx.now + i;
    const r = result(scoped, {
      id: rid,
      transactionId: txId,
      status: 'success',
      direction: 'outbound',
      createdAt: at,
      detail: { transformations: [purpose, m.service], ...d.detail },
      artifacts: [d.document],
      payload: d.keepsPayload ? { artifactId: d.document.id, format: 'edi' } : null,
    });
    e.results.push(r);
    if (txId) {
      const u: TransactionUpdate = {
        organizationId: m.organizationId,
        id: txId,
        traceGuid: m.traceGuid,
        completed: true,
        deliveryNodeId: m.nodeId,
        deliveryResultId: rid,
        deliveryInputResultId: m.inputResultId,
      };
      e.updates.push(u);
      if (d.tracked && !m.resend) e.updates.push({ organizationId: m.organizationId, id: txId, traceGuid: m.traceGuid, acknowledgmentStatus: 'unacknowledged', at: ctx.now });
    }
    const fr = feedRequest(r, 'outbound', { setsDeliveredAt: true });
    // A resent business document republishes its first delivery's entry, which the feed
    // collapses (no new entry); a resent 997 has an entry of its own.
    const collapse = m.resend ? m.params['collapseFeedInto'] : undefined;
    if (fr) e.feed.push(collapse ? { ...fr, id: feedEntryId(collapse), resultId: collapse } : fr);
    const n = notification(scoped, ctx.partner, 'outbound', 'outbound_delivered', r);
    if (n) e.emit.push(n);
  }
  return e;
}

/** Failure of a delivery attempt for each of the work item's transactions. */
export function deliveryFailure(ctx: StepContext, message: string, detail: ResultDetail, artifacts: readonly ArtifactPointer[]): Effects {
  const e = effects();
  const txIds = transactionsOf(ctx);
  const ids: (string | null)[] = txIds.length > 0 ? txIds : [null];
  for (const txId of ids) {
    const scoped: StepContext = { ...ctx, message: { ...ctx.message, transactionId: txId } };
    mergeEffects(e, failure(scoped, { resultId: stepResultId(ctx, txId), transactionId: txId, message, direction: 'outbound', at: ctx.now, detail, artifacts }));
  }
  return e;
}
