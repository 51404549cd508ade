/**
 * One pass over a transaction set's text, driven by an implementation's precompiled plan
 * (compile.ts): places each segment in its table and loop (loops as arrays), converts elements by
 * data type and, when asked, checks requirements, repeats, codes, lengths, types and syntax
 * notes. Translation writes the JSON text directly (no objects, no `JSON.stringify`); validation
 * reports findings. Both run this pass; each turns off the work it does not need.
 *
 * The pass reads the set's raw text with `indexOf` and character codes: segments are never split
 * into arrays, element values are sliced only when written, numbers and dates are converted by
 * hand-written parsers straight to JSON text, and all JSON keys are precomputed.
 *
 * Placement: a segment is looked for from the current position forward in the innermost open
 * loop, then in each enclosing level (which closes the inner loops); a loop's beginning segment
 * opens a new instance of it. A segment that fits nowhere (or a second occurrence of a segment
 * used at most once) is kept in the generic segment shape (`{"id": "ZZZ", "ZZZ01": ...}`) under
 * `unrecognized_segments` of the level where it was met, written at the end of that level's
 * object.
 */
import type { Warning } from '../findings.ts';
import { genericSegmentJson, hasJsonEscapes } from '../generic.ts';
import { charIn, isSkippable, setText, trimSegmentEnd } from '../set-read.ts';
import type { Delimiters, TransactionSetRead } from '../types.ts';
import { T_COMPOSITE, T_DT, T_N, T_R, T_STRING, T_TM } from './compile.ts';
import type { CChild, CElement, CLevel, CSegment, CSyntax, Compiled } from './compile.ts';
import type { Ak3Code, Ak4Code, Finding } from './results.ts';
import { dateJson, digitsAt, isDateAt, isTimeAt, nJson, rJson } from './values.ts';

export type JsonObject = Record<string, unknown>;

/** Key under which segments that fit nowhere are kept, in the generic segment shape. */
export const UNRECOGNIZED_SEGMENTS = 'unrecognized_segments';
/** Prefix of the key of an element beyond the segment's definition (raw value). */
export const UNRECOGNIZED_ELEMENT = 'unrecognized_element_';

export interface RunResult {
  /** JSON text of the translation ('' when not translating). */
  readonly json: string;
  readonly warnings: Warning[];
  readonly findings: Finding[];
}

/** One open object: the document's current table (root) or a loop instance. */
class Frame {
  /** Child index of the last segment or loop placed here. */
  idx = 0;
  /** Child whose key was written last (-1: none yet); `open` when its array is still open. */
  last = -1;
  open = false;
  /** The object has a member already. */
  any = false;
  /** JSON text of the unrecognized segments met here, written when the object closes. */
  unrec = '';
  /** Root only: the table whose object is open. */
  table: string | null = null;
  constructor(
    readonly level: CLevel,
    readonly counts: number[] | null,
  ) {}
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

const unrecognizedKeys: string[] = [];
function unrecognizedKey(i: number): string {
  while (unrecognizedKeys.length <= i) unrecognizedKeys.push(`"${UNRECOGNIZED_ELEMENT}${pad2(unrecognizedKeys.length + 1)}":`);
  return unrecognizedKeys[i]!;
}

function isSegmentId(id: string): boolean {
  if (id.length < 2 || id.length > 3) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const upper = c >= 65 && c <= 90;
    if (!(upper || (i > 0 && c >= 48 && c <= 57))) return false;
  }
  return true;
}

class Pass {
  readonly warnings: Warning[] = [];
  readonly findings: Finding[] = [];
  /** JSON text written so far. */
  out = '';
  private readonly el: string;
  private readonly comp: string;
  private readonly rep: string | null;
  private readonly t: string;
  private readonly escape: boolean;
  // The segment being read: `t[start, stop)`, id up to `sep`.
  private id = '';
  private start = 0;
  private sep = 0;
  private stop = 0;
  private position = 0;
  private loopId: string | null = null;
  /** Validation of syntax notes: which elements of the segment are present. */
  private readonly present: boolean[] = [];
  private presentCount = 0;
  /** Validation of composites: which components are present. */
  private readonly compPresent: boolean[] = [];

  constructor(
    private readonly c: Compiled,
    private readonly d: Delimiters,
    text: string,
    private readonly translate: boolean,
    private readonly validate: boolean,
  ) {
    this.el = d.element;
    this.comp = d.component;
    this.rep = d.repetition;
    this.t = text;
    this.escape = translate && hasJsonEscapes(text);
  }

