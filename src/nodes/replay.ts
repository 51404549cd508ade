/**
 * Replays in the node layer: carrying out one resend or redeliver command (`runReplayCommand`,
 * which the replay consumer of the scheduler role calls for each command of `commands.replay`),
 * loading the facts `planReplay` (src/domain/replay.ts) decides on, through the processing
 * ports and the configuration view, and the work item a planned replay sends to its delivery
 * node, on the transaction's original trace.
 */
import { deterministicId } from '../domain/ids.ts';
import { planReplay } from '../domain/replay.ts';
import type { NodeService } from '../domain/node-services.ts';
import type { ReplayLedger } from '../domain/processing-ports.ts';
import type { Logger } from '../logger.ts';
import { stageTopic } from '../wire/topics.ts';
import { contextOf } from './context.ts';
import { applyEffects } from './runtime.ts';
import { effects, mergeEffects } from './step.ts';
import { failure } from './outcomes.ts';
import type { NodeDeps } from './ports.ts';
import type { FlowNode } from '../domain/configuration.ts';
import type { ArtifactStore, ResultStore } from '../domain/processing-ports.ts';
import type { ArtifactPointer, StoredTransaction } from '../domain/records.ts';
import type { DeliveryInput, ReplayFacts, ReplayKind, ReplayPlan } from '../domain/replay.ts';
import type { ReplayCommand } from '../wire/replay-command.v1.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import type { ConfigView } from './ports.ts';

export interface ReplayLoadDeps {
  readonly artifacts: ArtifactStore;
  readonly results: ResultStore;
  readonly config: Pick<ConfigView, 'partnerByKey' | 'flow' | 'currentFlow' | 'connection' | 'webhook'>;
}

const INBOUND_DELIVERY = new Set(['webhook', 'feed', 'sandbox_sink']);

/** Whether the stored bytes of an artifact can still be read (row and first chunk). */
export async function available(artifacts: ArtifactStore, organizationId: string, pointer: ArtifactPointer | null): Promise<boolean> {
  if (!pointer) return false;
  const record = await artifacts.get(organizationId, pointer.id);
  if (!record) return false;
  try {
    for await (const _chunk of artifacts.chunks(record)) return true;
    return record.size === 0;
  } catch {
    return false;
  }
}

/** What the inbound delivery node received, from the delivery result (or the failed attempt). */
async function deliveryInputOf(deps: ReplayLoadDeps, t: StoredTransaction): Promise<DeliveryInput | null> {
  const results = await deps.results.byTransaction(t.organizationId, t.traceGuid, t.id);
  // a notification about the delivery (its node id holds `.notify.`) is not the delivery
  const delivery = [...results].reverse().find((r) => INBOUND_DELIVERY.has(r.service) && !r.resend && !r.nodeId.includes('.notify.'));
  const inputId = t.deliveryInputResultId ?? (typeof delivery?.detail.incomingResultId === 'string' ? delivery.detail.incomingResultId : null);
  if (!inputId) return null;
  const input = await deps.results.get(t.organizationId, inputId);
  if (!input) return null;
  const artifacts = (input.detail.artifacts ?? []).filter((a) => a.usage !== 'output');
  const documentId = input.payload?.artifactId ?? null;
  const document = artifacts.find((a) => a.id === documentId) ?? artifacts.find((a) => a.usage === 'mapped') ?? artifacts.find((a) => a.usage === 'translation') ?? null;
  const params: Record<string, string> = { transactionSetIdentifier: t.transactionSetIdentifier, release: t.release };
  if (document) params['outputArtifactId'] = document.id;
  return { resultId: inputId, artifacts, document, params };
}

/** Loads the facts of a replay of `t`. */
export async function replayFacts(deps: ReplayLoadDeps, kind: ReplayKind, t: StoredTransaction): Promise<ReplayFacts> {
  const org = t.organizationId;
  const partner = t.partnerKey ? await deps.config.partnerByKey(org, t.partnerKey) : null;
  const originalFlow = t.flowId ? await deps.config.flow(org, t.flowId) : null;
  // our 997s go out through the partner's inbound flow (ack_generate → upload)
  const direction = kind === 'redeliver' || (['997', '999'].includes(t.transactionSetIdentifier) && originalFlow?.direction === 'inbound') ? 'inbound' : 'outbound';
  const currentFlow = partner ? await deps.config.currentFlow(org, partner.id, direction) : null;
  const targets = new Map<string, boolean>();
  for (const n of [...(currentFlow?.nodes ?? []), ...(originalFlow?.nodes ?? [])]) {
    if (targets.has(n.id)) continue;
    const cfg = n.config;
    let ok = true;
    if (typeof cfg['connectionId'] === 'string') ok = (await deps.config.connection(org, cfg['connectionId'])) !== null;
    if ('webhookId' in cfg) ok = typeof cfg['webhookId'] === 'string' && (await deps.config.webhook(org, cfg['webhookId'])) !== null;
    targets.set(n.id, ok);
  }
  const targetExists = (n: FlowNode): boolean => targets.get(n.id) ?? false;
  if (kind === 'resend') {
    const document = t.roles.output?.artifact ?? null;
    return { kind, transaction: t, partner, originalFlow, currentFlow, document, contentAvailable: await available(deps.artifacts, org, document), deliveryInput: null, targetExists };
  }
  const deliveryInput = t.direction === 'inbound' ? await deliveryInputOf(deps, t) : null;
  return { kind, transaction: t, partner, originalFlow, currentFlow, document: null, contentAvailable: await available(deps.artifacts, org, deliveryInput?.document ?? null), deliveryInput, targetExists };
}

