/**
 * The port through which configuration uses the X12 engine's implementation model: checking a
 * definition, counting its segment and loop uses, and rendering its JSON Schema, text guide and
 * portable export. `basicImplementationEngine` serves a small structural model (tables of
 * segments and loops with element rules) until the engine's own model is wired in.
 */
import type { Direction, ImplementationRecord } from './configuration.ts';

export type GuideVariant = 'console' | 'markdown';

export interface ImplementationEngine {
  /** Problems of a definition, each with the path inside the definition it concerns. */
  check(definition: unknown): { path: (string | number)[]; message: string }[];
  counts(definition: unknown): { segmentUseCount: number; loopUseCount: number };
  /** JSON Schema (draft 2020-12) of what a mapping targeting the implementation must produce. */
  schema(impl: ImplementationRecord, direction: Direction): Record<string, unknown>;
  guide(impl: ImplementationRecord, variant: GuideVariant): string;
  exportDocument(impl: ImplementationRecord): Record<string, unknown>;
}

// --- the basic structural model ---------------------------------------------------------------

type Usage = 'M' | 'O' | 'X';
interface BasicElement {
  position: number;
  name?: string;
  usage?: Usage;
  codes?: string[];
  note?: string;
}
interface BasicSegment {
  segment: string;
  name?: string;
  usage?: Usage;
  max?: number;
  note?: string;
  elements?: BasicElement[];
}
interface BasicLoop {
  loop: string;
  usage?: Usage;
  max?: number;
  note?: string;
  items: BasicItem[];
}
type BasicItem = BasicSegment | BasicLoop;
interface BasicDefinition {
  segments: BasicItem[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkItems(items: unknown, path: (string | number)[], out: { path: (string | number)[]; message: string }[]): void {
  if (!Array.isArray(items)) {
    out.push({ path, message: 'must be an array of segments and loops' });
    return;
  }
  items.forEach((item, i) => {
    const p = [...path, i];
    if (!isObj(item)) return void out.push({ path: p, message: 'must be an object with "segment" or "loop"' });
    if (typeof item['segment'] === 'string') {
      if (!/^[A-Z][A-Z0-9]{1,2}$/.test(item['segment'])) out.push({ path: [...p, 'segment'], message: 'must be a segment id such as "BEG"' });
      const els = item['elements'];
      if (els !== undefined) {
        if (!Array.isArray(els)) out.push({ path: [...p, 'elements'], message: 'must be an array' });
        else
          els.forEach((e, j) => {
            if (!isObj(e) || !Number.isInteger(e['position']) || (e['position'] as number) < 1) {
              out.push({ path: [...p, 'elements', j, 'position'], message: 'must be an integer from 1' });
            }
          });
      }
    } else if (typeof item['loop'] === 'string') {
      checkItems(item['items'], [...p, 'items'], out);
    } else {
      out.push({ path: p, message: 'must have "segment" or "loop"' });
    }
  });
}

function walk(items: readonly BasicItem[], visit: (item: BasicItem, depth: number) => void, depth = 0): void {
  for (const item of items) {
    visit(item, depth);
    if ('loop' in item) walk(item.items, visit, depth + 1);
  }
}

const usageWord = (u: Usage | undefined): string => (u === 'M' ? 'mandatory' : u === 'X' ? 'not used' : 'optional');
const pad2 = (n: number): string => String(n).padStart(2, '0');

function elementSchema(seg: BasicSegment): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const e of seg.elements ?? []) {
    if (e.usage === 'X') continue;
    const key = `${seg.segment}${pad2(e.position)}`;
    properties[key] = e.codes && e.codes.length > 0 ? { type: 'string', enum: e.codes } : { type: 'string' };
    if (e.usage === 'M') required.push(key);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

function itemsSchema(items: readonly BasicItem[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const item of items) {
    if (item.usage === 'X') continue;
    const key = 'loop' in item ? `${item.loop}_loop` : item.segment;
    const inner = 'loop' in item ? itemsSchema(item.items) : elementSchema(item);
    const repeats = 'loop' in item || (item.max ?? 1) > 1;
    properties[key] = repeats ? { type: 'array', items: inner, ...(item.max ? { maxItems: item.max } : {}) } : inner;
    if (item.usage === 'M') required.push(key);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

function definitionOf(impl: ImplementationRecord): BasicDefinition {
  const d = impl.definition;
  return isObj(d) && Array.isArray(d['segments']) ? (d as unknown as BasicDefinition) : { segments: [] };
}

export const basicImplementationEngine: ImplementationEngine = {
  check(definition) {
    const out: { path: (string | number)[]; message: string }[] = [];
    if (!isObj(definition)) return [{ path: [], message: 'must be an object with "segments"' }];
    checkItems(definition['segments'], ['segments'], out);
    return out;
  },
  counts(definition) {
    let segmentUseCount = 0;
    let loopUseCount = 0;
    if (isObj(definition) && Array.isArray(definition['segments'])) {
      walk(definition['segments'] as BasicItem[], (item) => {
        if ('loop' in item) loopUseCount++;
        else segmentUseCount++;
      });
    }
    return { segmentUseCount, loopUseCount };
  },
  schema(impl, direction) {
    return {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: `${impl.name} ${impl.version} (${impl.transactionSet.identifier} ${impl.transactionSet.release}, ${direction})`,
      ...itemsSchema(definitionOf(impl).segments),
    };
  },
  guide(impl, variant) {
    const md = variant === 'markdown';
    const lines: string[] = [];
    const title = `${impl.name} ${impl.version}: ${impl.transactionSet.identifier} release ${impl.transactionSet.release}`;
    lines.push(md ? `# ${title}` : title, md ? '' : '='.repeat(title.length));
    if (impl.description) lines.push('', impl.description);
    lines.push('');
    walk(definitionOf(impl).segments, (item, depth) => {
      const indent = md ? '  '.repeat(depth) + '- ' : '  '.repeat(depth);
      if ('loop' in item) {
        lines.push(`${indent}Loop ${item.loop}: ${usageWord(item.usage)}, repeats up to ${item.max ?? 1}${item.note ? `; ${item.note}` : ''}`);
        return;
      }
      lines.push(
        `${indent}${md ? `**${item.segment}**` : item.segment}${item.name ? ` ${item.name}` : ''}: ${usageWord(item.usage)}, repeats up to ${item.max ?? 1}${item.note ? `; ${item.note}` : ''}`,
      );
      for (const e of item.elements ?? []) {
        const codes = e.codes && e.codes.length ? `; allowed codes ${e.codes.join(', ')}` : '';
        const inner = md ? '  '.repeat(depth + 1) + '- ' : '  '.repeat(depth + 1);
        lines.push(`${inner}${item.segment}${pad2(e.position)}${e.name ? ` ${e.name}` : ''}: ${usageWord(e.usage)}${codes}${e.note ? `; ${e.note}` : ''}`);
      }
    });
    return lines.join('\n') + '\n';
  },
  exportDocument(impl) {
    const strip = (items: readonly BasicItem[]): unknown[] =>
      items.map((item) => ('loop' in item ? { ...item, items: strip(item.items) } : { ...item }));
    return {
      format: 'tdx-implementation/1',
      name: impl.name,
      version: impl.version,
      status: impl.status,
      transactionSet: impl.transactionSet,
      description: impl.description,
      tags: impl.tags,
      segments: strip(definitionOf(impl).segments),
    };
  },
};
