/**
 * One pass over a transaction set's segments, driven by an implementation's lookup tables:
 * places each segment in its table and loop (loops as arrays), converts elements by data type
 * and, when asked, checks requirements, repeats, codes, lengths, types and syntax notes. Both
 * translation and validation run this pass; each turns off the work it does not need.
 *
 * Placement: a segment is looked for from the current position forward in the innermost open
 * loop, then in each enclosing level (which closes the inner loops); a loop's beginning segment
 * opens a new instance of it. A segment that fits nowhere is kept, raw, under
 * `unrecognized_segments` of the level where it was met.
 */
import type { Warning } from '../findings.ts';
import type { Delimiters, Segment, TransactionSetRead } from '../types.ts';
import { T_COMPOSITE, T_DT, T_N, T_R, T_STRING, T_TM } from './compile.ts';
import type { CChild, CElement, CLevel, CSegment, Compiled } from './compile.ts';
import type { Ak3Code, Ak4Code, ElementFinding, Finding } from './results.ts';
import { isTime, numericLength, readDate, readN, readR } from './values.ts';

export type JsonObject = Record<string, unknown>;

/** Key under which segments that fit nowhere are kept: `[{segment_id, elements}]`, elements raw. */
export const UNRECOGNIZED_SEGMENTS = 'unrecognized_segments';
/** Prefix of the key of an element beyond the segment's definition (raw value). */
export const UNRECOGNIZED_ELEMENT = 'unrecognized_element_';

export interface RunResult {
  readonly document: JsonObject;
  readonly warnings: Warning[];
  readonly findings: Finding[];
}

interface Frame {
  readonly level: CLevel;
  idx: number;
  readonly counts: number[] | null;
  readonly obj: JsonObject;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

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
  private readonly rep: string | null;
  private readonly comp: string;
  // Context of the segment being read.
  private seg!: Segment;
  private loopId: string | null = null;

  constructor(
    private readonly c: Compiled,
    d: Delimiters,
    private readonly translate: boolean,
    private readonly validate: boolean,
  ) {
    this.rep = d.repetition;
    this.comp = d.component;
  }

  run(segments: readonly Segment[]): JsonObject {
    const doc: JsonObject = {};
    const root = this.c.root;
    const stack: Frame[] = [{ level: root, idx: 0, counts: this.validate ? new Array<number>(root.children.length).fill(0) : null, obj: doc }];
    let last: Segment | null = null;
    for (let si = 0; si < segments.length; si++) {
      const seg = segments[si] as Segment;
      last = seg;
      this.seg = seg;
      const id = seg.id;
      let placed = false;
      for (let f = stack.length - 1; f >= 0; f--) {
        const fr = stack[f] as Frame;
        const cands = fr.level.lookup.get(id);
        if (cands === undefined) continue;
        const start = f > 0 && fr.idx === 0 ? 1 : fr.idx;
        let ci = -1;
        for (let k = 0; k < cands.length; k++) {
          const c = cands[k] as number;
          if (c >= start) {
            ci = c;
            break;
          }
        }
        if (ci < 0) continue;
        while (stack.length - 1 > f) this.close(stack.pop() as Frame, seg);
        const child = fr.level.children[ci] as CChild;
        fr.idx = ci;
        let count = 0;
        if (fr.counts !== null) count = ++(fr.counts[ci] as number);
        const target = f === 0 ? tableOf(doc, child.table) : fr.obj;
        if (child.seg !== null) {
          this.loopId = fr.level.loopId;
          this.place(child, child.seg, count, target);
        } else {
          const lvl = child.loop as CLevel;
          this.loopId = lvl.loopId;
          if (this.validate) {
            if (child.notUsed) this.segmentFinding('2', `Loop ${lvl.loopId ?? ''} is not used by the implementation.`, 'I6');
            else if (count > child.max) this.segmentFinding('4', `Loop ${lvl.loopId ?? ''} occurs more than ${child.max} times.`);
          }
          const inst: JsonObject = {};
          if (this.translate) {
            const arr = target[child.key] as JsonObject[] | undefined;
            if (arr === undefined) target[child.key] = [inst];
            else arr.push(inst);
          }
          const counts = this.validate ? new Array<number>(lvl.children.length).fill(0) : null;
          if (counts !== null) counts[0] = 1;
          stack.push({ level: lvl, idx: 0, counts, obj: inst });
          const first = lvl.children[0] as CChild;
          this.place(first, first.seg as CSegment, 1, inst);
        }
        placed = true;
        break;
      }
      if (!placed) this.unplaced(seg, stack);
    }
    if (this.validate) {
      while (stack.length > 0) this.close(stack.pop() as Frame, last);
    }
    return doc;
  }

