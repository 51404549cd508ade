/**
 * Loading what the outbound steps share (adapter side): the partner's outbound setting for the
 * work item's set, and our and the partner's envelopes, as the flow node names them (else as
 * the partner does).
 */
import type { EnvelopeRecord } from '../domain/configuration.ts';
import type { Unwritten } from './outbound.ts';
import type { NodeDeps } from './ports.ts';
import type { StepContext } from './step.ts';
import { outboundSettingFor } from './mapping/step.ts';

/** The envelope ids of a node's configuration, else of its partner. */
export async function envelopesOf(deps: NodeDeps, ctx: StepContext): Promise<{ internal: EnvelopeRecord | null; external: EnvelopeRecord | null }> {
  const org = ctx.message.organizationId;
  const cfg = ctx.node?.config ?? {};
  const internalId = typeof cfg['internalEnvelopeId'] === 'string' ? cfg['internalEnvelopeId'] : (ctx.partner?.internalEnvelopeId ?? null);
  const externalId = typeof cfg['externalEnvelopeId'] === 'string' ? cfg['externalEnvelopeId'] : (ctx.partner?.externalEnvelopeId ?? null);
  const [internal, external] = await Promise.all([internalId ? deps.config.envelope(org, internalId) : null, externalId ? deps.config.envelope(org, externalId) : null]);
  return { internal, external };
}

/** What an outbound step knows of its document before the EDI exists. */
export async function unwrittenOf(deps: NodeDeps, ctx: StepContext): Promise<Unwritten> {
  const m = ctx.message;
  const setting = ctx.partner ? outboundSettingFor(ctx.partner, m.params['transactionSetIdentifier'] ?? '', m.params['release'], m.usageIndicator) : null;
  return { setting, ...(await envelopesOf(deps, ctx)) };
}