/** The work item a planned replay sends to its delivery node, on the original trace. */
export function replayWork(plan: ReplayPlan, t: StoredTransaction, command: ReplayCommand): StageMessage {
  const base = {
    id: deterministicId('stage', 'replay', command.id),
    traceGuid: t.traceGuid,
    organizationId: t.organizationId,
    service: plan.node.service,
    flowId: plan.flow.id,
    flowVersion: plan.flow.versionNumber,
    nodeId: plan.node.id,
    direction: t.direction,
    partnerKey: t.partnerKey,
    transactionId: t.id,
    transactionCreatedAt: t.createdAt,
    usageIndicator: t.usageIndicator,
    resend: true,
    attempt: command.attempt,
    createdAt: command.requestedAt,
  };
  if (plan.kind === 'resend') {
    const params: Record<string, string> = {
      purpose: plan.acknowledgment ? 'acknowledgment' : 'document',
      transactionSetIdentifier: t.transactionSetIdentifier,
      interchangeControlNumber: t.interchangeControlNumber,
      transactionIds: JSON.stringify([t.id]),
      trackAcknowledgments: 'false',
      deliveryAttempt: '1',
    };
    // A resent business document republishes its delivery, which the feed collapses (no new
    // entry); a resent 997 gets an entry of its own.
    if (!plan.acknowledgment && t.deliveryResultId) params['collapseFeedInto'] = t.deliveryResultId;
    return { ...base, inputResultId: t.deliveryInputResultId ?? t.roles.output?.resultId ?? null, artifacts: [plan.document], params };
  }
  const input = plan.deliveryInput!;
  return { ...base, inputResultId: input.resultId, artifacts: [...input.artifacts], params: { ...input.params, deliveryAttempt: '1' } };
}

/**
 * Carries out one replay command, once: the replay ledger records it, so a command Kafka
 * delivers twice uploads or delivers once. The command is planned again with the same rules the
 * API checked; a plan that can no longer run (the configuration changed in between) ends in an
 * error result on the trace saying why, otherwise the work item goes to the delivery node, which
 * uploads or delivers and writes results marked `detail.resend`.
 */
export async function runReplayCommand(deps: NodeDeps, ledger: ReplayLedger, retentionSeconds: number, c: ReplayCommand, logger: Logger): Promise<void> {
  if (await ledger.done(c.organizationId, c.id)) return;
  const t = await deps.stores.transactions.get(c.organizationId, c.transactionId);
  if (!t) {
    logger.warn({ event: 'replay:gone', command: c.id, transactionId: c.transactionId }, 'the transaction of a replay command no longer exists');
    await ledger.markDone(c.organizationId, c.id, deps.wallClock());
    return;
  }
  const plan = planReplay(await replayFacts({ artifacts: deps.stores.artifacts, results: deps.stores.results, config: deps.config }, c.kind, t), retentionSeconds);
  if (plan instanceof Error) {
    // record on the trace why the replay did not run (configuration changed meanwhile)
    const probe = { ...replayWorkless(c, t.traceGuid, t.direction, t.partnerKey), nodeId: t.deliveryNodeId };
    const ctx = await contextOf(deps, probe, c.requestedAt);
    const e = mergeEffects(effects(), failure(ctx, { transactionId: null, message: `The ${c.kind === 'resend' ? 'resend' : 'redelivery'} of transaction ${t.id} could not start: ${plan.message}`, direction: 'outbound', at: c.requestedAt, notify: false }));
    await applyEffects(deps.stores, deps.emitter, e, deps.wallClock());
  } else {
    const work = replayWork(plan, t, c);
    await deps.emitter.produce([{ topic: stageTopic(work.service as NodeService), key: work.traceGuid, value: work }]);
  }
  await ledger.markDone(c.organizationId, c.id, deps.wallClock());
}

/** A work item naming the command's trace, for recording a failure on it. */
function replayWorkless(c: ReplayCommand, traceGuid: string, direction: 'inbound' | 'outbound', partnerKey: string | null) {
  return {
    id: `replay-${c.id}`,
    traceGuid,
    organizationId: c.organizationId,
    service: 'partner_endpoint',
    flowId: null,
    flowVersion: null,
    nodeId: null,
    direction,
    partnerKey,
    transactionId: c.transactionId,
    inputResultId: null,
    artifacts: [],
    usageIndicator: null,
    resend: true,
    attempt: c.attempt,
    createdAt: c.requestedAt,
    params: {},
  } as const;
}
