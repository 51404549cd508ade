/**
 * validation, the adapter. Inbound work carries what the split found; outbound work is
 * validated here against the partner's implementation (src/nodes/validation/outbound.ts): the
 * adapter loads the setting, the implementation's model, the envelopes and the mapped document.
 */
import { perItemNode, type NodeModule } from '../node.ts';
import type { NodeDeps } from '../ports.ts';
import type { StepContext } from '../step.ts';
import { unwrittenOf } from '../outbound-load.ts';
import { validatedInbound } from './step.ts';
import { validateOutbound, type OutboundValidationInput } from './outbound.ts';

async function outbound(ctx: StepContext, deps: NodeDeps): Promise<OutboundValidationInput> {
  const m = ctx.message;
  const org = m.organizationId;
  const unwritten = await unwrittenOf(deps, ctx);
  const pointer = m.artifacts.find((a) => a.id === m.params['outputArtifactId']) ?? m.artifacts[0] ?? { id: '', usage: 'mapped', contentType: null, filename: null };
  const rec = unwritten.setting ? await deps.config.implementation(org, unwritten.setting.implementationId) : null;
  const implementation = rec ? { name: rec.name, model: await deps.config.implementationModel(org, rec.id) } : null;
  const stored = pointer.id ? await deps.stores.artifacts.get(org, pointer.id) : null;
  let document: OutboundValidationInput['document'];
  if (!stored) document = { ok: false, message: `(${pointer.filename ?? pointer.id}) is no longer stored` };
  else {
    try {
      document = { ok: true, value: JSON.parse((await deps.stores.artifacts.read(stored)).toString('utf8')) as unknown };
    } catch (err) {
      document = { ok: false, message: `is not JSON (${err instanceof Error ? err.message : String(err)})` };
    }
  }
  return { unwritten, implementation, document, pointer };
}

export function validationNode(deps: NodeDeps): NodeModule {
  return perItemNode('validation', deps, async (ctx, deps) => (ctx.message.direction === 'inbound' ? validatedInbound(ctx) : validateOutbound(ctx, await outbound(ctx, deps))));
}
