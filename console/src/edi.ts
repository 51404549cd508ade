/**
 * EDI for a person: the document split into segments, each placed in its loop and named from
 * the engine's own base definitions (src/x12/impl: segment and element dictionaries, set
 * structures) and the code meanings it knows (data-code-names.ts). Pure functions over text, so
 * the page renders without asking the service anything beyond the artifact itself.
 */
import { baseImplementation } from '../../src/x12/impl/base.ts';
import { codeMeaning } from '../../src/x12/impl/data-code-names.ts';
import { setStructures } from '../../src/x12/impl/data-sets.ts';
import type { ElementDef, SegmentNode, StructureNode } from '../../src/x12/impl/model.ts';

export interface RenderedElement {
  /** "BEG01" */
  readonly label: string;
  readonly reference: string | null;
  readonly name: string | null;
  readonly value: string;
  readonly meaning: string | null;
  readonly components?: readonly RenderedElement[];
}

export interface RenderedSegment {
  readonly id: string;
  readonly name: string | null;
  /** Nesting: 0 for envelopes, 1 for a set's top level, more inside loops. */
  readonly depth: number;
  /** Loop identifier when this segment begins a loop iteration. */
  readonly loop: string | null;
  /** 1-based position within its transaction set (ST is 1); null for envelope segments. */
  readonly position: number | null;
  readonly elements: readonly RenderedElement[];
  readonly raw: string;
}

interface Envelope {
  readonly name: string;
  readonly elements: readonly (readonly [string, string | null])[];
}

/** Envelope segments, which no set structure holds: [element name, data element reference]. */
const envelopes: Readonly<Record<string, Envelope>> = {
  ISA: {
    name: 'Interchange Control Header',
    elements: [
      ['Authorization Information Qualifier', 'I01'],
      ['Authorization Information', 'I02'],
      ['Security Information Qualifier', 'I03'],
      ['Security Information', 'I04'],
      ['Interchange ID Qualifier', 'I05'],
      ['Interchange Sender ID', 'I06'],
      ['Interchange ID Qualifier', 'I05'],
      ['Interchange Receiver ID', 'I07'],
      ['Interchange Date', 'I08'],
      ['Interchange Time', 'I09'],
      ['Repetition Separator / Interchange Control Standards Identifier', 'I10'],
      ['Interchange Control Version Number', 'I11'],
      ['Interchange Control Number', 'I12'],
      ['Acknowledgment Requested', 'I13'],
      ['Usage Indicator', 'I14'],
      ['Component Element Separator', 'I15'],
    ],
  },
  GS: {
    name: 'Functional Group Header',
    elements: [
      ['Functional Identifier Code', '479'],
      ['Application Sender\u2019s Code', '142'],
      ['Application Receiver\u2019s Code', '124'],
      ['Date', '373'],
      ['Time', '337'],
      ['Group Control Number', '28'],
      ['Responsible Agency Code', '455'],
      ['Version / Release / Industry Identifier Code', '480'],
    ],
  },
  GE: { name: 'Functional Group Trailer', elements: [['Number of Transaction Sets Included', '97'], ['Group Control Number', '28']] },
  IEA: { name: 'Interchange Control Trailer', elements: [['Number of Included Functional Groups', 'I16'], ['Interchange Control Number', 'I12']] },
};

const envelopeCodes: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  I05: { '01': 'DUNS (Dun & Bradstreet)', '08': 'UCC EDI Communications ID', '12': 'Phone (Telephone Companies)', '14': 'DUNS Plus Suffix', ZZ: 'Mutually Defined' },
  I13: { '0': 'No Interchange Acknowledgment Requested', '1': 'Interchange Acknowledgment Requested (TA1)' },
  I14: { P: 'Production Data', T: 'Test Data', I: 'Information' },
  '455': { X: 'Accredited Standards Committee X12', T: 'Transportation Data Coordinating Committee (TDCC)' },
};

function meaningOf(reference: string | null, value: string): string | null {
  if (!reference || value === '') return null;
  if (reference === '143') return setStructures[value]?.name ?? null;
  return envelopeCodes[reference]?.[value] ?? codeMeaning(reference, value) ?? null;
}

interface Delims {
  readonly element: string;
  readonly component: string;
  readonly segment: string;
}

/** Delimiters from the ISA (element separator after "ISA", ISA16, and the byte after it). */
function delimiters(text: string, at: number): Delims | null {
  const element = text[at + 3];
  if (!element) return null;
  let seen = 0;
  for (let i = at; i < text.length && i < at + 256; i++) {
    if (text[i] !== element) continue;
    seen++;
    if (seen === 16) {
      const component = text[i + 1];
      const segment = text[i + 2];
      return component && segment ? { element, component, segment } : null;
    }
  }
  return null;
}

function plainElements(values: readonly string[], id: string): RenderedElement[] {
  return values.map((value, i) => ({ label: `${id}${String(i + 1).padStart(2, '0')}`, reference: null, name: null, value, meaning: null }));
}

