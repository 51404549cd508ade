/**
 * mapping, the adapter: finds the setting's mapping and its current version, reads the document
 * the mapping receives, runs the expression through the MappingRunner (worker threads: a
 * JSONata evaluation never blocks the consumer), checks the output against the
 * implementation's schema, and hands the outcome to the step.
 */
import { x12ImplementationEngine } from '../../domain/x12-implementation-engine.ts';
import { MappingSchemaCache } from '../../domain/mapping-schema.ts';
import type { TransactionSetSetting } from '../../domain/configuration.ts';
import { perItemNode, type NodeModule } from '../node.ts';
import type { NodeDeps } from '../ports.ts';
import type { StepContext } from '../step.ts';
import { inboundSetting } from '../x12-rules.ts';
import { envelopesOf } from '../outbound-load.ts';
import { mapInbound, mapOutbound, outboundSettingFor, type MappingInput, type MappingRun } from './step.ts';

/** The partner's outbound setting for a set (and release, when given). */
export function outboundSetting(ctx: StepContext, setId: string, release: string | undefined): TransactionSetSetting | null {
  return ctx.partner ? outboundSettingFor(ctx.partner, setId, release, ctx.message.usageIndicator) : null;
}

export function mappingNode(deps: NodeDeps): NodeModule {
  const schemas = new MappingSchemaCache(x12ImplementationEngine);
  const module = perItemNode('mapping', deps, async (ctx, deps) => {
    const m = ctx.message;
    const org = m.organizationId;
    const setId = m.params['transactionSetIdentifier'] ?? '';
    const setting =
      m.direction === 'inbound'
        ? ctx.partner
          ? inboundSetting(ctx.partner, setId, m.params['release'] ?? '', m.usageIndicator ?? 'P')
          : null
        : outboundSetting(ctx, setId, m.params['release']);
    const received = m.direction === 'inbound' ? (m.artifacts.find((a) => a.usage === 'translation') ?? m.artifacts[m.artifacts.length - 1]!) : m.artifacts[0]!;
    let mapping: MappingInput['mapping'] = null;
    let run: MappingRun | null = null;
    const rec = setting?.mappingId ? await deps.config.mapping(org, setting.mappingId) : null;
    if (rec && setting) {
      const version = await deps.config.mappingVersion(org, rec.id, rec.currentVersion);
      mapping = { id: rec.id, name: rec.name, versionNumber: rec.currentVersion };
      const stored = await deps.stores.artifacts.get(org, received.id);
      if (!version) run = { ok: false, message: `version ${rec.currentVersion} of the mapping is not stored` };
      else if (!stored) run = { ok: false, message: `the document to map (${received.id}) is no longer stored` };
      else if (!deps.mappings) run = { ok: false, message: 'mappings are not available in this process' };
      else {
        const inputJson = (await deps.stores.artifacts.read(stored)).toString('utf8');
        // Inbound output is checked against the canonical shape here (a failed check is a flag,
        // not a stop); outbound output is checked against the partner's implementation by the
        // validation node.
        const impl = m.direction === 'inbound' ? await deps.config.implementation(org, setting.implementationId) : null;
        const source = impl && rec.sourceId ? await deps.config.source(org, rec.sourceId) : null;
        const validateWith = impl ? schemas.get('inbound', impl, source) : undefined;
        const out = await deps.mappings.run(version.transformation, inputJson, validateWith ? { validateWith } : {});
        if (!out.ok) run = { ok: false, message: out.message.replace(/^line \d+, column \d+: /, ''), ...(out.line !== undefined ? { line: out.line } : {}), ...(out.column !== undefined ? { column: out.column } : {}) };
        else run = { ok: true, outputJson: out.outputJson, validationErrors: [...(out.violations ?? [])] };
      }
    }
    const carried = m.artifacts.filter((a) => a.usage !== 'submission');
    const unwritten = m.direction === 'outbound' && run && !run.ok ? { setting, ...(await envelopesOf(deps, ctx)) } : undefined;
    const input: MappingInput = { setting, mapping, run, received, carried, ...(unwritten ? { unwritten } : {}) };
    return m.direction === 'inbound' ? mapInbound(ctx, input) : mapOutbound(ctx, input);
  });
  return module;
}
