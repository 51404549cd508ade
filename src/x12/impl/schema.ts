/**
 * JSON Schema (draft 2020-12) of an implementation's JSON shape: the shape translation produces
 * for a conforming document and the shape a mapping must produce to write one. Segments and
 * elements the implementation does not use are absent; must-use ones are required (ST and SE
 * excepted: the writer makes them). Objects admit no other properties.
 */
import { compile } from './compile.ts';
import type { CChild, CElement, CSegment } from './compile.ts';
import type { Implementation, TableName } from './model.ts';

type Schema = Record<string, unknown>;

function simpleSchema(e: CElement): Schema {
  const d = e.def;
  const base: Schema = { title: `${d.name} (${d.reference})` };
  if (d.notes) base['description'] = d.notes;
  switch (d.type) {
    case 'R':
      return { ...base, type: 'number' };
    case 'DT':
      return { ...base, type: 'string', pattern: d.maxLength === 6 ? '^[0-9]{6}$' : '^[0-9]{4}-[0-9]{2}-[0-9]{2}$|^[0-9]{6}$' };
    case 'TM':
      return { ...base, type: 'string', pattern: '^[0-9]{4}([0-9]{2}([0-9]{1,2})?)?$', minLength: d.minLength, maxLength: d.maxLength };
    case 'ID':
    case 'AN':
    case 'B': {
      const s: Schema = { ...base, type: 'string', minLength: d.minLength, maxLength: d.maxLength };
      if (d.codes) s['enum'] = [...d.codes];
      return s;
    }
    default:
      // N0..N9
      return d.type === 'N0' ? { ...base, type: 'integer' } : { ...base, type: 'number' };
  }
}

function elementSchema(e: CElement): Schema {
  let s: Schema;
  if (e.components) {
    const properties: Schema = {};
    const required: string[] = [];
    for (const c of e.components) {
      if (c.notUsed) continue;
      properties[c.key] = simpleSchema(c);
      if (c.mandatory) required.push(c.key);
    }
    s = { title: `${e.def.name} (${e.reference})`, type: 'object', properties, required, additionalProperties: false };
  } else s = simpleSchema(e);
  return e.repeat > 1 ? { type: 'array', items: s, minItems: e.mandatory ? 1 : 0, maxItems: e.repeat } : s;
}

function segmentSchema(cs: CSegment): Schema {
  const properties: Schema = {};
  const required: string[] = [];
  for (const e of cs.elements) {
    if (e.notUsed) continue;
    properties[e.key] = elementSchema(e);
    if (e.mandatory) required.push(e.key);
  }
  const s: Schema = { title: `${cs.node.name} (${cs.id})`, type: 'object', properties, required, additionalProperties: false };
  if (cs.node.notes) s['description'] = cs.node.notes;
  return s;
}

function levelSchema(children: readonly CChild[], title: string): Schema {
  const properties: Schema = {};
  const required: string[] = [];
  for (const ch of children) {
    if (ch.notUsed) continue;
    let s: Schema;
    if (ch.seg !== null) {
      const seg = segmentSchema(ch.seg);
      s = ch.seg.array ? { type: 'array', items: seg, minItems: ch.mandatory ? 1 : 0, ...(ch.max === Infinity ? {} : { maxItems: ch.max }) } : seg;
    } else {
      const lvl = ch.loop;
      const inner = levelSchema(lvl ? lvl.children : [], `Loop ${lvl?.loopId ?? ''}`);
      s = { type: 'array', items: inner, minItems: ch.mandatory ? 1 : 0, ...(ch.max === Infinity ? {} : { maxItems: ch.max }) };
    }
    properties[ch.key] = s;
    if (ch.mandatory && ch.segId !== 'ST' && ch.segId !== 'SE') required.push(ch.key);
  }
  return { title, type: 'object', properties, required, additionalProperties: false };
}

/** The JSON Schema (draft 2020-12) of an implementation's documents. */
export function implementationSchema(impl: Implementation): Schema {
  const c = compile(impl);
  const properties: Schema = {};
  const required: string[] = [];
  for (const t of impl.tables) {
    const children = c.root.children.filter((ch) => ch.table === t.name);
    const s = levelSchema(children, tableTitle(t.name));
    properties[t.name] = s;
    if ((s['required'] as string[]).length > 0) required.push(t.name);
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `${impl.name} (${impl.transactionSet.identifier} ${impl.transactionSet.release}, version ${impl.version})`,
    type: 'object',
    properties,
    required,
    additionalProperties: false,
  };
}

const tableTitle = (t: TableName): string => (t === 'heading' ? 'Heading' : t === 'detail' ? 'Detail' : 'Summary');
