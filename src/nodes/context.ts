/**
 * The context of a work item: its flow, node and partner (from the cached configuration view),
 * and its clock.
 */
import type { Micros } from '../domain/records.ts';
import type { StageMessage } from '../wire/stage.v1.ts';
import type { NodeDeps } from './ports.ts';
import type { StepContext } from './step.ts';

/** Loads the context of a work item: its flow, node and partner, and its clock. */
export async function contextOf(deps: NodeDeps, message: StageMessage, now: Micros): Promise<StepContext> {
  const org = message.organizationId;
  const flow = message.flowId ? await deps.config.flow(org, message.flowId) : null;
  const node = flow && message.nodeId ? (flow.nodes.find((n) => n.id === message.nodeId) ?? null) : null;
  const partner = flow ? await deps.config.partner(org, flow.partnerId) : message.partnerKey ? await deps.config.partnerByKey(org, message.partnerKey) : null;
  return { now, message, flow, node, partner };
}
