/**
 * The contract's representations of processing records (contract: "Resources and their
 * fields"): what the API returns and what a feed entry embeds. One function per shape, so the
 * list, the detail and the feed always agree on a field's value.
 */
import {
  isoMicros,
  statusOf,
  type ArtifactRoleRecord,
  type FeedEntryRecord,
  type ResultRecord,
  type StoredTransaction,
  type WarningRecord,
} from './records.ts';

/** Contract: Result. */
export interface ResultView {
  readonly id: string;
  readonly traceGuid: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly nodeName: string;
  readonly nodeId: string;
  readonly status: string;
  readonly detail: Record<string, unknown>;
}

export function resultView(r: ResultRecord): ResultView {
  return {
    id: r.id,
    traceGuid: r.traceGuid,
    createdAt: isoMicros(r.createdAt),
    updatedAt: isoMicros(r.updatedAt),
    nodeName: r.nodeName,
    nodeId: r.nodeId,
    status: r.status,
    detail: r.detail,
  };
}

/** Most characters of `errorMessage` in a compact result. */
export const COMPACT_ERROR_MESSAGE_CHARS = 200;

/** Contract: compact result (`compact=true`). */
export function compactResultView(r: ResultRecord): Record<string, unknown> {
  const message = typeof r.detail.errorMessage === 'string' ? r.detail.errorMessage : null;
  return {
    id: r.id,
    traceGuid: r.traceGuid,
    createdAt: isoMicros(r.createdAt),
    nodeName: r.nodeName,
    status: r.status,
    partnerKey: r.partnerKey,
    errorMessage: message === null ? null : [...message].slice(0, COMPACT_ERROR_MESSAGE_CHARS).join(''),
  };
}

/** Contract: Feed entry. `detail` is the embedded result object (stored as JSON text). */
export function feedEntryView(e: FeedEntryRecord): Record<string, unknown> {
  return {
    id: e.id,
    direction: e.direction,
    status: e.status,
    createdAt: isoMicros(e.createdAt),
    partnerKey: e.partnerKey,
    traceGuid: e.traceGuid,
    resultId: e.resultId,
    detail: JSON.parse(e.detail) as unknown,
  };
}

/** Contract: EDI transaction, the fields of list rows (and of the detail). */
export function transactionRowView(t: StoredTransaction): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id: t.id,
    direction: t.direction,
    incoming: t.direction === 'inbound',
    usageIndicator: t.usageIndicator,
    partnerKey: t.partnerKey,
    transactionSetIdentifier: t.transactionSetIdentifier,
    reference: t.reference,
    senderExtid: t.senderExtid,
    senderQualifier: t.senderQualifier,
    receiverExtid: t.receiverExtid,
    receiverQualifier: t.receiverQualifier,
    interchangeControlNumber: t.interchangeControlNumber,
    groupControlNumber: t.groupControlNumber,
    transactionSetControlNumber: t.transactionSetControlNumber,
    traceGuid: t.traceGuid,
    status: statusOf(t),
    deliveredAt: t.deliveredAt === null ? null : isoMicros(t.deliveredAt),
    warningCount: t.warningCount,
    acknowledgmentStatus: t.acknowledgmentStatus,
    resendCount: t.resendCount,
    lastResentAt: t.lastResentAt === null ? null : isoMicros(t.lastResentAt),
    createdAt: isoMicros(t.createdAt),
    updatedAt: isoMicros(Math.max(t.updatedAt, t.createdAt)),
  };
  // contract: "Value when no earlier transaction exists: not shown"
  if (t.duplicateOf !== null) row['duplicateOf'] = t.duplicateOf;
  return row;
}

/** Contract: compact transaction row, exactly these twelve fields. */
export function compactTransactionView(t: StoredTransaction): Record<string, unknown> {
  return {
    id: t.id,
    createdAt: isoMicros(t.createdAt),
    direction: t.direction,
    usageIndicator: t.usageIndicator,
    partnerKey: t.partnerKey,
    transactionSetIdentifier: t.transactionSetIdentifier,
    reference: t.reference,
    status: statusOf(t),
    acknowledgmentStatus: t.acknowledgmentStatus,
    warningCount: t.warningCount,
    deliveredAt: t.deliveredAt === null ? null : isoMicros(t.deliveredAt),
    traceGuid: t.traceGuid,
  };
}

/** Contract: Artifact role object. */
export function artifactRoleView(role: ArtifactRoleRecord | undefined): Record<string, unknown> | null {
  if (!role) return null;
  if (!role.artifact) return { resultId: role.resultId, nodeName: role.nodeName };
  return {
    id: role.artifact.id,
    usage: role.artifact.usage,
    contentType: role.artifact.contentType,
    filename: role.artifact.filename,
    resultId: role.resultId,
    nodeName: role.nodeName,
  };
}

/** Every warning raised by a transaction's results, each with the result that raised it. */
export function transactionWarnings(results: readonly ResultRecord[]): (WarningRecord & { resultId: string })[] {
  const out: (WarningRecord & { resultId: string })[] = [];
  for (const r of results) for (const w of r.detail.warnings ?? []) out.push({ ...w, resultId: r.id });
  return out;
}