function definedElement(def: ElementDef | undefined, label: string, value: string, d: Delims): RenderedElement {
  if (!def) return { label, reference: null, name: null, value, meaning: null };
  if (def.type === 'composite' && def.components) {
    const parts = value.split(d.component);
    const components = parts.map((v, j) => definedElement(def.components?.[j], `${label}-${String(j + 1).padStart(2, '0')}`, v, d));
    return { label, reference: def.reference, name: def.name, value, meaning: null, components };
  }
  return { label, reference: def.reference, name: def.name, value, meaning: meaningOf(def.reference, value) };
}

/** Finds where each segment of a set sits in its structure (greedy, in order, as the standard reads). */
class Placer {
  private readonly stack: { nodes: readonly StructureNode[]; idx: number; loop: boolean }[];

  constructor(nodes: readonly StructureNode[]) {
    this.stack = [{ nodes, idx: 0, loop: false }];
  }

  place(id: string): { def: SegmentNode; depth: number; loop: string | null } | null {
    for (let level = this.stack.length - 1; level >= 0; level--) {
      const frame = this.stack[level]!;
      // inside a loop its first segment begins the next iteration, found one level up
      for (let i = frame.loop ? Math.max(frame.idx, 1) : frame.idx; i < frame.nodes.length; i++) {
        const node = frame.nodes[i]!;
        if (node.kind === 'segment' && node.id === id) {
          frame.idx = i;
          this.stack.length = level + 1;
          return { def: node, depth: level, loop: null };
        }
        const first = node.kind === 'loop' ? node.children[0] : undefined;
        if (node.kind === 'loop' && first?.kind === 'segment' && first.id === id) {
          frame.idx = i;
          this.stack.length = level + 1;
          this.stack.push({ nodes: node.children, idx: 0, loop: true });
          return { def: first, depth: level + 1, loop: node.id };
        }
      }
    }
    return null;
  }

  get depth(): number {
    return this.stack.length - 1;
  }
}

/** Splits and names a whole interchange (or several). Text that is not X12 gives []. */
export function renderX12(text: string): RenderedSegment[] {
  const start = text.indexOf('ISA');
  if (start < 0) return [];
  const d = delimiters(text, start);
  if (!d) return [];
  const out: RenderedSegment[] = [];
  let release = '';
  let placer: Placer | null = null;
  let position = 0;
  for (const piece of text.slice(start).split(d.segment)) {
    const raw = piece.replace(/^[\r\n\s]+|[\r\n]+$/g, '');
    if (raw === '') continue;
    const [id = '', ...values] = raw.split(d.element);
    const env = envelopes[id];
    if (env) {
      if (id === 'GS') release = values[7] ?? '';
      const elements = values.map((value, i) => {
        const [name, reference] = env.elements[i] ?? [null, null];
        return { label: `${id}${String(i + 1).padStart(2, '0')}`, reference, name, value, meaning: meaningOf(reference, value.trim()) };
      });
      out.push({ id, name: env.name, depth: 0, loop: null, position: null, elements, raw });
      continue;
    }
    if (id === 'ST') {
      const impl = baseImplementation(values[0] ?? '', release);
      placer = impl ? new Placer(impl.tables.flatMap((t) => t.children)) : null;
      position = 0;
    }
    position++;
    const spot = placer?.place(id) ?? null;
    const elements = spot ? values.map((v, i) => definedElement(spot.def.elements[i], `${id}${String(i + 1).padStart(2, '0')}`, v, d)) : plainElements(values, id);
    out.push({ id, name: spot?.def.name ?? null, depth: 1 + (spot?.depth ?? placer?.depth ?? 0), loop: spot?.loop ?? null, position, elements, raw });
    if (id === 'SE') placer = null;
  }
  return out;
}

/**
 * The envelopes and the one set a transaction is (group control number GS06, set control number
 * ST02), out of a whole interchange; everything when that set is not in it.
 */
export function onlySet(segments: readonly RenderedSegment[], groupControl: string, setControl: string): { segments: RenderedSegment[]; hidden: number } {
  const out: RenderedSegment[] = [];
  let group = '';
  let inSet = false;
  let found = false;
  let hidden = 0;
  const value = (s: RenderedSegment, i: number): string => (s.elements[i]?.value ?? '').trim();
  for (const s of segments) {
    if (s.id === 'GS') group = value(s, 5);
    if (s.id === 'ST') {
      inSet = group === groupControl && value(s, 1) === setControl;
      if (inSet) found = true;
      else hidden++;
    }
    const envelope = s.id === 'ISA' || s.id === 'IEA' || ((s.id === 'GS' || s.id === 'GE') && group === groupControl);
    if (envelope || inSet) out.push(s);
    if (s.id === 'SE') inSet = false;
  }
  return found ? { segments: out, hidden } : { segments: [...segments], hidden: 0 };
}
