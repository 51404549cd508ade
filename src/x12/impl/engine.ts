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
import { genericSegmentJson, isSegmentId } from '../generic.ts';
import { JsonOut, asciiBytes } from '../json-out.ts';
import { asciiBytesOf, charIn, isSkippable, setText, trimSegmentEnd } from '../set-read.ts';
import type { Delimiters, TransactionSetRead } from '../types.ts';
import { T_COMPOSITE, T_DT, T_N, T_R, T_STRING, T_TM, segmentCode } from './compile.ts';
import type { CChild, CElement, CLevel, CSegment, CSyntax, Compiled } from './compile.ts';
import type { Ak3Code, Ak4Code, Finding } from './results.ts';
import { digitsAt, isDateAt, isTimeAt } from './values.ts';

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
    public level: CLevel,
    public counts: number[] | null,
  ) {}

  /** Makes this frame a fresh one for `level` (frames are reused by depth). */
  reset(level: CLevel, counts: number[] | null): void {
    this.level = level;
    this.counts = counts;
    this.idx = 0;
    this.last = -1;
    this.open = false;
    this.any = false;
    this.unrec = '';
    this.table = null;
  }
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

const unrecognizedKeys: Uint8Array[] = [];
/** `"unrecognized_element_NN":` as bytes, with a leading comma when `comma`. */
function unrecognizedKey(i: number, comma: boolean): Uint8Array {
  while (unrecognizedKeys.length <= 2 * i + 1) {
    const k = `"${UNRECOGNIZED_ELEMENT}${pad2((unrecognizedKeys.length >> 1) + 1)}":`;
    unrecognizedKeys.push(asciiBytes(k), asciiBytes(',' + k));
  }
  return unrecognizedKeys[2 * i + (comma ? 1 : 0)]!;
}

const SPACE = 32;
const D0 = 48;
const D9 = 57;
const MINUS = 45;
const DOT = 46;
const COMMA = 44;
const QUOTE = 34;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;

/** One scratch buffer for every pass (a pass runs to its end synchronously). */
const scratch = new JsonOut();

class Pass {
  readonly warnings: Warning[] = [];
  readonly findings: Finding[] = [];
  /** JSON text of the translation (after `run`). */
  json = '';
  private readonly o: JsonOut;
  /** The text as bytes when it is ASCII (values are then copied from bytes). */
  private readonly src: Buffer | null;
  /** Element values are written (translating, and the segment is translated). */
  private w = false;
  private readonly el: string;
  private readonly comp: string;
  private readonly rep: string | null;
  private readonly t: string;
  // The segment being read: `t[start, stop)`, id up to `sep` (`code`: see segmentCode).
  private code = -1;
  private idText: string | null = null;
  private start = 0;
  private sep = 0;
  private stop = 0;
  private position = 0;
  private loopId: string | null = null;
  /** Validation of syntax notes: which elements of the segment are present. */
  private readonly present: boolean[] = [];
  private presentCount = 0;
  /** Loop frames by stack depth, reused: a frame is only on the stack, and is done when popped. */
  private readonly frames: (Frame | undefined)[] = [];
  /** Validation of composites: which components are present. */
  private readonly compPresent: boolean[] = [];

  constructor(
    private readonly c: Compiled,
    private readonly d: Delimiters,
    text: string,
    src: Buffer | null,
    private readonly translate: boolean,
    private readonly validate: boolean,
    private readonly sink: JsonOut | null = null,
  ) {
    this.o = sink ?? scratch;
    this.el = d.element;
    this.comp = d.component;
    this.rep = d.repetition;
    this.t = text;
    this.src = src;
  }

