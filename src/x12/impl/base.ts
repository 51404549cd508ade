/**
 * Base implementations: the standard's structure of each supported transaction set and release,
 * built once from the compact dictionaries (`data-*.ts`) and cached. Releases: 004010 and 005010
 * for every set, 003060 for 204.
 */
import { ackCodes004010, ackCodes005010 } from './data-codes.ts';
import { elements004010 } from './data-elements.ts';
import { overlays } from './data-overlays.ts';
import { composites004010, segments004010 } from './data-segments.ts';
import { setStructures } from './data-sets.ts';
import { syntaxNotes } from './data-syntax.ts';
import { dataTypes } from './model.ts';
import type { DataType, ElementDef, Implementation, LoopNode, Requirement, SegmentNode, StructureNode, TableDef, TableName } from './model.ts';

interface ElementEntry {
  readonly type: DataType;
  readonly min: number;
  readonly max: number;
  readonly name: string;
}

interface SegmentEntry {
  readonly name: string;
  readonly tokens: readonly string[];
  readonly syntax: readonly string[];
}

interface Dictionary {
  readonly elements: ReadonlyMap<string, ElementEntry>;
  readonly composites: ReadonlyMap<string, SegmentEntry>;
  readonly segments: ReadonlyMap<string, SegmentEntry>;
}

/**
 * Code lists the base implementations enforce, per release: the standard's full list or none.
 * Only the acknowledgment elements have one, as pyx12's 997 (004010) and 999 (005010) maps give
 * them (checked by test/unit/x12/impl/codes.test.ts); every other element passes any value of the
 * right type and length, and partner implementations restrict codes.
 */
const baseCodes: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  '004010': ackCodes004010,
  '005010': ackCodes005010,
};

function lines(text: string): string[] {
  const out: string[] = [];
  for (const l of text.split('\n')) {
    const t = l.trim();
    if (t !== '') out.push(t);
  }
  return out;
}

function parseElements(text: string, into: Map<string, ElementEntry>): void {
  for (const l of lines(text)) {
    const [ref, type, min, max, ...name] = l.split(' ');
    if (ref === undefined || type === undefined || !dataTypes.includes(type as DataType)) throw new Error(`bad element line "${l}"`);
    into.set(ref, { type: type as DataType, min: Number(min), max: Number(max), name: name.join(' ') });
  }
}

function parseSegments(text: string, into: Map<string, SegmentEntry>): void {
  for (const l of lines(text)) {
    const colon = l.indexOf(':');
    const head = l.slice(0, colon);
    const space = head.indexOf(' ');
    const id = head.slice(0, space);
    const [els = '', syn = ''] = l.slice(colon + 1).split(';');
    into.set(id, { name: head.slice(space + 1), tokens: els.trim().split(/\s+/), syntax: syn.trim() === '' ? [] : syn.trim().split(/\s+/) });
  }
}

/** `SET/RELEASE` keys of `provenDefinitions`. */
const REFERENCE_SETS = ['204', '210', '214', '810', '812', '820', '846', '850', '855', '856', '860', '865', '875', '880', '940', '945', '990', '997'];
const PROVEN: readonly string[] = [...REFERENCE_SETS.map((s) => `${s}/004010`), ...REFERENCE_SETS.map((s) => `${s}/005010`), '999/005010', '204/003060'];

const dictionaries = new Map<string, Dictionary>();

function dictionary(release: string): Dictionary {
  let d = dictionaries.get(release);
  if (d) return d;
  const elements = new Map<string, ElementEntry>();
  const composites = new Map<string, SegmentEntry>();
  const segments = new Map<string, SegmentEntry>();
  parseElements(elements004010, elements);
  parseSegments(composites004010, composites);
  parseSegments(segments004010, segments);
  const o = overlays[release];
  if (o) {
    parseElements(o.elements, elements);
    parseSegments(o.segments, segments);
    if (o.composites !== undefined) parseSegments(o.composites, composites);
  }
  d = { elements, composites, segments };
  dictionaries.set(release, d);
  return d;
}

const requirementOf = (c: string): Requirement => (c === 'M' ? 'M' : c === 'X' ? 'X' : 'O');

