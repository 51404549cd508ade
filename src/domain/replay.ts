/**
 * Resend and redeliver (contract: "POST /platform/edi_transactions/:id/resend|redeliver" and
 * "Errors: Resend / Redeliver"): whether a transaction can be replayed, and where the replay
 * goes. Pure: the API and the replay consumer load the facts and both call `planReplay`, so the
 * 422 a caller gets and what the background work does always agree.
 *
 * - Resend (outbound): the stored EDI goes again, byte for byte, through the delivery node of
 *   the partner's current flow that has the service of the node that delivered it (the upload
 *   node after `x12_write`, or after `ack_generate` for our 997s).
 * - Redeliver (inbound): the delivery node (webhook, sandbox sink) runs again on the document
 *   it received; nothing is re-parsed.
 */
import { TdxError } from '../errors.ts';
import type { FlowNode, FlowRecord, PartnerRecord } from './configuration.ts';
import type { NodeService } from './node-services.ts';
import type { ArtifactPointer, StoredTransaction } from './records.ts';
import { CONTRACT_RETENTION_SECONDS, retentionText } from './retention.ts';

export type ReplayKind = 'resend' | 'redeliver';

/** What the delivery node received when the document was first delivered (redelivery starts from it). */
export interface DeliveryInput {
  /** The result whose output was delivered: the redelivered document carries the same resultId. */
  readonly resultId: string;
  /** The artifact pointers the delivery node received. */
  readonly artifacts: readonly ArtifactPointer[];
  /** The document it delivered (from the artifacts). */
  readonly document: ArtifactPointer | null;
  /** The work item's parameters (set, release, warnings ...), carried again. */
  readonly params: Readonly<Record<string, string>>;
}

export interface ReplayFacts {
  readonly kind: ReplayKind;
  readonly transaction: StoredTransaction;
  readonly partner: PartnerRecord | null;
  /** The flow the transaction went through (kept readable when superseded). */
  readonly originalFlow: FlowRecord | null;
  /** The partner's current flow of the direction the replay goes through. */
  readonly currentFlow: FlowRecord | null;
  /** Resend: the stored EDI to send (the transaction's `output` role). */
  readonly document: ArtifactPointer | null;
  /** The document's bytes are still stored (kept for the retention, config.cassandra.retentionSeconds). */
  readonly contentAvailable: boolean;
  /** Redeliver: what the delivery node received, when the document reached it. */
  readonly deliveryInput: DeliveryInput | null;
  /** Whether the connection or webhook a node delivers to still exists. */
  readonly targetExists: (node: FlowNode) => boolean;
}

export interface ReplayPlan {
  readonly kind: ReplayKind;
  readonly flow: FlowRecord;
  readonly node: FlowNode;
  /** The stored document (resend) or the delivered one (redeliver). */
  readonly document: ArtifactPointer;
  readonly deliveryInput: DeliveryInput | null;
  /** An automatically generated acknowledgment (a resend gets a fresh file name and its own feed entry). */
  readonly acknowledgment: boolean;
}

const ACKS = new Set(['997', '999']);
const DELIVERY: ReadonlySet<NodeService> = new Set(['webhook', 'feed', 'sandbox_sink', 'sftp_upload', 'as2_send']);

/** The node of `flow` after the first node running `from` (the upload after x12_write or ack_generate). */
function nodeAfter(flow: FlowRecord, from: NodeService): FlowNode | null {
  const src = flow.nodes.find((n) => n.service === from);
  if (!src) return null;
  const to = flow.connections.find((c) => c.from === src.id)?.to;
  return flow.nodes.find((n) => n.id === to) ?? null;
}

/** The delivery node of an inbound flow (webhook, feed or sandbox sink). */
function inboundDelivery(flow: FlowRecord): FlowNode | null {
  return flow.nodes.find((n) => n.service === 'webhook' || n.service === 'feed' || n.service === 'sandbox_sink') ?? null;
}

function originalNode(facts: ReplayFacts): FlowNode | null {
  const id = facts.transaction.deliveryNodeId;
  const node = id ? facts.originalFlow?.nodes.find((n) => n.id === id) : undefined;
  return node && DELIVERY.has(node.service) ? node : null;
}

function originalService(facts: ReplayFacts): NodeService | null {
  return originalNode(facts)?.service ?? null;
}

