/**
 * ack_generate, the adapter: reads the group's acknowledgment request, takes the interchange
 * and group control numbers from the partner's counters (unique across replicas; a re-run gets
 * the same numbers), loads the envelopes, and hands them to the step.
 */
import type { AckRequest } from '../x12-rules.ts';
import { failure } from '../outcomes.ts';
import { perItemNode, type NodeModule } from '../node.ts';
import type { NodeDeps } from '../ports.ts';
import { ackTransactionId, generateAck, groupScope, interchangeScope } from './step.ts';

export function ackGenerateNode(deps: NodeDeps): NodeModule {
  return perItemNode('ack_generate', deps, async (ctx, deps) => {
    const m = ctx.message;
    const org = m.organizationId;
    const pointer = m.artifacts[0];
    const record = pointer ? await deps.stores.artifacts.get(org, pointer.id) : null;
    if (!record || !ctx.partner) {
      return failure(ctx, { transactionId: null, message: 'The acknowledgment request of this group is no longer stored; no acknowledgment was sent.', direction: 'inbound', at: ctx.now });
    }
    const request = JSON.parse((await deps.stores.artifacts.read(record)).toString('utf8')) as AckRequest;
    const groupOrdinal = Number(m.params['groupOrdinal'] ?? '0') || 0;
    const owner = ackTransactionId(m.traceGuid, groupOrdinal);
    const cfg = ctx.node?.config ?? {};
    const internalId = typeof cfg['internalEnvelopeId'] === 'string' ? cfg['internalEnvelopeId'] : ctx.partner.internalEnvelopeId;
    const externalId = typeof cfg['externalEnvelopeId'] === 'string' ? cfg['externalEnvelopeId'] : ctx.partner.externalEnvelopeId;
    const [internal, external, isa, gs] = await Promise.all([
      internalId ? deps.config.envelope(org, internalId) : null,
      externalId ? deps.config.envelope(org, externalId) : null,
      deps.stores.controlNumbers.take(org, interchangeScope(ctx.partner.id), owner),
      deps.stores.controlNumbers.take(org, groupScope(ctx.partner.id), owner),
    ]);
    const inputNode = ctx.flow?.nodes[0];
    const inputResult = (await deps.stores.results.get(org, m.inputResultId ?? ''))?.detail.artifacts?.find((a) => a.usage === 'input') ?? null;
    return generateAck(ctx, {
      request,
      groupOrdinal,
      internal,
      external,
      interchangeControlNumber: isa,
      groupControlNumber: gs,
      input: inputResult,
      inputResultId: null,
      inputNodeName: inputNode?.name ?? 'Input',
    });
  });
}
