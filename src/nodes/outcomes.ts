/**
 * Pure building blocks of step outcomes: deterministic ids, results with the contract's
 * `detail` fields, the routing of work along a flow's graph, log entries, feed requests and the
 * failure outcome every step shares.
 */
import { deterministicId, feedEntryId, resultId } from '../domain/ids.ts';
import type { FlowNode, FlowRecord, PartnerRecord } from '../domain/configuration.ts';
import type { NodeService } from '../domain/node-services.ts';
import {
  type ArtifactPointer,
  type FeedRequest,
  type LogLevel,
  type LogRecord,
  type Micros,
  type PayloadRef,
  type ResultDetail,
  type ResultRecord,
  type ResultStatus,
  type WarningRecord,
} from '../domain/records.ts';
import { resultView } from '../domain/views.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import { effects, type Effects, type Emission, type StepContext } from './step.ts';

/** Id of an artifact a result produced: one per (result, usage, part). */
export function artifactId(ofResult: string, usage: string, part: string | number = ''): string {
  return deterministicId('artifact', ofResult, usage, part);
}

/** Id of a work item sent to `nodeId` for `transactionId` (attempts and purposes make it distinct). */
export function workId(traceGuid: string, nodeId: string, transactionId: string | null, ...more: ReadonlyArray<string | number>): string {
  return deterministicId('stage', traceGuid, nodeId, transactionId ?? '', ...more);
}

/**
 * Id of the work item that tries `itemId`'s work again as attempt `attempt` (a delivery retried
 * through the delay topics). Derived from the failing item, so a redelivered failure schedules
 * the same retry, and attempts of one delivery never share an id.
 */
export function retryWorkId(itemId: string, attempt: number): string {
  return deterministicId('stage-retry', itemId, attempt);
}

/** Id of the n-th log entry of a step run. */
export function logId(owner: string, seq: number): string {
  return deterministicId('log', owner, seq);
}

/** The node service a flow node runs. */
export function serviceOf(node: FlowNode): NodeService {
  return node.service;
}

/** The nodes that follow `nodeId` in the flow's graph, in graph order. */
export function successors(flow: FlowRecord, nodeId: string): FlowNode[] {
  const ids = flow.connections.filter((c) => c.from === nodeId).map((c) => c.to);
  return ids.map((id) => flow.nodes.find((n) => n.id === id)).filter((n): n is FlowNode => n !== undefined);
}

/** The result id of the step a context runs (replays run with a higher attempt). */
export function stepResultId(ctx: StepContext, transactionId: string | null, nodeId = ctx.message.nodeId ?? ctx.message.service): string {
  return resultId(ctx.message.traceGuid, nodeId, transactionId, ctx.message.attempt);
}

export interface ResultInput {
  readonly id?: string;
  readonly transactionId: string | null;
  readonly status: ResultStatus;
  /** Transfer direction of the step (contract: detail.direction). */
  readonly direction: 'inbound' | 'outbound';
  readonly createdAt: Micros;
  readonly detail?: ResultDetail;
  readonly artifacts?: readonly ArtifactPointer[];
  readonly warnings?: readonly WarningRecord[];
  readonly payload?: PayloadRef | null;
  readonly node?: { readonly id: string; readonly name: string; readonly service: string };
}

/**
 * A result of the step in `ctx`, with the detail fields every result carries: `direction`,
 * `partner`, `usageIndicator` (once known), `artifacts`, `warnings`, `resend`.
 */
export function result(ctx: StepContext, input: ResultInput): ResultRecord {
  const m = ctx.message;
  const node = input.node ?? { id: ctx.node?.id ?? m.nodeId ?? m.service, name: ctx.node?.name ?? m.service, service: m.service };
  const detail: ResultDetail = { direction: input.direction };
  if (m.partnerKey !== null) detail.partner = { key: m.partnerKey };
  Object.assign(detail, input.detail ?? {});
  if (detail.usageIndicator === undefined && m.usageIndicator !== null) detail.usageIndicator = m.usageIndicator;
  if (input.warnings && input.warnings.length > 0) detail.warnings = [...input.warnings];
  if (input.artifacts && input.artifacts.length > 0) detail.artifacts = dedupePointers(input.artifacts);
  if (m.resend) detail.resend = true;
  return {
    id: input.id ?? resultId(m.traceGuid, node.id, input.transactionId, m.attempt),
    organizationId: m.organizationId,
    traceGuid: m.traceGuid,
    transactionId: input.transactionId,
    flowId: m.flowId,
    nodeId: node.id,
    nodeName: node.name,
    service: node.service,
    status: input.status,
    direction: input.direction,
    partnerKey: m.partnerKey,
    resend: m.resend,
    detail,
    payload: input.payload ?? null,
    createdAt: input.createdAt,
    updatedAt: input.createdAt,
  };
}

