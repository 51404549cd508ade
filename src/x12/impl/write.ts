/**
 * JSON → segments: the inverse of translation. Walks the implementation in order, so segments
 * come out in the standard's sequence; ST is taken from the document (or made from the options)
 * and SE is computed (segment count, ST02). Element values are formatted by data type and
 * composites and repetitions joined with the given delimiters; the envelope writer joins the
 * elements. Anything that cannot be written raises `x12_document_invalid` naming the JSON path.
 */
import { TdxError } from '../../errors.ts';
import { genericSegmentOf } from '../generic.ts';
import { setTrailer, type ElementValue } from '../writer.ts';
import { T_COMPOSITE, T_DT, T_N, T_R } from './compile.ts';
import type { CChild, CElement, CLevel, CSegment, Compiled } from './compile.ts';
import { UNRECOGNIZED_ELEMENT, UNRECOGNIZED_SEGMENTS } from './engine.ts';
import type { JsonObject } from './engine.ts';
import { writeDate, writeN, writeR } from './values.ts';

/** One segment to serialize: id and elements (element 01 first), composites and repetitions joined. */
export interface WrittenSegment {
  readonly id: string;
  readonly elements: string[];
}

export interface WriteOptions {
  /** Delimiters used to join composites and repetitions, and refused inside values. */
  readonly delimiters?: { readonly element: string; readonly component: string; readonly repetition: string | null; readonly segment: string };
  /** ST02 when the document has no ST. @default "0001" */
  readonly controlNumber?: string;
}

const defaultDelimiters = { element: '*', component: ':', repetition: '^' as string | null, segment: '~' };

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(path: string, message: string): never {
  throw new TdxError('x12_document_invalid', `${path}: ${message}`, { details: { path } });
}

class Writer {
  readonly out: WrittenSegment[] = [];
  private readonly d: NonNullable<WriteOptions['delimiters']>;
  st: WrittenSegment | null = null;
  se: WrittenSegment | null = null;

  constructor(d: WriteOptions['delimiters']) {
    this.d = d ?? defaultDelimiters;
  }

  level(children: readonly CChild[], obj: unknown, path: string): void {
    if (!isObj(obj)) fail(path, 'must be an object');
    let used = 0;
    // where this level's unrecognized segments go: after its last own segment, where a reader is
    // back at this level (after a loop instance it would be inside that instance)
    let insertAt = this.out.length;
    for (const ch of children) {
      const v = obj[ch.key];
      if (v === undefined) continue;
      used++;
      const p = `${path}.${ch.key}`;
      if (ch.seg !== null) {
        if (ch.seg.array) {
          if (!Array.isArray(v)) fail(p, 'must be an array');
          v.forEach((s, i) => this.segment(ch.seg as CSegment, s, `${p}[${i}]`));
        } else this.segment(ch.seg, v, p);
        insertAt = this.out.length;
      } else {
        if (!Array.isArray(v)) fail(p, 'must be an array of loop instances');
        const lvl = ch.loop as CLevel;
        v.forEach((inst, i) => this.level(lvl.children, inst, `${p}[${i}]`));
      }
    }
    const extra = obj[UNRECOGNIZED_SEGMENTS];
    if (extra !== undefined) {
      used++;
      const tail = this.out.splice(insertAt);
      this.raw(extra, `${path}.${UNRECOGNIZED_SEGMENTS}`);
      for (const s of tail) this.out.push(s);
    }
    if (used !== Object.keys(obj).length) {
      const known = new Set(children.map((c) => c.key));
      const bad = Object.keys(obj).find((k) => !known.has(k) && k !== UNRECOGNIZED_SEGMENTS);
      fail(`${path}.${bad ?? '?'}`, 'is not a segment or loop of this level in the implementation');
    }
  }