  run(): void {
    const t = this.t;
    const n = t.length;
    const el = this.el;
    const elCode = el.charCodeAt(0);
    const term = this.d.segment;
    const trimEnd = term === '\n' || term === '\r';
    const root = this.c.root;
    const stack: Frame[] = [new Frame(root, this.validate ? new Array<number>(root.children.length).fill(0) : null)];
    if (this.translate) this.out = '{';
    let pos = 0;
    while (pos < n) {
      let ch = t.charCodeAt(pos);
      while (pos < n && ch !== elCode && isSkippable(ch)) ch = t.charCodeAt(++pos);
      if (pos >= n) break;
      let end = t.indexOf(term, pos);
      if (end < 0) end = n;
      const stop = trimSegmentEnd(t, pos, end, trimEnd);
      if (stop > pos) {
        let sep = t.indexOf(el, pos);
        if (sep < 0 || sep > stop) sep = stop;
        this.start = pos;
        this.sep = sep;
        this.stop = stop;
        this.id = t.slice(pos, sep);
        this.position++;
        this.segment(stack);
      }
      pos = end + 1;
    }
    while (stack.length > 1) this.closeFrame(stack.pop() as Frame);
    const rootFrame = stack[0] as Frame;
    this.close(rootFrame);
    if (this.translate) {
      if (rootFrame.table !== null) this.closeObject(rootFrame);
      this.out += '}';
    }
  }

  private segment(stack: Frame[]): void {
    const id = this.id;
    for (let f = stack.length - 1; f >= 0; f--) {
      const fr = stack[f] as Frame;
      const cands = fr.level.lookup.get(id);
      if (cands === undefined) continue;
      const from = f > 0 && fr.idx === 0 ? 1 : fr.idx;
      let ci = -1;
      for (let k = 0; k < cands.length; k++) {
        const c = cands[k] as number;
        if (c >= from) {
          ci = c;
          break;
        }
      }
      if (ci < 0) continue;
      while (stack.length - 1 > f) this.closeFrame(stack.pop() as Frame);
      const child = fr.level.children[ci] as CChild;
      fr.idx = ci;
      let count = 0;
      if (fr.counts !== null) count = ++(fr.counts[ci] as number);
      if (this.translate && f === 0) this.table(fr, child.table);
      if (child.seg !== null) {
        this.loopId = fr.level.loopId;
        this.place(fr, ci, child, child.seg, count);
      } else {
        const lvl = child.loop as CLevel;
        this.loopId = lvl.loopId;
        if (this.validate) {
          if (child.notUsed) this.segmentFinding('2', `Loop ${lvl.loopId ?? ''} is not used by the implementation.`, 'I6');
          else if (count > child.max) this.segmentFinding('4', `Loop ${lvl.loopId ?? ''} occurs more than ${child.max} times.`);
        }
        if (this.translate) this.member(fr, ci, child);
        const counts = this.validate ? new Array<number>(lvl.children.length).fill(0) : null;
        if (counts !== null) counts[0] = 1;
        const inst = new Frame(lvl, counts);
        stack.push(inst);
        if (this.translate) this.out += '{';
        this.place(inst, 0, lvl.children[0] as CChild, (lvl.children[0] as CChild).seg as CSegment, 1);
      }
      return;
    }
    this.unplaced(stack);
  }

  /** Root: makes `table` the open table object. */
  private table(root: Frame, table: string): void {
    if (root.table === table) return;
    if (root.table !== null) {
      this.closeObject(root);
      this.out += ',';
    }
    this.out += `"${table}":{`;
    root.table = table;
    root.last = -1;
    root.open = false;
    root.any = false;
    root.unrec = '';
  }

  /** Writes the key of child `ci` in `fr`'s object, or the comma before a further array item. */
  private member(fr: Frame, ci: number, child: CChild): void {
    if (fr.last === ci && fr.open) {
      this.out += ',';
      return;
    }
    let s = fr.open ? ']' : '';
    s += fr.any ? child.k1 : child.k0;
    fr.any = true;
    fr.last = ci;
    fr.open = child.array;
    this.out += child.array ? s + '[' : s;
  }

  /** Ends an object: closes its open array, writes its unrecognized segments and the brace. */
  private closeObject(fr: Frame): void {
    let s = fr.open ? ']' : '';
    if (fr.unrec !== '') s += (fr.any ? ',"' : '"') + UNRECOGNIZED_SEGMENTS + '":[' + fr.unrec + ']';
    this.out += s + '}';
  }