/** Artifact pointers with each id once (the first usage wins). */
export function dedupePointers(list: readonly ArtifactPointer[]): ArtifactPointer[] {
  const seen = new Set<string>();
  const out: ArtifactPointer[] = [];
  for (const a of list) {
    if (seen.has(a.id)) continue;
    seen.add(a.id);
    out.push({ id: a.id, usage: a.usage, contentType: a.contentType, filename: a.filename });
  }
  return out;
}

/** A log entry of a step run; `seq` orders the entries of one run. */
export function log(ctx: StepContext, owner: string, seq: number, level: LogLevel, message: string, at: Micros = ctx.now): LogRecord {
  return {
    id: logId(owner, seq),
    organizationId: ctx.message.organizationId,
    traceGuid: ctx.message.traceGuid,
    level,
    message,
    nodeName: ctx.node?.name ?? null,
    createdAt: at + seq,
  };
}

/** A feed entry request reporting `r` (direction: the document's). */
export function feedRequest(r: ResultRecord, documentDirection: 'inbound' | 'outbound', opts: { setsDeliveredAt: boolean }): FeedRequest | null {
  if (r.partnerKey === null) return null;
  return {
    id: feedEntryId(r.id),
    organizationId: r.organizationId,
    direction: documentDirection,
    status: r.status,
    partnerKey: r.partnerKey,
    traceGuid: r.traceGuid,
    resultId: r.id,
    transactionId: opts.setsDeliveredAt && r.status === 'success' ? r.transactionId : null,
    detail: JSON.stringify(resultView(r)),
    requestedAt: r.createdAt,
  };
}

export interface NextWork {
  readonly transactionId?: string | null;
  /** `createdAt` of `transactionId` (default: the current work's, when it is the same transaction). */
  readonly transactionCreatedAt?: Micros | null;
  readonly inputResultId: string;
  readonly artifacts: readonly ArtifactPointer[];
  readonly usageIndicator?: string | null;
  readonly createdAt: Micros;
  readonly params?: Readonly<Record<string, string>>;
  /** Only successors running one of these services (default: every successor). */
  readonly only?: readonly NodeService[];
  /** Extra parts of the work id (distinguish several items of one transaction). */
  readonly idParts?: ReadonlyArray<string | number>;
}

/** Work items for the successors of the current node. */
export function next(ctx: StepContext, work: NextWork): Emission[] {
  const flow = ctx.flow;
  const from = ctx.message.nodeId;
  if (!flow || !from) return [];
  const out: Emission[] = [];
  for (const n of successors(flow, from)) {
    if (work.only && !work.only.includes(n.service)) continue;
    out.push(stageTo(ctx, n, work));
  }
  return out;
}

/** A work item for node `n` of the current flow. */
export function stageTo(ctx: StepContext, n: FlowNode, work: NextWork): Emission {
  const m = ctx.message;
  const transactionId = work.transactionId === undefined ? m.transactionId : work.transactionId;
  // the work's own transaction keeps the createdAt it came with; another is known only when given
  const inherited = transactionId !== null && transactionId === m.transactionId ? (m.transactionCreatedAt ?? null) : null;
  const transactionCreatedAt = work.transactionCreatedAt === undefined ? inherited : work.transactionCreatedAt;
  const value: StageMessage = {
    id: workId(m.traceGuid, n.id, transactionId, m.attempt, ...(work.idParts ?? [])),
    traceGuid: m.traceGuid,
    organizationId: m.organizationId,
    service: n.service,
    flowId: m.flowId,
    flowVersion: m.flowVersion,
    nodeId: n.id,
    direction: m.direction,
    partnerKey: m.partnerKey,
    transactionId,
    inputResultId: work.inputResultId,
    artifacts: work.artifacts.map((a) => ({ id: a.id, usage: a.usage, contentType: a.contentType, filename: a.filename })),
    usageIndicator: work.usageIndicator === undefined ? m.usageIndicator : work.usageIndicator,
    resend: m.resend,
    attempt: m.attempt,
    createdAt: work.createdAt,
    params: { ...(work.params ?? {}) },
    transactionCreatedAt,
  };
  return { topic: `stage.${n.service}`, key: m.traceGuid, value };
}