  /** Segments in the generic shape (`{"id": "ZZZ", "ZZZ01": ...}`), as read back. */
  raw(list: unknown, path: string): void {
    if (!Array.isArray(list)) fail(path, 'must be an array of segments {"id": "XX", "XX01": ...}');
    for (let i = 0; i < list.length; i++) {
      const p = `${path}[${i}]`;
      const seg = genericSegmentOf(list[i], p);
      const els: string[] = [];
      for (let j = 0; j < seg.elements.length; j++) els.push(this.join(seg.elements[j] as ElementValue, `${p}.${seg.id}${pad2(j + 1)}`));
      this.out.push({ id: seg.id, elements: els });
    }
  }

  /** A generic element value joined with the delimiters. */
  join(v: ElementValue, path: string): string {
    if (typeof v === 'string') return this.check(v, path);
    if (!('repetitions' in v)) return v.map((c) => this.check(c, path)).join(this.d.component);
    if (v.repetitions.length > 1 && this.d.repetition === null) fail(path, 'has several repetitions but the interchange has no repetition separator');
    return v.repetitions.map((r) => (typeof r === 'string' ? this.check(r, path) : r.map((c) => this.check(c, path)).join(this.d.component))).join(this.d.repetition ?? '');
  }

  segment(cs: CSegment, obj: unknown, path: string): void {
    if (!isObj(obj)) fail(path, `must be an object (segment ${cs.id})`);
    const defs = cs.elements;
    const els: string[] = [];
    let used = 0;
    for (let i = 0; i < defs.length; i++) {
      const def = defs[i] as CElement;
      const v = obj[def.key];
      if (v === undefined || v === null) continue;
      used++;
      while (els.length < i) els.push('');
      els.push(this.element(cs, def, v, `${path}.${def.key}`));
    }
    const keys = Object.keys(obj);
    if (used !== keys.length) {
      for (const k of keys) {
        if (!k.startsWith(UNRECOGNIZED_ELEMENT)) {
          if (!defs.some((d) => d.key === k)) fail(`${path}.${k}`, `is not an element of segment ${cs.id}`);
          continue;
        }
        const pos = Number(k.slice(UNRECOGNIZED_ELEMENT.length));
        const v = obj[k];
        if (!Number.isInteger(pos) || pos < 1 || typeof v !== 'string') fail(`${path}.${k}`, 'must be a string at a numbered position');
        while (els.length < pos) els.push('');
        els[pos - 1] = this.check(v, `${path}.${k}`);
      }
    }
    while (els.length > 0 && els[els.length - 1] === '') els.pop();
    const seg = { id: cs.id, elements: els };
    if (cs.id === 'ST') this.st = seg;
    else if (cs.id === 'SE') this.se = seg;
    else this.out.push(seg);
  }

  element(cs: CSegment, def: CElement, v: unknown, path: string): string {
    if (def.repeat > 1) {
      if (!Array.isArray(v)) fail(path, 'must be an array (repeating element)');
      if (v.length > 1 && this.d.repetition === null) fail(path, 'has several repetitions but the interchange has no repetition separator');
      return v.map((r, i) => this.single(cs, def, r, `${path}[${i}]`)).join(this.d.repetition ?? '');
    }
    return this.single(cs, def, v, path);
  }

  single(cs: CSegment, def: CElement, v: unknown, path: string): string {
    if (def.t !== T_COMPOSITE) return this.simple(def, v, path);
    if (!isObj(v)) fail(path, `must be an object (composite ${def.reference})`);
    const comps = def.components as readonly CElement[];
    const parts: string[] = [];
    let used = 0;
    for (let j = 0; j < comps.length; j++) {
      const cd = comps[j] as CElement;
      const cv = v[cd.key];
      if (cv === undefined || cv === null) continue;
      used++;
      while (parts.length < j) parts.push('');
      parts.push(this.simple(cd, cv, `${path}.${cd.key}`));
    }
    if (used !== Object.keys(v).length) {
      const bad = Object.keys(v).find((k) => !comps.some((c) => c.key === k));
      fail(`${path}.${bad ?? '?'}`, `is not a component of ${def.reference} in segment ${cs.id}`);
    }
    return parts.join(this.d.component);
  }