function buildElement(token: string, position: number, d: Dictionary, where: string, release: string): ElementDef {
  const requirement = requirementOf(token[0] ?? 'O');
  let rest = token.slice(1);
  let name: string | undefined;
  const eq = rest.indexOf('=');
  if (eq >= 0) {
    name = rest.slice(eq + 1).replaceAll('_', ' ');
    rest = rest.slice(0, eq);
  }
  let repeat = 1;
  const star = rest.indexOf('*');
  if (star >= 0) {
    repeat = Number(rest.slice(star + 1));
    rest = rest.slice(0, star);
  }
  const usage = requirement === 'M' ? 'must_use' : 'used';
  if (rest.startsWith('C')) {
    const c = d.composites.get(rest);
    if (!c) throw new Error(`unknown composite ${rest} in ${where}`);
    const components = c.tokens.map((t, i) => buildElement(t, i + 1, d, `${where}-${rest}`, release));
    return { position, reference: rest, name: name ?? c.name, requirement, usage, type: 'composite', minLength: 0, maxLength: 0, repeat, components };
  }
  if (rest.startsWith('~')) {
    // an element whose reference number no citable source gives: its type and lengths only
    const [type, min, max] = rest.slice(1).split('.');
    if (!dataTypes.includes(type as DataType)) throw new Error(`bad element "${token}" in ${where}`);
    return { position, reference: '', name: name ?? 'Data Element', requirement, usage, type: type as DataType, minLength: Number(min), maxLength: Number(max), repeat };
  }
  const e = d.elements.get(rest);
  if (!e) throw new Error(`unknown element ${rest} in ${where}`);
  const codes = baseCodes[release]?.[rest];
  const def: ElementDef = { position, reference: rest, name: name ?? e.name, requirement, usage, type: e.type, minLength: e.min, maxLength: e.max, repeat };
  return codes ? { ...def, codes } : def;
}

function buildSegment(id: string, position: string, requirement: 'M' | 'O', maxUse: number | null, d: Dictionary, release: string): SegmentNode {
  const s = d.segments.get(id);
  if (!s) throw new Error(`unknown segment ${id}`);
  const elements = s.tokens.map((t, i) => buildElement(t, i + 1, d, id, release));
  const node: SegmentNode = { kind: 'segment', id, name: s.name, position, requirement, usage: requirement === 'M' ? 'must_use' : 'used', maxUse, elements };
  const syntax = syntaxNotes[release]?.[id];
  return syntax !== undefined && syntax.length > 0 ? { ...node, syntax } : node;
}

/** Parses a structure table (see `data-sets.ts`). */
function parseTable(text: string, d: Dictionary, position: (p: string) => string, release: string): StructureNode[] {
  const tokens = text.replace(/([{}|,])/g, ' $1 ').trim().split(/\s+/).filter((t) => t !== '');
  let i = 0;
  const max = (t: string | undefined): number | null => (t === '>1' ? null : Number(t));
  const list = (): StructureNode[] => {
    const out: StructureNode[] = [];
    while (i < tokens.length && tokens[i] !== '}') {
      if (tokens[i] === ',') {
        i++;
        continue;
      }
      if (tokens[i] === '{') {
        const id = tokens[i + 1] ?? '';
        const req = tokens[i + 2] === 'M' ? 'M' : 'O';
        const repeat = max(tokens[i + 3]);
        if (tokens[i + 4] !== '|') throw new Error(`bad loop ${id} in structure`);
        i += 5;
        const children = list();
        if (tokens[i] !== '}') throw new Error(`unclosed loop ${id}`);
        i++;
        const first = children[0];
        if (first?.kind !== 'segment') throw new Error(`loop ${id} must begin with a segment`);
        const loop: LoopNode = { kind: 'loop', id, position: first.position, requirement: req, usage: req === 'M' ? 'must_use' : 'used', repeat, children };
        out.push(loop);
        continue;
      }
      const [id = '', pos = '', req, mx] = tokens.slice(i, i + 4);
      i += 4;
      out.push(buildSegment(id, position(pos), req === 'M' ? 'M' : 'O', max(mx), d, release));
    }
    return out;
  };
  const nodes = list();
  if (i !== tokens.length) throw new Error('unbalanced structure');
  return nodes;
}