  private closeFrame(fr: Frame): void {
    this.close(fr);
    if (this.translate) this.closeObject(fr);
  }

  private unplaced(stack: Frame[]): void {
    const top = stack[stack.length - 1] as Frame;
    this.loopId = top.level.loopId;
    if (this.translate) {
      if (stack.length === 1) {
        const child = top.level.children[top.idx];
        this.table(top, child ? child.table : 'heading');
      }
      this.keep(top);
    }
    if (this.validate) {
      const id = this.id;
      if (!isSegmentId(id)) this.segmentFinding('1', `Segment id "${id}" is not a segment id.`);
      else if (this.c.segmentIds.has(id)) this.segmentFinding('7', `Segment ${id} is not in its proper sequence.`);
      else this.segmentFinding('2', `Segment ${id} is not expected in transaction set ${this.c.impl.transactionSet.identifier}.`);
    }
  }

  /** Keeps the current segment, generic shape, among `fr`'s unrecognized segments. */
  private keep(fr: Frame): void {
    const j = genericSegmentJson(this.t, this.start, this.sep, this.stop, this.d, this.escape);
    fr.unrec = fr.unrec === '' ? j : fr.unrec + ',' + j;
  }

  /** Mandatory children never met in a level that ends. */
  private close(fr: Frame): void {
    if (fr.counts === null) return;
    const children = fr.level.children;
    for (let i = 0; i < children.length; i++) {
      const ch = children[i] as CChild;
      if (!ch.mandatory || fr.counts[i] !== 0 || ch.segId === 'SE' || ch.segId === 'ST') continue;
      const what = ch.loop !== null ? `loop ${ch.loop.loopId ?? ''} (segment ${ch.segId})` : `segment ${ch.segId}`;
      this.findings.push({
        level: 'segment',
        code: '3',
        segmentId: ch.segId,
        position: this.position,
        loopId: ch.loop !== null ? ch.loop.loopId : fr.level.loopId,
        message: `Mandatory ${what} is missing${fr.level.loopId ? ` in loop ${fr.level.loopId}` : ''}.`,
      });
    }
  }

  private place(fr: Frame, ci: number, child: CChild, cs: CSegment, count: number): void {
    if (this.validate) {
      if (child.notUsed) this.segmentFinding('2', `Segment ${cs.id} is not used by the implementation.`, 'I6');
      else if (count > child.max) this.segmentFinding('5', `Segment ${cs.id} is used more than ${child.max} times.`);
    }
    if (!this.translate) {
      this.elements(cs, false);
      return;
    }
    if (fr.last === ci && !child.array) {
      // a second occurrence of a segment used at most once: kept as read
      this.elements(cs, false);
      this.keep(fr);
      return;
    }
    this.member(fr, ci, child);
    this.out += this.elements(cs, true);
  }

  /** Reads the segment's elements; returns the segment's JSON object text when `emit`. */
  private elements(cs: CSegment, emit: boolean): string {
    const t = this.t;
    const stop = this.stop;
    const el = this.el;
    const defs = cs.elements;
    const nd = defs.length;
    const v = this.validate;
    const syntax = v && cs.syntax.length > 0;
    let s = '';
    let i = 0;
    if (this.sep < stop) {
      let a = this.sep + 1;
      for (;;) {
        let b = t.indexOf(el, a);
        if (b < 0 || b > stop) b = stop;
        if (syntax) this.present[i] = b > a;
        const def = defs[i];
        if (b > a) {
          if (def === undefined) {
            if (emit) s += (s === '' ? '' : ',') + unrecognizedKey(i) + this.str(a, b);
            if (v) this.elementFinding('3', i + 1, null, null, '', t.slice(a, b), `${cs.id}${pad2(i + 1)} is beyond the segment's ${nd} elements.`);
          } else {
            if (v && def.notUsed) this.elementFinding('10', def.position, null, null, def.reference, t.slice(a, b), `${def.name} is not used by the implementation.`, 'I10');
            const j = def.repeat > 1 ? this.repeated(def, a, b) : def.t === T_COMPOSITE ? this.composite(def, a, b, null) : this.simple(def, a, b, null);
            if (emit && j !== null) s += (s === '' ? def.k0 : def.k1) + j;
          }
        } else if (v && def !== undefined && def.mandatory) this.missing(def);
        i++;
        if (b >= stop) break;
        a = b + 1;
      }
    }
    if (v) {
      for (let k = i; k < nd; k++) if ((defs[k] as CElement).mandatory) this.missing(defs[k] as CElement);
      if (syntax) {
        this.presentCount = i;
        this.syntax(cs);
      }
    }
    return emit ? '{' + s + '}' : '';
  }

