/**
 * The implementation engine over the X12 engine's model (src/x12/impl). A configured
 * `definition` is one of:
 *
 * - `{ base: true, adjustments?: [...] }`: the standard's definition of the set and release,
 *   with adjustments applied in order (`{path, element?, component?, usage?, max?, codes?,
 *   minLength?, maxLength?, notes?}`, paths such as "heading/BEG" or "detail/PO1/PO1");
 * - `{ portable: {...} }`: an implementation export (`GET /platform/implementations/:id/export`,
 *   format "tdx.x12.implementation").
 *
 * The definition is stored as configured; the model is rebuilt from it when needed.
 */
import type { Implementation } from '../x12/impl/index.ts';
import { baseImplementation, deriveImplementation, exportImplementation, implementationSchema, importImplementation, renderGuide, useCounts } from '../x12/impl/index.ts';
import type { Adjustment } from '../x12/impl/index.ts';
import { isTdxError } from '../errors.ts';
import type { ImplementationEngine, ImplementationSpec } from './implementation-engine.ts';

type Problem = { path: (string | number)[]; message: string };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Builds the model of a spec; throws a TdxError (or returns problems via `problems`). */
function build(spec: ImplementationSpec, problems?: Problem[]): Implementation | null {
  const def = spec.definition;
  const fail = (path: (string | number)[], message: string): null => {
    if (problems) problems.push({ path, message });
    return null;
  };
  if (!isObj(def)) return fail([], 'must be an object with "base" or "portable"');
  const id = spec.id ?? '';
  if (isObj(def['portable'])) {
    try {
      return importImplementation(def['portable'], { id });
    } catch (err) {
      return fail(['portable'], isTdxError(err) || err instanceof Error ? err.message : String(err));
    }
  }
  if (def['base'] !== true) return fail([], 'must have "base": true (with optional "adjustments") or "portable"');
  const base = baseImplementation(spec.transactionSet.identifier, spec.transactionSet.release);
  if (!base) return fail(['base'], `no standard definition of ${spec.transactionSet.identifier} release ${spec.transactionSet.release} is shipped`);
  const adjustments = def['adjustments'] ?? [];
  if (!Array.isArray(adjustments)) return fail(['adjustments'], 'must be an array');
  try {
    return deriveImplementation(
      base,
      { id, name: spec.name, version: spec.version, status: spec.status, ...(spec.description ? { description: spec.description } : {}) },
      adjustments as Adjustment[],
    );
  } catch (err) {
    const at = isTdxError(err) ? adjustments.findIndex((a) => isObj(a) && a['path'] === err.details['path']) : -1;
    return fail(at >= 0 ? ['adjustments', at] : ['adjustments'], err instanceof Error ? err.message : String(err));
  }
}

/**
 * The X12 engine's model of a configured implementation (for translating, writing and validating
 * with it); throws when the definition cannot be built (`check` lists why).
 */
export function implementationModel(spec: ImplementationSpec): Implementation {
  const problems: Problem[] = [];
  const impl = build(spec, problems);
  if (!impl) throw new Error(`implementation "${spec.name}" cannot be built: ${problems.map((p) => p.message).join('; ')}`);
  // identity comes from the configuration, whatever the portable document says
  return { ...impl, name: spec.name, version: spec.version, status: spec.status, transactionSet: spec.transactionSet };
}

export const x12ImplementationEngine: ImplementationEngine = {
  check(spec) {
    const problems: Problem[] = [];
    build(spec, problems);
    return problems;
  },
  counts(spec) {
    const impl = build(spec);
    return impl ? useCounts(impl) : { segmentUseCount: 0, loopUseCount: 0 };
  },
  schema(impl) {
    return implementationSchema(implementationModel(impl));
  },
  guide(impl, variant) {
    return renderGuide(implementationModel(impl), variant);
  },
  exportDocument(impl) {
    return exportImplementation(implementationModel(impl));
  },
};