/** Releases with base definitions, per set (the 999 exists from 005010 on). */
export function supportedReleases(identifier: string): string[] {
  const s = setStructures[identifier];
  return s === undefined ? [] : Object.keys(s.releases).sort();
}

/** Transaction set identifiers with base definitions. */
export const supportedSets: readonly string[] = Object.keys(setStructures);

/** The six-digit release of a GS08 value ("005010X231A1" → "005010"). */
export function releaseOf(gs08: string): string {
  return gs08.slice(0, 6);
}

const bases = new Map<string, Implementation>();

/**
 * The standard's definition of a set in a release (GS08 values are cut to their six-digit
 * release), or null when none is shipped.
 */
export function baseImplementation(transactionSetIdentifier: string, release: string): Implementation | null {
  const rel = releaseOf(release);
  const key = `${transactionSetIdentifier}/${rel}`;
  const cached = bases.get(key);
  if (cached) return cached;
  const s = setStructures[transactionSetIdentifier];
  const t = s?.releases[rel];
  if (!s || !t) return null;
  const d = dictionary(rel);
  const position = rel >= '005010' ? (p: string): string => `${p.padStart(3, '0')}0` : (p: string): string => p.padStart(3, '0');
  const tables: TableDef[] = [];
  for (const name of ['heading', 'detail', 'summary'] as TableName[]) {
    const children = parseTable(t[name], d, position, rel);
    if (children.length > 0) tables.push({ name, children });
  }
  const impl: Implementation = {
    id: `base-${transactionSetIdentifier}-${rel}`,
    name: `${transactionSetIdentifier} ${s.name} (${rel})`,
    version: rel,
    status: 'published',
    transactionSet: { identifier: transactionSetIdentifier, release: rel },
    sourceImplementation: null,
    tables,
  };
  bases.set(key, deepFreeze(impl));
  return impl;
}

/**
 * The base implementation to read a set with: the one of its own release (GS08 cut to six
 * digits), or null when none is shipped. A set is never read or validated as another release
 * (004030 is not 004010): without a base definition it gets the generic translation and
 * structural checks only (`baseDefinitionNote` says so in words).
 */
export function resolveImplementation(transactionSetIdentifier: string, release: string): Implementation | null {
  return baseImplementation(transactionSetIdentifier, release);
}

/** Whether a base definition exists for the set in the release (GS08 values are cut to six digits). */
export function hasBaseDefinition(transactionSetIdentifier: string, release: string): boolean {
  return supportedReleases(transactionSetIdentifier).includes(releaseOf(release));
}

/**
 * Base definitions proven position by position against an independent grammar of the standard
 * (test/unit/x12/impl/oracle.test.ts fails when one of these disagrees with it, and when one not
 * listed agrees). Only these validate sets: a definition not yet proven is used to translate, but
 * a set it describes is validated structurally only, since a definition stricter than the
 * standard would reject conforming documents.
 */
export const provenDefinitions: ReadonlySet<string> = new Set<string>(PROVEN);

/** The base definition that validates a set of this set and release, or null (structural checks only). */
export function validationImplementation(transactionSetIdentifier: string, release: string): Implementation | null {
  return provenDefinitions.has(`${transactionSetIdentifier}/${releaseOf(release)}`) ? baseImplementation(transactionSetIdentifier, release) : null;
}

/**
 * Null when a base definition validates the set in its release; otherwise the sentence to log or
 * show ("validated structurally only"): such a set gets envelope checks only, and its 997/999
 * accepts it when it is structurally sound.
 */
export function baseDefinitionNote(transactionSetIdentifier: string, release: string): string | null {
  if (validationImplementation(transactionSetIdentifier, release) !== null) return null;
  const rel = releaseOf(release) || '(none)';
  if (hasBaseDefinition(transactionSetIdentifier, release)) {
    return `The base definition of transaction set ${transactionSetIdentifier} release ${rel} is not yet proven against the standard's grammar: validated structurally only.`;
  }
  const releases = supportedReleases(transactionSetIdentifier);
  const known = releases.length === 0 ? `transaction set ${transactionSetIdentifier} has no base definition in any release` : `base definitions of ${transactionSetIdentifier} exist for ${releases.join(', ')} only`;
  return `No base definition for transaction set ${transactionSetIdentifier} release ${rel} (${known}): validated structurally only.`;
}

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}
