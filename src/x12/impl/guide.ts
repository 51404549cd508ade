/**
 * The text guide of an implementation, as console text or Markdown: every table, loop, segment
 * and element with requirement, usage, repeats, type and length, allowed codes, notes, syntax
 * notes (conditions), and the deviations from the implementation it was derived from.
 */
import { resolveImplementation } from './base.ts';
import { deviations } from './derive.ts';
import type { ElementDef, Implementation, StructureNode } from './model.ts';

export type GuideVariant = 'console' | 'markdown';

const usageText = { must_use: 'must use', used: 'used', not_used: 'not used' } as const;
const max = (n: number | null): string => (n === null ? '>1' : String(n));
const pad2 = (n: number): string => String(n).padStart(2, '0');

const syntaxText: Record<string, string> = {
  P: 'if any of {e} is present, all are required',
  R: 'at least one of {e} is required',
  E: 'only one of {e} may be present',
  C: 'if {f} is present, {r} are required',
  L: 'if {f} is present, at least one of {r} is required',
};

function describeSyntax(segment: string, note: string): string {
  const els: string[] = [];
  for (let i = 1; i + 1 < note.length; i += 2) els.push(`${segment}${note.slice(i, i + 2)}`);
  const t = syntaxText[note[0] ?? ''] ?? note;
  return `${note}: ${t.replace('{e}', els.join(', ')).replace('{f}', els[0] ?? '').replace('{r}', els.slice(1).join(', '))}`;
}

interface Out {
  line(depth: number, text: string): void;
  heading(level: number, text: string): void;
  elementsTable(rows: string[][]): void;
}

function consoleOut(lines: string[]): Out {
  return {
    line: (depth, text) => lines.push(`${'  '.repeat(depth)}${text}`),
    heading: (level, text) => {
      lines.push('');
      lines.push(text);
      lines.push((level === 1 ? '=' : '-').repeat(text.length));
    },
    elementsTable: (rows) => {
      const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
      for (const r of rows) lines.push(`      ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd());
    },
  };
}

function markdownOut(lines: string[]): Out {
  const esc = (s: string): string => s.replaceAll('|', '\\|');
  return {
    line: (depth, text) => lines.push(`${'  '.repeat(depth)}- ${text}`),
    heading: (level, text) => {
      lines.push('');
      lines.push(`${'#'.repeat(level + 1)} ${text}`);
      lines.push('');
    },
    elementsTable: (rows) => {
      const [head, ...body] = rows;
      if (!head) return;
      lines.push('');
      lines.push(`| ${head.map(esc).join(' | ')} |`);
      lines.push(`|${head.map(() => '---').join('|')}|`);
      for (const r of body) lines.push(`| ${r.map(esc).join(' | ')} |`);
      lines.push('');
    },
  };
}

function elementRows(segment: string, els: readonly ElementDef[], prefix: string, rows: string[][]): void {
  for (const e of els) {
    const type = e.type === 'composite' ? 'composite' : `${e.type} ${e.minLength}/${e.maxLength}`;
    const extra: string[] = [];
    if (e.repeat > 1) extra.push(`repeats ${e.repeat}`);
    if (e.codes) extra.push(`codes: ${e.codes.join(', ')}`);
    if (e.notes) extra.push(e.notes);
    rows.push([`${prefix}${pad2(e.position)}`, e.reference, e.name, e.requirement, usageText[e.usage], type, extra.join('; ')]);
    if (e.components) elementRows(segment, e.components, `${prefix}${pad2(e.position)}-`, rows);
  }
}

function nodes(list: readonly StructureNode[], depth: number, out: Out, markdown: boolean): void {
  for (const n of list) {
    if (n.kind === 'loop') {
      out.line(depth, `${markdown ? '**' : ''}Loop ${n.id}${markdown ? '**' : ''}  position ${n.position}, ${n.requirement}, ${usageText[n.usage]}, repeat ${max(n.repeat)}${n.notes ? `, ${n.notes}` : ''}`);
      nodes(n.children, depth + 1, out, markdown);
      continue;
    }
    out.line(
      depth,
      `${markdown ? '**' : ''}${n.id}${markdown ? '**' : ''} ${n.name}  position ${n.position}, ${n.requirement}, ${usageText[n.usage]}, max use ${max(n.maxUse)}${n.notes ? `, ${n.notes}` : ''}`,
    );
    if (n.usage === 'not_used') continue;
    const rows: string[][] = [['Element', 'Ref', 'Name', 'Req', 'Usage', 'Type', 'Notes']];
    elementRows(n.id, n.elements, n.id, rows);
    out.elementsTable(rows);
    for (const s of n.syntax ?? []) out.line(depth + 1, `Condition ${describeSyntax(n.id, s)}`);
  }
}

/**
 * Renders the guide. Deviations are listed against `source` (by default the base implementation
 * of the same set and release, when the implementation is not itself that base).
 */
export function renderGuide(impl: Implementation, variant: GuideVariant = 'console', source?: Implementation | null): string {
  const lines: string[] = [];
  const markdown = variant === 'markdown';
  const out = markdown ? markdownOut(lines) : consoleOut(lines);
  const ts = impl.transactionSet;
  if (markdown) lines.push(`# ${impl.name}`);
  else {
    lines.push(impl.name);
    lines.push('='.repeat(impl.name.length));
  }
  lines.push('');
  lines.push(`Transaction set ${ts.identifier}, release ${ts.release}; version ${impl.version} (${impl.status}).`);
  if (impl.description) lines.push('', impl.description);
  if (impl.sourceImplementation) lines.push('', `Derived from ${impl.sourceImplementation.name}.`);
  const base = source === undefined ? resolveImplementation(ts.identifier, ts.release) : source;
  if (base && base.id !== impl.id) {
    const devs = deviations(impl, base);
    out.heading(1, 'Deviations from the standard');
    if (devs.length === 0) lines.push('None.');
    for (const d of devs) out.line(0, `${d.path}: ${d.field} ${d.base} → ${d.value}`);
  }
  for (const t of impl.tables) {
    out.heading(1, `Table ${t.name}`);
    nodes(t.children, 0, out, markdown);
  }
  return `${lines.join('\n').trim()}\n`;
}