  simple(def: CElement, v: unknown, path: string): string {
    if (typeof v === 'string') return this.check(def.t === T_DT ? writeDate(v, def.max) : v, path);
    if (typeof v === 'number' && Number.isFinite(v)) {
      if (def.t === T_N) return writeN(v, def.decimals, def.min);
      if (def.t === T_R) return writeR(v, def.min);
      return String(v);
    }
    if (typeof v === 'boolean') return v ? 'Y' : 'N';
    return fail(path, 'must be a string or a number');
  }

  check(s: string, path: string): string {
    const d = this.d;
    if (s.includes(d.element) || s.includes(d.segment) || s.includes(d.component) || (d.repetition !== null && s.includes(d.repetition))) {
      fail(path, `value "${s}" contains a delimiter`);
    }
    return s;
  }
}

/** A document's segments: its own ST and SE when it carries them (null otherwise), and the body. */
export interface DocumentParts {
  readonly st: WrittenSegment | null;
  readonly body: WrittenSegment[];
  readonly se: WrittenSegment | null;
}

/**
 * The segments of a translated document (generic when `c` is null), ST and SE apart and as the
 * document gives them (writers compute the SE written; the given one serves to tell a stale one).
 */
export function documentParts(document: unknown, c: Compiled | null, options: WriteOptions = {}): DocumentParts {
  const w = new Writer(options.delimiters);
  if (!isObj(document)) fail('$', 'must be an object');
  if (c === null) {
    w.raw(document['segments'], '$.segments');
    let st: WrittenSegment | null = null;
    let se: WrittenSegment | null = null;
    const body: WrittenSegment[] = [];
    for (const s of w.out) {
      if (s.id === 'ST') st ??= s;
      else if (s.id === 'SE') se = s;
      else body.push(s);
    }
    return pair({ st, body, se }, '$.segments');
  }
  const known = new Set<string>();
  for (const t of c.impl.tables) {
    known.add(t.name);
    const v = document[t.name];
    if (v === undefined) continue;
    w.level(
      c.root.children.filter((ch) => ch.table === t.name),
      v,
      `$.${t.name}`,
    );
  }
  for (const k of Object.keys(document)) if (!known.has(k)) fail(`$.${k}`, 'is not a table of the implementation');
  const trailer = c.root.children.find((ch) => ch.segId === 'SE');
  return pair({ st: w.st, body: w.out, se: w.se }, trailer ? `$.${trailer.table}.${trailer.key}` : '$');
}

/**
 * A document carries both of its set's envelope segments or neither: an ST without its SE is a
 * set read without its trailer (missing_se), which cannot be written back as read.
 */
function pair(parts: DocumentParts, sePath: string): DocumentParts {
  if (parts.st !== null && parts.se === null) fail(sePath, 'the SE is missing: the document has its ST, so it is a set read without its trailer (give both, or neither to have them made)');
  if (parts.st === null && parts.se !== null) fail(sePath, 'the SE is given without the ST (give both, or neither to have them made)');
  return parts;
}

/**
 * Segments (ST through SE) of a translated document; generic documents when `c` is null. ST is
 * the document's own when it carries one (ST02 with its spaces, ST03 on), otherwise made from
 * the set identifier and `controlNumber`. SE is always computed (segment count, ST02 as
 * written): a document's own SE is never copied, so an edited document, or one read with a
 * wrong SE01/SE02, is written with a correct trailer (`documentParts` keeps the given SE for a
 * caller that reports the difference).
 */
export function writeDocument(document: unknown, c: Compiled | null, transactionSetIdentifier: string, options: WriteOptions = {}): WrittenSegment[] {
  const parts = documentParts(document, c, options);
  const st = parts.st ?? { id: 'ST', elements: [c?.impl.transactionSet.identifier ?? transactionSetIdentifier, options.controlNumber ?? '0001'] };
  const se = { id: 'SE', elements: setTrailer(parts.body.length, st.elements[1] ?? '') };
  return [st, ...parts.body, se];
}
