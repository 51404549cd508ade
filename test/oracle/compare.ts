/**
 * Position-by-position comparison of one of our base definitions with the oracle's grammar of the
 * same set and release: segment order, loop nesting and repeats, requirement, element count, min
 * and max length and data type class. Returns the disagreements as readable lines (empty when
 * they agree).
 */
import type { ElementDef, Implementation, StructureNode } from '../../src/x12/impl/index.ts';
import type { OracleElement, OracleGrammar, OracleNode } from './oracle.ts';

/** Bots writes an unbounded max use / repeat as a large number. */
const UNBOUNDED = 99999;

/** The oracle's type class of one of our types: ID is folded into AN, N0 into R. */
export function typeClass(type: string): string {
  if (type === 'ID' || type === 'AN') return 'AN';
  if (type === 'N0' || type === 'R' || type === 'N') return 'R';
  return type;
}

const maxText = (m: number | null): string => (m === null || m >= UNBOUNDED ? '>1' : String(m));

function compareElements(where: string, ours: readonly ElementDef[], theirs: readonly OracleElement[], out: string[]): void {
  if (ours.length !== theirs.length) out.push(`${where}: ${ours.length} elements, standard ${theirs.length}`);
  const n = Math.min(ours.length, theirs.length);
  for (let i = 0; i < n; i++) {
    const o = ours[i]!;
    const t = theirs[i]!;
    const at = `${where}${String(i + 1).padStart(2, '0')}`;
    const req = o.requirement === 'M' ? 'M' : 'C';
    if (req !== t.requirement) out.push(`${at}: requirement ${o.requirement}, standard ${t.requirement === 'M' ? 'M' : 'O/X'}`);
    if (t.components !== undefined) {
      if (o.type !== 'composite') out.push(`${at}: simple element ${o.reference}, standard a composite`);
      else compareElements(`${at}-`, o.components ?? [], t.components, out);
      continue;
    }
    if (o.type === 'composite') {
      out.push(`${at}: composite ${o.reference}, standard a simple element`);
      continue;
    }
    if (typeClass(o.type) !== t.type) out.push(`${at}: type ${o.type} (${o.reference}), standard ${t.type}`);
    if (o.minLength !== t.min || o.maxLength !== t.max) out.push(`${at}: length ${o.minLength}/${o.maxLength} (${o.reference}), standard ${t.min}/${t.max}`);
  }
}

function compareLevel(where: string, ours: readonly StructureNode[], theirs: readonly OracleNode[], g: OracleGrammar, seen: Set<string>, out: string[]): void {
  const n = Math.max(ours.length, theirs.length);
  for (let i = 0; i < n; i++) {
    const o = ours[i];
    const t = theirs[i];
    if (o === undefined || t === undefined) {
      out.push(`${where}[${i + 1}]: ours ${o === undefined ? 'nothing' : describe(o)}, standard ${t === undefined ? 'nothing' : describeOracle(t)}`);
      // the rest of this level is out of step: one line says it
      return;
    }
    const oid = o.kind === 'segment' ? o.id : (o.children[0] as { id: string }).id;
    if (oid !== t.id || (o.kind === 'loop') !== (t.children !== undefined)) {
      out.push(`${where}[${i + 1}]: ours ${describe(o)}, standard ${describeOracle(t)}`);
      return;
    }
    const req = t.min > 0 ? 'M' : 'O';
    if (o.kind === 'segment') {
      if (o.requirement !== req || maxText(o.maxUse) !== maxText(t.max)) out.push(`${where}/${o.id}: ${o.requirement} ${maxText(o.maxUse)}, standard ${req} ${maxText(t.max)}`);
      segment(o.id, o.elements, g, seen, out);
    } else {
      if (o.requirement !== req || maxText(o.repeat) !== maxText(t.max)) out.push(`${where}/loop ${oid}: ${o.requirement} ${maxText(o.repeat)}, standard ${req} ${maxText(t.max)}`);
      const first = o.children[0];
      if (first?.kind === 'segment') segment(first.id, first.elements, g, seen, out);
      compareLevel(`${where}/${oid}`, o.children.slice(1), t.children ?? [], g, seen, out);
    }
  }
}

function segment(id: string, elements: readonly ElementDef[], g: OracleGrammar, seen: Set<string>, out: string[]): void {
  if (seen.has(id)) return;
  seen.add(id);
  const theirs = g.segments?.[id];
  if (theirs === undefined) out.push(`${id}: not in the standard's dictionary`);
  else compareElements(id, elements, theirs, out);
}

function describe(n: StructureNode): string {
  return n.kind === 'segment' ? `segment ${n.id}` : `loop ${(n.children[0] as { id: string }).id}`;
}

function describeOracle(n: OracleNode): string {
  return n.children !== undefined ? `loop ${n.id}` : `segment ${n.id}`;
}

/** Every disagreement between `impl` and the oracle's grammar `g`. */
export function compareWithOracle(impl: Implementation, g: OracleGrammar): string[] {
  const out: string[] = [];
  const st = g.structure?.[0];
  if (st === undefined || st.id !== 'ST') return ['the standard has no ST level'];
  const nodes = impl.tables.flatMap((t) => t.children);
  const first = nodes[0];
  if (first?.kind !== 'segment' || first.id !== 'ST') return ['our definition does not begin with ST'];
  const seen = new Set<string>();
  segment('ST', first.elements, g, seen, out);
  compareLevel('ST', nodes.slice(1), st.children ?? [], g, seen, out);
  return out;
}
