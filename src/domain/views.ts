/**
 * The contract's representations of processing records (contract: "Resources and their
 * fields"): what the API returns and what a feed entry embeds. One function per shape, so the
 * list, the detail and the feed always agree on a field's value.
 */
import {
  ARTIFACT_ROLES,
  isoMicros,
  statusOf,
  type ArtifactPointer,
  type ArtifactRoleRecord,
  type FeedEntryRecord,
  type ResultRecord,
  type StoredTransaction,
  type WarningRecord,
} from './records.ts';
import type { FeedListRow, LogListRow, TransactionListRow } from './records-query.ts';
import type { TraceError } from './processing-ports.ts';

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

/** The list fields of a stored transaction (what the projection keeps of it, `transactionRow`). */
export function transactionListRowOf(t: StoredTransaction): TransactionListRow {
  return {
    id: t.id,
    traceGuid: t.traceGuid,
    direction: t.direction,
    usageIndicator: t.usageIndicator,
    partnerKey: t.partnerKey,
    transactionSetIdentifier: t.transactionSetIdentifier,
    reference: t.reference,
    senderQualifier: t.senderQualifier,
    senderExtid: t.senderExtid,
    receiverQualifier: t.receiverQualifier,
    receiverExtid: t.receiverExtid,
    interchangeControlNumber: t.interchangeControlNumber,
    groupControlNumber: t.groupControlNumber,
    transactionSetControlNumber: t.transactionSetControlNumber,
    status: statusOf(t),
    deliveredAt: t.deliveredAt,
    warningCount: t.warningCount,
    acknowledgmentStatus: t.acknowledgmentStatus,
    resendCount: t.resendCount,
    lastResentAt: t.lastResentAt,
    duplicateOf: t.duplicateOf,
    createdAt: t.createdAt,
    updatedAt: Math.max(t.updatedAt, t.createdAt),
  };
}

/** Contract: EDI transaction, the fields of list rows (and of the detail), from the list fields. */
export function transactionListRowView(t: TransactionListRow): Record<string, unknown> {
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
    status: t.status,
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

/** Contract: EDI transaction, the fields of list rows (and of the detail). */
export function transactionRowView(t: StoredTransaction): Record<string, unknown> {
  return transactionListRowView(transactionListRowOf(t));
}

/** Contract: compact transaction row, exactly these twelve fields. */
export function compactTransactionListRowView(t: TransactionListRow): Record<string, unknown> {
  return {
    id: t.id,
    createdAt: isoMicros(t.createdAt),
    direction: t.direction,
    usageIndicator: t.usageIndicator,
    partnerKey: t.partnerKey,
    transactionSetIdentifier: t.transactionSetIdentifier,
    reference: t.reference,
    status: t.status,
    acknowledgmentStatus: t.acknowledgmentStatus,
    warningCount: t.warningCount,
    deliveredAt: t.deliveredAt === null ? null : isoMicros(t.deliveredAt),
    traceGuid: t.traceGuid,
  };
}

/** Contract: compact transaction row, exactly these twelve fields. */
export function compactTransactionView(t: StoredTransaction): Record<string, unknown> {
  return compactTransactionListRowView(transactionListRowOf(t));
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

/** What the transaction detail is built from (all read from the system of record). */
export interface TransactionDetailSource {
  readonly transaction: StoredTransaction;
  /** The results shown: the transaction's own, or the whole trace's when none is attributed to any transaction; oldest first. */
  readonly results: readonly ResultRecord[];
  /** Whether the trace recorded any result at all (`flowName` is null when it did not). */
  readonly traceHasResults: boolean;
  /** Failures recorded on the trace; the first one of another transaction is the one the detail names. */
  readonly traceErrors: readonly TraceError[];
}

/** Contract: EDI transaction detail (every list field plus the detail-only fields). */
export function transactionDetailView(s: TransactionDetailSource): Record<string, unknown> {
  const t = s.transaction;
  // another document of the trace failed while this one did not; errors of no transaction
  // (a part of the interchange that could not be read) are failures of another document too
  const elsewhere = t.failed ? undefined : s.traceErrors.find((e) => e.transactionId !== t.id);
  return {
    ...transactionRowView(t),
    acknowledgedBy: t.acknowledgedBy,
    acknowledges: t.acknowledges,
    warnings: transactionWarnings(s.results),
    flowName: s.traceHasResults ? t.flowName : null,
    traceErroredElsewhere: elsewhere !== undefined,
    traceErroredElsewhereNodeName: elsewhere?.nodeName ?? null,
    artifacts: Object.fromEntries(ARTIFACT_ROLES.map((role) => [role, artifactRoleView(t.roles[role])])),
    results: s.results.map(resultView),
  };
}

/** Contract: Log entry. */
export function logEntryView(l: LogListRow): Record<string, unknown> {
  return { id: l.id, level: l.level, message: l.message, nodeName: l.nodeName, traceGuid: l.traceGuid, createdAt: isoMicros(l.createdAt) };
}

/** Contract: Feed entry, from the projection's row. */
export function feedListRowView(e: FeedListRow): Record<string, unknown> {
  return feedEntryView({ ...e, organizationId: '' });
}

/** What the trace view (DESIGN §3, GET /platform/traces/:guid) is built from. */
export interface TraceSource {
  readonly traceGuid: string;
  readonly transactions: readonly StoredTransaction[];
  /** Every result of the trace, oldest first. */
  readonly results: readonly ResultRecord[];
  /** Each artifact the results point to, once, with the result and node that produced it, oldest first. */
  readonly artifacts: readonly (ArtifactPointer & { readonly resultId: string; readonly nodeName: string })[];
  readonly flow: { readonly id: string; readonly name: string; readonly versionNumber: number; readonly direction: string } | null;
}

/** DESIGN §3: a whole run, with every artifact once and the node that produced it. */
export function traceView(s: TraceSource): Record<string, unknown> {
  const firstTx = s.transactions[0];
  const times = [...s.transactions.map((t) => t.createdAt), ...s.results.map((r) => r.createdAt)];
  return {
    traceGuid: s.traceGuid,
    direction: s.flow?.direction ?? firstTx?.direction ?? null,
    partnerKey: firstTx?.partnerKey ?? s.results.find((r) => r.partnerKey !== null)?.partnerKey ?? null,
    flow: s.flow ? { id: s.flow.id, name: s.flow.name, versionNumber: s.flow.versionNumber } : null,
    createdAt: times.length > 0 ? isoMicros(Math.min(...times)) : null,
    transactions: s.transactions.map((t) => ({ id: t.id, transactionSetIdentifier: t.transactionSetIdentifier, status: statusOf(t) })),
    results: s.results.map(compactResultView),
    artifacts: s.artifacts.map((a) => ({ id: a.id, usage: a.usage, contentType: a.contentType, filename: a.filename, resultId: a.resultId, nodeName: a.nodeName })),
  };
}