  /** A repeating element: always an array (repetitions that translate to nothing are left out). */
  private repeated(def: CElement, a: number, b: number): string {
    const t = this.t;
    const rep = this.rep === null ? -1 : this.rep.charCodeAt(0);
    let s = '';
    let any = false;
    let r = 0;
    let x = a;
    for (;;) {
      const y = rep < 0 ? b : charIn(t, rep, x, b);
      if (y > x) {
        if (this.validate && r >= def.repeat) this.elementFinding('12', def.position, null, r + 1, def.reference, t.slice(x, y), `${def.name} repeats more than ${def.repeat} times.`);
        const j = def.t === T_COMPOSITE ? this.composite(def, x, y, r + 1) : this.simple(def, x, y, r + 1);
        if (j !== null && this.translate) {
          s += any ? ',' + j : j;
          any = true;
        }
      }
      r++;
      if (y >= b) break;
      x = y + 1;
    }
    return '[' + s + ']';
  }

  /** A composite: an object keyed by component, or null when no component translates to anything. */
  private composite(def: CElement, a: number, b: number, rep: number | null): string | null {
    const t = this.t;
    const comps = def.components as readonly CElement[];
    const nc = comps.length;
    const v = this.validate;
    const comp = this.comp.charCodeAt(0);
    const seen = this.compPresent;
    let s = '';
    let any = false;
    let j = 0;
    let x = a;
    for (;;) {
      const y = charIn(t, comp, x, b);
      const cd = comps[j];
      if (v && j < nc) seen[j] = y > x;
      if (cd === undefined) {
        if (v && y > x) this.elementFinding('13', def.position, j + 1, rep, def.reference, t.slice(a, b), `${def.name} has more than ${nc} components.`);
      } else if (y > x) {
        const r = this.simple(cd, x, y, rep);
        if (r !== null) {
          s += any ? cd.k1 + r : cd.k0 + r;
          any = true;
        }
      }
      j++;
      if (y >= b) break;
      x = y + 1;
    }
    if (v) {
      for (let k = 0; k < nc; k++) {
        const cd = comps[k] as CElement;
        if (cd.mandatory && (k >= j || !seen[k])) this.missing(cd);
      }
    }
    return any ? '{' + s + '}' : null;
  }

  /** JSON text of `t[a, b)` as a string. */
  private str(a: number, b: number): string {
    return this.escape ? JSON.stringify(this.t.slice(a, b)) : '"' + this.t.slice(a, b) + '"';
  }

  /**
   * A simple element or component `t[a, b)`: its JSON text ('' when not translating), or null
   * when it is left out of the translation (an unreadable date).
   */
  private simple(def: CElement, a: number, b: number, rep: number | null): string | null {
    const v = this.validate;
    const t = this.t;
    switch (def.t) {
      case T_STRING:
        if (v) {
          if (def.codes !== null && !def.codes.has(t.slice(a, b))) {
            const raw = t.slice(a, b);
            this.elementFinding('7', def.ep, def.cp, rep, def.reference, raw, `${def.name} "${raw}" is not an allowed code.`);
          } else this.length(def, a, b, b - a, rep);
        }
        return this.translate ? this.str(a, b) : '';
      case T_N:
      case T_R: {
        const num = def.t === T_N ? nJson(t, a, b, def.decimals) : rJson(t, a, b);
        if (num === null) {
          if (v) {
            const raw = t.slice(a, b);
            this.elementFinding('6', def.ep, def.cp, rep, def.reference, raw, `${def.name} "${raw}" is not a ${def.def.type} number.`);
          }
          return this.translate ? this.str(a, b) : '';
        }
        if (v) this.length(def, a, b, digitsAt(t, a, b), rep);
        return num;
      }
      case T_DT:
        if (!isDateAt(t, a, b)) {
          const raw = t.slice(a, b);
          const message = `Segment ${this.id} (position ${this.position}), element ${def.name}: "${raw}" cannot be read as a date; the element is left out of the translation.`;
          if (this.translate) this.warnings.push({ code: 'invalid_date', message, detail: { segment: this.id, element: def.name, value: raw } });
          if (v) this.elementFinding('8', def.ep, def.cp, rep, def.reference, raw, message);
          return null;
        }
        if (v) this.length(def, a, b, b - a, rep);
        return this.translate ? dateJson(t, a, b) : '';
      case T_TM:
        if (v) {
          if (!isTimeAt(t, a, b)) {
            const raw = t.slice(a, b);
            this.elementFinding('9', def.ep, def.cp, rep, def.reference, raw, `${def.name} "${raw}" is not a time.`);
          } else this.length(def, a, b, b - a, rep);
        }
        return this.translate ? this.str(a, b) : '';
      default:
        return this.translate ? this.str(a, b) : '';
    }
  }