  private unplaced(seg: Segment, stack: Frame[]): void {
    const top = stack[stack.length - 1] as Frame;
    this.loopId = top.level.loopId;
    if (this.translate) {
      let obj = top.obj;
      if (stack.length === 1) {
        const child = top.level.children[top.idx];
        obj = tableOf(obj, child ? child.table : 'heading');
      }
      const raw = { segment_id: seg.id, elements: seg.elements.slice() };
      const list = obj[UNRECOGNIZED_SEGMENTS] as unknown[] | undefined;
      if (list === undefined) obj[UNRECOGNIZED_SEGMENTS] = [raw];
      else list.push(raw);
    }
    if (this.validate) {
      if (!isSegmentId(seg.id)) this.segmentFinding('1', `Segment id "${seg.id}" is not a segment id.`);
      else if (this.c.segmentIds.has(seg.id)) this.segmentFinding('7', `Segment ${seg.id} is not in its proper sequence.`);
      else this.segmentFinding('2', `Segment ${seg.id} is not expected in transaction set ${this.c.impl.transactionSet.identifier}.`);
    }
  }

  private close(fr: Frame, at: Segment | null): void {
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
        position: at ? at.position : 0,
        loopId: ch.loop !== null ? ch.loop.loopId : fr.level.loopId,
        message: `Mandatory ${what} is missing${fr.level.loopId ? ` in loop ${fr.level.loopId}` : ''}.`,
      });
    }
  }

  private place(child: CChild, cs: CSegment, count: number, target: JsonObject): void {
    if (this.validate) {
      if (child.notUsed) this.segmentFinding('2', `Segment ${cs.id} is not used by the implementation.`, 'I6');
      else if (count > child.max) this.segmentFinding('5', `Segment ${cs.id} is used more than ${child.max} times.`);
    }
    const obj = this.elements(cs);
    if (!this.translate) return;
    const cur = target[child.key];
    if (cs.array) {
      if (cur === undefined) target[child.key] = [obj];
      else (cur as JsonObject[]).push(obj);
    } else if (cur === undefined) {
      target[child.key] = obj;
    } else {
      const raw = { segment_id: cs.id, elements: this.seg.elements.slice() };
      const list = target[UNRECOGNIZED_SEGMENTS] as unknown[] | undefined;
      if (list === undefined) target[UNRECOGNIZED_SEGMENTS] = [raw];
      else list.push(raw);
    }
  }

  private elements(cs: CSegment): JsonObject {
    const els = this.seg.elements;
    const defs = cs.elements;
    const out: JsonObject = {};
    const n = els.length;
    for (let i = 0; i < n; i++) {
      const raw = els[i] as string;
      const def = defs[i];
      if (def === undefined) {
        if (raw === '') continue;
        if (this.translate) out[UNRECOGNIZED_ELEMENT + pad2(i + 1)] = raw;
        if (this.validate) this.elementFinding('3', i + 1, null, null, '', raw, `${cs.id}${pad2(i + 1)} is beyond the segment's ${defs.length} elements.`);
        continue;
      }
      if (raw === '') {
        if (this.validate && def.mandatory) this.missing(cs, def, null);
        continue;
      }
      if (this.validate && def.notUsed) {
        this.elementFinding('10', def.position, null, null, def.reference, raw, `${cs.id}${pad2(def.position)} is not used by the implementation.`, 'I10');
      }
      const v = def.repeat > 1 ? this.repeated(cs, def, raw) : this.value(cs, def, raw, null);
      if (v !== undefined) out[def.key] = v;
    }
    if (this.validate) {
      for (let i = n; i < defs.length; i++) {
        const def = defs[i] as CElement;
        if (def.mandatory) this.missing(cs, def, null);
      }
      if (cs.syntax.length > 0) this.syntax(cs);
    }
    return out;
  }

  private repeated(cs: CSegment, def: CElement, raw: string): unknown[] {
    const parts = this.rep === null || raw.indexOf(this.rep) < 0 ? [raw] : raw.split(this.rep);
    const out: unknown[] = [];
    for (let r = 0; r < parts.length; r++) {
      const p = parts[r] as string;
      if (p === '') continue;
      if (this.validate && r >= def.repeat) {
        this.elementFinding('12', def.position, null, r + 1, def.reference, p, `${cs.id}${pad2(def.position)} repeats more than ${def.repeat} times.`);
      }
      const v = this.value(cs, def, p, r + 1);
      if (v !== undefined) out.push(v);
    }
    return out;
  }

  private value(cs: CSegment, def: CElement, raw: string, rep: number | null): unknown {
    if (def.t !== T_COMPOSITE) return this.simple(cs, def, raw, null, rep);
    const comps = def.components as readonly CElement[];
    const parts = raw.indexOf(this.comp) < 0 ? [raw] : raw.split(this.comp);
    const out: JsonObject = {};
    let any = false;
    for (let j = 0; j < parts.length; j++) {
      const p = parts[j] as string;
      const cd = comps[j];
      if (cd === undefined) {
        if (this.validate && p !== '') {
          this.elementFinding('13', def.position, j + 1, rep, def.reference, raw, `${cs.id}${pad2(def.position)} has more than ${comps.length} components.`);
        }
        continue;
      }
      if (p === '') continue;
      const v = this.simple(cs, cd, p, def.position, rep);
      if (v !== undefined) {
        out[cd.key] = v;
        any = true;
      }
    }
    if (this.validate) {
      for (let j = 0; j < comps.length; j++) {
        const cd = comps[j] as CElement;
        if (cd.mandatory && (parts[j] === undefined || parts[j] === '')) this.missing(cs, cd, def.position);
      }
    }
    return any ? out : undefined;
  }

  /** A simple element or component. `parent` is the composite's position for a component. */
  private simple(cs: CSegment, def: CElement, raw: string, parent: number | null, rep: number | null): unknown {
    const v = this.validate;
    const name = v || def.t === T_DT ? elementName(cs.id, def.position, parent) : '';
    const ep = parent === null ? def.position : parent;
    const cp = parent === null ? null : def.position;
    switch (def.t) {
      case T_STRING:
        if (v) {
          if (def.codes !== null && !def.codes.has(raw)) {
            this.elementFinding('7', ep, cp, rep, def.reference, raw, `${name} "${raw}" is not an allowed code.`);
          } else this.length(def, raw, raw.length, name, ep, cp, rep);
        }
        return raw;
      case T_N:
      case T_R: {
        const num = def.t === T_N ? readN(raw, def.decimals) : readR(raw);
        if (num === null) {
          if (v) this.elementFinding('6', ep, cp, rep, def.reference, raw, `${name} "${raw}" is not a ${def.def.type} number.`);
          return raw;
        }
        if (v) this.length(def, raw, numericLength(raw), name, ep, cp, rep);
        return num;
      }
      case T_DT: {
        const d = readDate(raw);
        if (d === null) {
          const message = `Segment ${cs.id} (position ${this.seg.position}), element ${name}: "${raw}" cannot be read as a date; the element is left out of the translation.`;
          if (this.translate) this.warnings.push({ code: 'invalid_date', message, detail: { segment: cs.id, element: name, value: raw } });
          if (v) this.elementFinding('8', ep, cp, rep, def.reference, raw, message);
          return undefined;
        }
        if (v) this.length(def, raw, raw.length, name, ep, cp, rep);
        return d;
      }
      case T_TM:
        if (v) {
          if (!isTime(raw)) this.elementFinding('9', ep, cp, rep, def.reference, raw, `${name} "${raw}" is not a time.`);
          else this.length(def, raw, raw.length, name, ep, cp, rep);
        }
        return raw;
      default:
        return raw;
    }
  }

  private length(def: CElement, raw: string, len: number, name: string, ep: number, cp: number | null, rep: number | null): void {
    if (len < def.min) this.elementFinding('4', ep, cp, rep, def.reference, raw, `${name} "${raw}" is shorter than ${def.min}.`);
    else if (len > def.max) this.elementFinding('5', ep, cp, rep, def.reference, raw, `${name} is longer than ${def.max}.`);
  }

  private missing(cs: CSegment, def: CElement, parent: number | null): void {
    const name = elementName(cs.id, def.position, parent);
    this.elementFinding('1', parent ?? def.position, parent === null ? null : def.position, null, def.reference, null, `Mandatory element ${name} (${def.def.name}) is missing.`);
  }

  private syntax(cs: CSegment): void {
    const els = this.seg.elements;
    const present = (i: number): boolean => i < els.length && els[i] !== '';
    for (const s of cs.syntax) {
      const at = s.at;
      const first = at[0] as number;
      let bad = -1;
      let code: Ak4Code = '2';
      switch (s.kind) {
        case 'P': {
          const some = at.some(present);
          if (some) bad = at.find((i) => !present(i)) ?? -1;
          break;
        }
        case 'R':
          if (!at.some(present)) bad = first;
          break;
        case 'E': {
          const on = at.filter(present);
          if (on.length > 1) {
            bad = on[1] as number;
            code = '10';
          }
          break;
        }
        case 'C':
          if (present(first)) bad = at.slice(1).find((i) => !present(i)) ?? -1;
          break;
        case 'L':
          if (present(first) && !at.slice(1).some(present)) bad = at[1] ?? -1;
          break;
        default:
          break;
      }
      if (bad < 0) continue;
      const def = cs.elements[bad];
      this.elementFinding(
        code,
        bad + 1,
        null,
        null,
        def ? def.reference : '',
        present(bad) ? (els[bad] as string) : null,
        `${cs.id}${pad2(bad + 1)} breaks syntax note ${s.note}.`,
      );
    }
  }

  private segmentFinding(code: Ak3Code, message: string, implementationCode?: string): void {
    const f = { level: 'segment' as const, code, segmentId: this.seg.id, position: this.seg.position, loopId: this.loopId, message };
    this.findings.push(implementationCode ? { ...f, implementationCode } : f);
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
    const f: ElementFinding = {
      level: 'element',
      code,
      segmentId: this.seg.id,
      position: this.seg.position,
      loopId: this.loopId,
      elementPosition,
      componentPosition,
      repetitionPosition,
      elementReference,
      value: value === null ? null : value.slice(0, 99),
      message,
    };
    this.findings.push(implementationCode ? { ...f, implementationCode } : f);
  }
}

/** "DTM02", or "REF04-01" for a component. */
function elementName(segment: string, position: number, parent: number | null): string {
  return parent === null ? `${segment}${pad2(position)}` : `${segment}${pad2(parent)}-${pad2(position)}`;
}

function tableOf(doc: JsonObject, table: string): JsonObject {
  let t = doc[table] as JsonObject | undefined;
  if (t === undefined) {
    t = {};
    doc[table] = t;
  }
  return t;
}

/** Runs one pass over a set. */
export function runSet(set: TransactionSetRead, c: Compiled, translate: boolean, validate: boolean): RunResult {
  const p = new Pass(c, set.interchange.delimiters, translate, validate);
  const document = p.run(set.segments);
  return { document, warnings: p.warnings, findings: p.findings };
}