/** The replay goes to the target the document was delivered to (and the current node's): both must still exist. */
function targetsExist(facts: ReplayFacts, node: FlowNode): boolean {
  const original = originalNode(facts);
  return facts.targetExists(node) && (original === null || facts.targetExists(original));
}

const fail = (code: 'not_outbound' | 'not_inbound' | 'document_not_generated' | 'content_unavailable' | 'delivery_node_missing' | 'not_flow_delivered' | 'delivery_target_missing' | 'delivery_not_reached' | 'poll_delivery', message: string): TdxError =>
  new TdxError(code, message);

/**
 * The replay's plan, or the contract's 422 naming why it cannot run. `retentionSeconds` is the
 * configured retention the `content_unavailable` message names (the contract's 45 days when not
 * given).
 */
export function planReplay(f: ReplayFacts, retentionSeconds = CONTRACT_RETENTION_SECONDS): ReplayPlan | TdxError {
  const t = f.transaction;
  const kept = retentionText(retentionSeconds);
  if (f.kind === 'resend') {
    if (t.direction !== 'outbound') return fail('not_outbound', `Transaction ${t.id} is inbound: resend applies to outbound documents; redeliver inbound ones.`);
    const ack = ACKS.has(t.transactionSetIdentifier);
    if (!f.document) {
      return ack
        ? fail('not_flow_delivered', `Acknowledgment ${t.id} was not sent through an outbound flow with a stored copy; there is nothing to resend.`)
        : fail('document_not_generated', `Transaction ${t.id} failed before its EDI was written (${t.failedNodeName ?? 'an earlier step'}); no document was produced to resend.`);
    }
    if (!t.flowId) return fail('not_flow_delivered', `Transaction ${t.id} did not go out through a flow; there is nothing to resend.`);
    if (!f.contentAvailable) return fail('content_unavailable', `The stored EDI of transaction ${t.id} is no longer available (documents are kept ${kept}).`);
    const flow = f.currentFlow;
    const wanted = originalService(f);
    const candidate = flow ? nodeAfter(flow, ack ? 'ack_generate' : 'x12_write') : null;
    const node = candidate && (wanted === null || candidate.service === wanted) ? candidate : null;
    if (!flow || !node) return fail('delivery_node_missing', `The flow node that delivered transaction ${t.id} (${wanted ?? 'its upload'}) no longer exists in partner ${t.partnerKey ?? ''}'s ${ack ? 'inbound' : 'outbound'} flow.`);
    if (!targetsExist(f, node)) return fail('delivery_target_missing', `The connection transaction ${t.id} was delivered through was removed from the configuration.`);
    return { kind: 'resend', flow, node, document: f.document, deliveryInput: null, acknowledgment: ack };
  }
  if (t.direction !== 'inbound') return fail('not_inbound', `Transaction ${t.id} is outbound: redeliver applies to inbound documents; resend outbound ones.`);
  const flow = f.currentFlow;
  const delivery = flow ? inboundDelivery(flow) : null;
  if (f.partner?.deliveryMethod === 'polling' || delivery?.service === 'feed' || (!delivery && originalService(f) === 'feed')) {
    return fail('poll_delivery', `Partner ${t.partnerKey ?? ''} is set to polling: transaction ${t.id} is on the feed; there is nothing to redeliver.`);
  }
  if (!f.deliveryInput) return fail('delivery_not_reached', `Transaction ${t.id} failed upstream (${t.failedNodeName ?? 'before delivery'}) and never reached its delivery step.`);
  if (!f.deliveryInput.document || !f.contentAvailable) return fail('content_unavailable', `The stored document of transaction ${t.id} is no longer available (documents are kept ${kept}).`);
  const wanted = originalService(f);
  if (!flow || !delivery || (wanted !== null && wanted !== delivery.service)) {
    return fail('delivery_node_missing', `The delivery node of partner ${t.partnerKey ?? ''}'s inbound flow (${wanted ?? 'webhook'}) no longer exists.`);
  }
  if (!targetsExist(f, delivery)) return fail('delivery_target_missing', `The webhook transaction ${t.id} was delivered to was removed from the configuration.`);
  return { kind: 'redeliver', flow, node: delivery, document: f.deliveryInput.document, deliveryInput: f.deliveryInput, acknowledgment: false };
}