  private length(def: CElement, a: number, b: number, len: number, rep: number | null): void {
    if (len < def.min) {
      const raw = this.t.slice(a, b);
      this.elementFinding('4', def.ep, def.cp, rep, def.reference, raw, `${def.name} "${raw}" is shorter than ${def.min}.`);
    } else if (len > def.max) this.elementFinding('5', def.ep, def.cp, rep, def.reference, this.t.slice(a, b), `${def.name} is longer than ${def.max}.`);
  }

  private missing(def: CElement): void {
    this.elementFinding('1', def.ep, def.cp, null, def.reference, null, `Mandatory element ${def.name} (${def.def.name}) is missing.`);
  }

  private has(i: number): boolean {
    return i < this.presentCount && this.present[i] === true;
  }

  /** The raw value of element `i` (0-based) of the current segment. */
  private elementAt(i: number): string {
    const t = this.t;
    let a = this.sep + 1;
    for (let k = 0; k < i; k++) a = t.indexOf(this.el, a) + 1;
    let b = t.indexOf(this.el, a);
    if (b < 0 || b > this.stop) b = this.stop;
    return t.slice(a, b);
  }

  private syntax(cs: CSegment): void {
    for (let n = 0; n < cs.syntax.length; n++) {
      const s = cs.syntax[n] as CSyntax;
      const at = s.at;
      const first = at[0] as number;
      let bad = -1;
      let code: Ak4Code = '2';
      switch (s.kind) {
        case 'P': {
          let some = false;
          for (const i of at) if (this.has(i)) some = true;
          if (some) for (const i of at) if (!this.has(i)) { bad = i; break; }
          break;
        }
        case 'R': {
          let some = false;
          for (const i of at) if (this.has(i)) some = true;
          if (!some) bad = first;
          break;
        }
        case 'E': {
          let on = 0;
          for (const i of at) {
            if (!this.has(i)) continue;
            if (++on === 2) {
              bad = i;
              code = '10';
              break;
            }
          }
          break;
        }
        case 'C':
          if (this.has(first)) for (let k = 1; k < at.length; k++) if (!this.has(at[k] as number)) { bad = at[k] as number; break; }
          break;
        case 'L':
          if (this.has(first)) {
            let some = false;
            for (let k = 1; k < at.length; k++) if (this.has(at[k] as number)) some = true;
            if (!some) bad = at[1] ?? -1;
          }
          break;
        default:
          break;
      }
      if (bad < 0) continue;
      const def = cs.elements[bad];
      this.elementFinding(code, bad + 1, null, null, def ? def.reference : '', this.has(bad) ? this.elementAt(bad) : null, `${cs.id}${pad2(bad + 1)} breaks syntax note ${s.note}.`);
    }
  }

  private segmentFinding(code: Ak3Code, message: string, implementationCode?: string): void {
    if (implementationCode === undefined) this.findings.push({ level: 'segment', code, segmentId: this.id, position: this.position, loopId: this.loopId, message });
    else this.findings.push({ level: 'segment', code, segmentId: this.id, position: this.position, loopId: this.loopId, message, implementationCode });
  }

  private elementFinding(
    code: Ak4Code,
    elementPosition: number,
    componentPosition: number | null,
    repetitionPosition: number | null,
    elementReference: string,
    value: string | null,
    message: string,
    implementationCode?: string,
  ): void {
    const base = {
      level: 'element' as const,
      code,
      segmentId: this.id,
      position: this.position,
      loopId: this.loopId,
      elementPosition,
      componentPosition,
      repetitionPosition,
      elementReference,
      value: value === null ? null : value.slice(0, 99),
      message,
    };
    this.findings.push(implementationCode === undefined ? base : Object.assign(base, { implementationCode }));
  }
}

/** Runs one pass over a set: JSON text of the translation when `translate`, findings when `validate`. */
export function runSet(set: TransactionSetRead, c: Compiled, translate: boolean, validate: boolean): RunResult {
  const p = new Pass(c, set.interchange.delimiters, setText(set), translate, validate);
  p.run();
  return { json: p.out, warnings: p.warnings, findings: p.findings };
}
