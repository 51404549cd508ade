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

/** Key of a node for the alignment: its kind and the id of its (first) segment. */
const keyOf = (n: StructureNode): string => (n.kind === 'segment' ? `s:${n.id}` : `l:${(n.children[0] as { id: string }).id}`);
const keyOfOracle = (n: OracleNode): string => `${n.children !== undefined ? 'l' : 's'}:${n.id}`;

/**
 * Aligns the two levels on their keys (longest common subsequence), so a segment or loop one
 * side lacks is reported as such and the rest of the level is still compared.
 */
function align(ours: readonly string[], theirs: readonly string[]): Array<[number | null, number | null]> {
  const m = ours.length;
  const n = theirs.length;
  const lcs: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(0));
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      lcs[i]![j] = ours[i] === theirs[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: Array<[number | null, number | null]> = [];
  let i = 0;
  let j = 0;
  while (i < m || j < n) {
    if (i < m && j < n && ours[i] === theirs[j]) out.push([i++, j++]);
    else if (j < n && (i >= m || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) out.push([null, j++]);
    else out.push([i++, null]);
  }
  return out;
}

function compareLevel(where: string, ours: readonly StructureNode[], theirs: readonly OracleNode[], g: OracleGrammar, seen: Set<string>, out: string[]): void {
  const pairs = align(ours.map(keyOf), theirs.map(keyOfOracle));
  let previous = 'the start';
  for (const [oi, ti] of pairs) {
    const o = oi === null ? undefined : ours[oi];
    const t = ti === null ? undefined : theirs[ti];
    if (t === undefined) {
      out.push(`${where}: ours has ${describe(o!)} after ${previous}, the standard has not`);
      continue;
    }
    const req = t.min > 0 ? 'M' : 'O';
    if (o === undefined) {
      out.push(`${where}: ours lacks ${describeOracle(t)} (${req} ${maxText(t.max)}) after ${previous}${t.children === undefined ? '' : `, holding ${outline(t.children)}`}`);
      previous = describeOracle(t);
      continue;
    }
    previous = describe(o);
    if (o.kind === 'segment') {
      if (o.requirement !== req || maxText(o.maxUse) !== maxText(t.max)) out.push(`${where}/${o.id}: ${o.requirement} ${maxText(o.maxUse)}, standard ${req} ${maxText(t.max)}`);
      segment(o.id, o.elements, g, seen, out);
    } else {
      const oid = (o.children[0] as { id: string }).id;
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

/** The standard's content of a loop we lack, as `ID M/O max` items with nested loops in braces. */
function outline(nodes: readonly OracleNode[]): string {
  return nodes.map((n) => `${n.children === undefined ? '' : '{'}${n.id} ${n.min > 0 ? 'M' : 'O'} ${maxText(n.max)}${n.children === undefined ? '' : `, ${outline(n.children)}}`}`).join(', ');
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