export interface FailureInput {
  readonly transactionId: string | null;
  /** One sentence (contract: errorMessage). */
  readonly message: string;
  readonly errors?: readonly string[];
  readonly direction: 'inbound' | 'outbound';
  readonly at: Micros;
  /** Time of the error log entry. @default at */
  readonly logAt?: Micros;
  readonly detail?: ResultDetail;
  readonly artifacts?: readonly ArtifactPointer[];
  readonly warnings?: readonly WarningRecord[];
  readonly resultId?: string;
  /** Send the partner's error-role notification (never for a failed notification itself). @default true */
  readonly notify?: boolean;
}

/**
 * The outcome of a failed step: an error result (`errorMessage`, `incomingResultId`), the
 * transaction marked failed (status `error`, never reverted), the failure noted on the trace,
 * an error log entry, a feed error entry, and the partner's error notification when it has an
 * error webhook. Nothing goes on down the flow.
 */
export function failure(ctx: StepContext, input: FailureInput): Effects {
  const e = effects();
  const m = ctx.message;
  const detail: ResultDetail = { ...(input.detail ?? {}), errorMessage: input.message };
  if (m.inputResultId !== null) detail.incomingResultId = m.inputResultId;
  if (input.errors && input.errors.length > 0) detail.errors = [...input.errors];
  const r = result(ctx, {
    ...(input.resultId ? { id: input.resultId } : {}),
    transactionId: input.transactionId,
    status: 'error',
    direction: input.direction,
    createdAt: input.at,
    detail,
    ...(input.artifacts ? { artifacts: input.artifacts } : {}),
    ...(input.warnings ? { warnings: input.warnings } : {}),
  });
  e.results.push(r);
  e.traceErrors.push({ organizationId: m.organizationId, traceGuid: m.traceGuid, error: { resultId: r.id, transactionId: input.transactionId, nodeName: r.nodeName } });
  if (input.transactionId !== null) {
    e.updates.push({
      organizationId: m.organizationId,
      id: input.transactionId,
      traceGuid: m.traceGuid,
      failed: true,
      failedNodeName: r.nodeName,
      roles: { errored: { resultId: r.id, nodeName: r.nodeName, artifact: null } },
    });
  }
  e.logs.push(log(ctx, r.id, 0, 'error', input.message, input.logAt ?? input.at));
  const fr = feedRequest(r, m.direction, { setsDeliveredAt: false });
  if (fr) e.feed.push(fr);
  if (input.notify !== false) {
    const n = notification(ctx, ctx.partner, 'error', 'processing_failed', r);
    if (n) e.emit.push(n);
  }
  return e;
}

/**
 * A notification work item for the partner's `role` webhook (identifiers only: event,
 * resultId, traceGuid), or null when the partner has no webhook in that role.
 */
export function notification(ctx: StepContext, partner: PartnerRecord | null, role: 'error' | 'outbound', event: string, about: ResultRecord): Emission | null {
  const webhookId = partner?.webhooks[role] ?? null;
  if (!webhookId) return null;
  const m = ctx.message;
  const nodeId = `${m.flowId ?? 'trace'}.notify.${role}`;
  const value: StageMessage = {
    id: workId(m.traceGuid, nodeId, about.transactionId, m.attempt, about.id),
    traceGuid: m.traceGuid,
    organizationId: m.organizationId,
    service: 'webhook',
    flowId: m.flowId,
    flowVersion: m.flowVersion,
    nodeId,
    direction: m.direction,
    partnerKey: m.partnerKey,
    transactionId: about.transactionId,
    inputResultId: about.id,
    artifacts: [],
    usageIndicator: m.usageIndicator,
    resend: m.resend,
    attempt: m.attempt,
    createdAt: about.createdAt + 1,
    params: { purpose: 'notification', role, event, webhookId },
  };
  return { topic: 'stage.webhook', key: m.traceGuid, value };
}

/** The successor nodes' names, for `transformations` (diagnostic only). */
export function transformationsOf(flow: FlowRecord | null, upTo: string | null): string[] {
  if (!flow || !upTo) return [];
  const out: string[] = [];
  for (const n of flow.nodes) {
    out.push(n.service);
    if (n.id === upTo) break;
  }
  return out;
}
