/**
 * The port through which configuration uses the X12 engine's implementation model: checking a
 * definition, counting its segment and loop uses, and rendering its JSON Schema, text guide and
 * portable export. The implementation over the X12 engine's model is
 * x12-implementation-engine.ts.
 */
import type { Direction, ImplementationRecord } from './configuration.ts';

export type GuideVariant = 'console' | 'markdown';

/** What an implementation is built from: its identity and its `definition` as configured. */
export type ImplementationSpec = Pick<ImplementationRecord, 'name' | 'version' | 'status' | 'transactionSet' | 'description' | 'definition'> & { readonly id?: string };

export interface ImplementationEngine {
  /** Problems of a definition, each with the path inside the definition it concerns. */
  check(spec: ImplementationSpec): { path: (string | number)[]; message: string }[];
  counts(spec: ImplementationSpec): { segmentUseCount: number; loopUseCount: number };
  /** JSON Schema (draft 2020-12) of what a mapping targeting the implementation must produce. */
  schema(impl: ImplementationSpec, direction: Direction): Record<string, unknown>;
  guide(impl: ImplementationRecord, variant: GuideVariant): string;
  exportDocument(impl: ImplementationRecord): Record<string, unknown>;
}