  run(): void {
    const t = this.t;
    const n = t.length;
    const el = this.el;
    const elCode = el.charCodeAt(0);
    const term = this.d.segment;
    const trimEnd = term === '\n' || term === '\r';
    const src = this.src;
    const root = this.c.root;
    const stack: Frame[] = [new Frame(root, this.validate ? new Array<number>(root.children.length).fill(0) : null)];
    if (this.translate) {
      if (this.sink === null) this.o.reset();
      this.o.byte(LBRACE);
    }
    let pos = 0;
    while (pos < n) {
      let ch = t.charCodeAt(pos);
      while (pos < n && ch !== elCode && isSkippable(ch)) ch = t.charCodeAt(++pos);
      if (pos >= n) break;
      let end = t.indexOf(term, pos);
      if (end < 0) end = n;
      const stop = trimSegmentEnd(t, pos, end, trimEnd);
      if (stop > pos) {
        let sep: number;
        if (src !== null) {
          sep = pos;
          while (sep < stop && src[sep] !== elCode) sep++;
        } else {
          sep = t.indexOf(el, pos);
          if (sep < 0 || sep > stop) sep = stop;
        }
        this.start = pos;
        this.sep = sep;
        this.stop = stop;
        this.code = segmentCode(t, pos, sep);
        this.idText = null;
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
      this.o.byte(RBRACE);
      if (this.sink === null) this.json = this.o.toString();
    }
  }

  /** The current segment's id. */
  private get id(): string {
    this.idText ??= this.t.slice(this.start, this.sep);
    return this.idText;
  }

  private segment(stack: Frame[]): void {
    const code = this.code;
    for (let f = stack.length - 1; f >= 0; f--) {
      const fr = stack[f] as Frame;
      const cands = code < 0 ? undefined : fr.level.byCode.get(code);
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
        let inst = this.frames[stack.length];
        if (inst === undefined) {
          inst = new Frame(lvl, counts);
          this.frames[stack.length] = inst;
        } else inst.reset(lvl, counts);
        stack.push(inst);
        if (this.translate) this.o.byte(LBRACE);
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
      this.o.byte(COMMA);
    }
    this.o.text(`"${table}":{`);
    root.table = table;
    root.last = -1;
    root.open = false;
    root.any = false;
    root.unrec = '';
  }

  /** Writes the key of child `ci` in `fr`'s object, or the comma before a further array item. */
  private member(fr: Frame, ci: number, child: CChild): void {
    const o = this.o;
    if (fr.last === ci && fr.open) {
      o.byte(COMMA);
      return;
    }
    if (fr.open) o.byte(RBRACKET);
    o.bytes(fr.any ? child.b1 : child.b0);
    fr.any = true;
    fr.last = ci;
    fr.open = child.array;
  }

  /** Ends an object: closes its open array, writes its unrecognized segments and the brace. */
  private closeObject(fr: Frame): void {
    const o = this.o;
    if (fr.open) o.byte(RBRACKET);
    if (fr.unrec !== '') o.text((fr.any ? ',"' : '"') + UNRECOGNIZED_SEGMENTS + '":[' + fr.unrec + ']');
    o.byte(RBRACE);
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
    const j = genericSegmentJson(this.t, this.start, this.sep, this.stop, this.d);
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
    this.elements(cs, true);
  }

  /** Reads the segment's elements; writes the segment's JSON object when `emit`. */
  private elements(cs: CSegment, emit: boolean): void {
    const t = this.t;
    const stop = this.stop;
    const el = this.el;
    const elCode = el.charCodeAt(0);
    const src = this.src;
    const o = this.o;
    const defs = cs.elements;
    const fuse = emit && !this.validate && src !== null;
    const nd = defs.length;
    const v = this.validate;
    const syntax = v && cs.syntax.length > 0;
    this.w = emit;
    let first = true;
    if (emit) o.byte(LBRACE);
    let i = 0;
    if (this.sep < stop) {
      let a = this.sep + 1;
      for (;;) {
        const def = defs[i];
        if (fuse && def !== undefined && def.plainString) {
          // translation only, a string element: find its end while copying it (trailing spaces,
          // not significant in X12, dropped; a value of spaces only is left out like an empty one)
          const mark = o.n;
          const key = first ? def.q0 : def.q1;
          o.bytes(key);
          const b = o.strUntilQuoted(src, t, a, stop, elCode);
          if (o.n > mark + key.length + 1) first = false;
          else o.n = mark;
          i++;
          if (b >= stop) break;
          a = b + 1;
          continue;
        }
        let b: number;
        if (src !== null) {
          b = a;
          while (b < stop && src[b] !== elCode) b++;
        } else {
          b = t.indexOf(el, a);
          if (b < 0 || b > stop) b = stop;
        }
        if (syntax) this.present[i] = b > a;
        if (b > a) {
          if (def === undefined) {
            if (emit) {
              o.bytes(unrecognizedKey(i, !first));
              this.str(a, b);
              first = false;
            }
            if (v) this.elementFinding('3', i + 1, null, null, '', t.slice(a, b), `${cs.id}${pad2(i + 1)} is beyond the segment's ${nd} elements.`);
          } else {
            if (v && def.notUsed) this.elementFinding('10', def.position, null, null, def.reference, t.slice(a, b), `${def.name} is not used by the implementation.`, 'I10');
            const mark = o.n;
            if (emit) o.bytes(first ? def.b0 : def.b1);
            const wrote = def.repeat > 1 ? this.repeated(def, a, b) : def.t === T_COMPOSITE ? this.composite(def, a, b, null) : this.simple(def, a, b, null);
            if (emit) {
              if (wrote) first = false;
              else o.n = mark;
            }
          }
        } else if (v && def !== undefined && def.mandatory) this.missing(def);
        i++;
        if (b >= stop) break;
        a = b + 1;
      }
    }
    if (emit) o.byte(RBRACE);
    this.w = false;
    if (v) {
      for (let k = i; k < nd; k++) if ((defs[k] as CElement).mandatory) this.missing(defs[k] as CElement);
      if (syntax) {
        this.presentCount = i;
        this.syntax(cs);
      }
    }
  }

  /** A repeating element: always an array (repetitions that translate to nothing are left out). */
  private repeated(def: CElement, a: number, b: number): boolean {
    const t = this.t;
    const o = this.o;
    const w = this.w;
    const rep = this.rep === null ? -1 : this.rep.charCodeAt(0);
    if (w) o.byte(LBRACKET);
    let any = false;
    let r = 0;
    let x = a;
    for (;;) {
      const y = rep < 0 ? b : charIn(t, rep, x, b);
      if (y > x) {
        if (this.validate && r >= def.repeat) this.elementFinding('12', def.position, null, r + 1, def.reference, t.slice(x, y), `${def.name} repeats more than ${def.repeat} times.`);
        const mark = o.n;
        if (w && any) o.byte(COMMA);
        const wrote = def.t === T_COMPOSITE ? this.composite(def, x, y, r + 1) : this.simple(def, x, y, r + 1);
        if (wrote) any = true;
        else if (w) o.n = mark;
      }
      r++;
      if (y >= b) break;
      x = y + 1;
    }
    if (w) o.byte(RBRACKET);
    return true;
  }

  /** A composite: an object keyed by component; false when no component translates to anything. */
  private composite(def: CElement, a: number, b: number, rep: number | null): boolean {
    const t = this.t;
    const o = this.o;
    const w = this.w;
    const comps = def.components as readonly CElement[];
    const nc = comps.length;
    const v = this.validate;
    const comp = this.comp.charCodeAt(0);
    const seen = this.compPresent;
    if (w) o.byte(LBRACE);
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
        const mark = o.n;
        if (w) o.bytes(any ? cd.b1 : cd.b0);
        if (this.simple(cd, x, y, rep)) any = true;
        else if (w) o.n = mark;
      }
      j++;
      if (y >= b) break;
      x = y + 1;
    }
    if (w) o.byte(RBRACE);
    if (v) {
      for (let k = 0; k < nc; k++) {
        const cd = comps[k] as CElement;
        if (cd.mandatory && (k >= j || !seen[k])) this.missing(cd);
      }
    }
    return any;
  }

  /**
   * A simple element or component `t[a, b)`, written when translating. False when it is left out
   * of the translation (an unreadable date).
   */
  private simple(def: CElement, a: number, b: number, rep: number | null): boolean {
    const v = this.validate;
    const t = this.t;
    const w = this.w;
    switch (def.t) {
      case T_STRING: {
        // trailing spaces are not significant in X12: not translated, not counted against the
        // maximum length (the minimum is checked on the value as sent, so padding never fails it)
        let e = b;
        while (e > a && t.charCodeAt(e - 1) === SPACE) e--;
        if (v) {
          if (def.codes !== null && !def.codes.has(t.slice(a, e))) {
            const raw = t.slice(a, b);
            this.elementFinding('7', def.ep, def.cp, rep, def.reference, raw, `${def.name} "${raw}" is not an allowed code.`);
          } else if (b - a < def.min) this.length(def, a, b, b - a, rep);
          else this.length(def, a, e, e - a, rep);
        }
        if (e === a) return false;
        if (w) this.str(a, e);
        return true;
      }
      case T_N:
      case T_R: {
        if (!(def.t === T_N ? this.numberN(a, b, def.decimals, w) : this.numberR(a, b, w))) {
          if (v) {
            const raw = t.slice(a, b);
            this.elementFinding('6', def.ep, def.cp, rep, def.reference, raw, `${def.name} "${raw}" is not a ${def.def.type} number.`);
          }
          if (w) this.str(a, b);
          return true;
        }
        if (v) this.length(def, a, b, digitsAt(t, a, b), rep);
        return true;
      }
      case T_DT:
        if (!isDateAt(t, a, b)) {
          const raw = t.slice(a, b);
          const message = `Segment ${this.id} (position ${this.position}), element ${def.name}: "${raw}" cannot be read as a date; the element is left out of the translation.`;
          if (this.translate) this.warnings.push({ code: 'invalid_date', message, detail: { segment: this.id, element: def.name, value: raw } });
          if (v) this.elementFinding('8', def.ep, def.cp, rep, def.reference, raw, message);
          return false;
        }
        if (v) this.length(def, a, b, b - a, rep);
        if (w) this.date(a, b);
        return true;
      case T_TM:
        if (v) {
          if (!isTimeAt(t, a, b)) {
            const raw = t.slice(a, b);
            this.elementFinding('9', def.ep, def.cp, rep, def.reference, raw, `${def.name} "${raw}" is not a time.`);
          } else this.length(def, a, b, b - a, rep);
        }
        if (w) this.str(a, b);
        return true;
      default:
        if (w) this.str(a, b);
        return true;
    }
  }

  /** Writes `t[a, b)` as a JSON string. */
  private str(a: number, b: number): void {
    if (this.src !== null) this.o.strBytes(this.src, this.t, a, b);
    else this.o.str(this.t, a, b);
  }

  /** Writes `t[a, b)`, known to be ASCII digits and signs, as it is. */
  private raw(a: number, b: number): void {
    if (this.src !== null) this.o.rawBytes(this.src, a, b);
    else this.o.raw(this.t, a, b);
  }

  /** Writes a readable date (digits): "CCYYMMDD" as "CCYY-MM-DD", six digits as sent. */
  private date(a: number, b: number): void {
    const o = this.o;
    o.byte(QUOTE);
    if (b - a === 8) {
      this.raw(a, a + 4);
      o.byte(MINUS);
      this.raw(a + 4, a + 6);
      o.byte(MINUS);
      this.raw(a + 6, b);
    } else this.raw(a, b);
    o.byte(QUOTE);
  }

  /**
   * An N-type value (optional minus, digits) with `decimals` implied decimals; written (when
   * `write`) as a canonical JSON number. False when it is not one (nothing written).
   */
  private numberN(a: number, b: number, decimals: number, write: boolean): boolean {
    const t = this.t;
    const neg = t.charCodeAt(a) === MINUS;
    const start = neg ? a + 1 : a;
    if (start >= b) return false;
    for (let i = start; i < b; i++) {
      const c = t.charCodeAt(i);
      if (c < D0 || c > D9) return false;
    }
    if (!write) return true;
    const split = b - decimals;
    if (split >= start) this.canonical(neg, start, split, split, b, 0);
    else this.canonical(neg, start, start, start, b, start - split);
    return true;
  }

  /** An R-type value (optional minus, digits, at most one point, a digit at least); see `numberN`. */
  private numberR(a: number, b: number, write: boolean): boolean {
    const t = this.t;
    const neg = t.charCodeAt(a) === MINUS;
    const start = neg ? a + 1 : a;
    let dot = -1;
    let digits = 0;
    for (let i = start; i < b; i++) {
      const c = t.charCodeAt(i);
      if (c >= D0 && c <= D9) digits++;
      else if (c === DOT && dot < 0) dot = i;
      else return false;
    }
    if (digits === 0) return false;
    if (!write) return true;
    const intEnd = dot < 0 ? b : dot;
    const lead = intEnd - start === 1 ? t.charCodeAt(start) !== D0 || !neg || dot >= 0 : intEnd > start && t.charCodeAt(start) !== D0;
    if (lead && (dot < 0 || (b > dot + 1 && t.charCodeAt(b - 1) !== D0))) this.raw(a, b); // already canonical, the common case
    else if (dot < 0) this.canonical(neg, start, b, b, b, 0);
    else this.canonical(neg, start, dot, dot + 1, b, 0);
    return true;
  }

  /**
   * Writes digits `t[intFrom, intTo)`, then a point, `pad` zeros and `t[fracFrom, fracTo)`, as a
   * canonical JSON number: leading zeros and trailing fraction zeros dropped, "0" for any zero.
   */
  private canonical(neg: boolean, intFrom: number, intTo: number, fracFrom: number, fracTo: number, pad: number): void {
    const t = this.t;
    const o = this.o;
    while (intFrom < intTo && t.charCodeAt(intFrom) === D0) intFrom++;
    while (fracTo > fracFrom && t.charCodeAt(fracTo - 1) === D0) fracTo--;
    const frac = fracTo > fracFrom;
    if (intFrom === intTo && !frac) {
      o.byte(D0);
      return;
    }
    if (neg) o.byte(MINUS);
    if (intFrom < intTo) this.raw(intFrom, intTo);
    else o.byte(D0);
    if (frac) {
      o.byte(DOT);
      for (let k = 0; k < pad; k++) o.byte(D0);
      this.raw(fracFrom, fracTo);
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

/**
 * Runs one pass over a set: JSON text of the translation when `translate`, findings when
 * `validate`. With `sink` the translation is appended to it as bytes and `json` is empty.
 */
export function runSet(set: TransactionSetRead, c: Compiled, translate: boolean, validate: boolean, sink: JsonOut | null = null): RunResult {
  const p = new Pass(c, set.interchange.delimiters, setText(set), translate ? asciiBytesOf(set) : null, translate, validate, sink);
  p.run();
  return { json: p.json, warnings: p.warnings, findings: p.findings };
}
