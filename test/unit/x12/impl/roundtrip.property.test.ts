/**
 * Property: for generated conforming documents of several sets, EDI → JSON → EDI gives the same
 * segments, raises no warning, and the JSON validates against the implementation's schema.
 * Bounded runs with a fixed seed keep CI fast and reproducible.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseImplementation, documentToSegments, implementationSchema, translateSet } from '../../../../src/x12/impl/index.ts';
import type { ElementDef, Implementation, StructureNode } from '../../../../src/x12/impl/index.ts';
import { setOf, textOf } from './helpers.ts';

/** Small deterministic generator (mulberry32) driven by a fast-check seed. */
function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function value(e: ElementDef, r: (n: number) => number): string {
  const len = (lo: number, hi: number): number => lo + r(Math.max(1, hi - lo + 1));
  switch (e.type) {
    case 'DT': {
      const y = 1950 + r(100);
      const m = 1 + r(12);
      const d = 1 + r(28);
      const s = `${y}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}`;
      return e.maxLength === 6 ? s.slice(2) : s;
    }
    case 'TM':
      return `${String(r(24)).padStart(2, '0')}${String(r(60)).padStart(2, '0')}${r(2) === 0 ? '' : String(r(60)).padStart(2, '0')}`;
    case 'R': {
      const lo = Math.max(1, e.minLength);
      const intDigits = len(lo, Math.max(lo, Math.min(5, e.maxLength - 2)));
      let s = String(1 + r(9)) + Array.from({ length: intDigits - 1 }, () => String(r(10))).join('');
      if (lo === 1 && r(3) === 0) s = '0';
      if (r(2) === 0 && e.maxLength > intDigits + 1) s += `.${r(9) + 1}`;
      return s;
    }
    case 'ID':
    case 'AN':
    case 'B': {
      if (e.codes) return e.codes[r(e.codes.length)] ?? '';
      const n = len(e.minLength, Math.min(e.maxLength, e.minLength + 8));
      return Array.from({ length: n }, () => ALNUM[r(ALNUM.length)]).join('');
    }
    case 'composite':
      return '';
    default: {
      // N0..N9: no leading zeros beyond the minimum length
      const n = len(Math.max(1, e.minLength), Math.min(e.maxLength, Math.max(1, e.minLength) + 5));
      return n === 1 ? String(r(10)) : String(1 + r(9)) + Array.from({ length: n - 1 }, () => String(r(10))).join('');
    }
  }
}

function elementText(e: ElementDef, r: (n: number) => number): string {
  const one = (): string => {
    if (!e.components) return value(e, r);
    const parts = e.components.map((c) => (c.usage === 'must_use' || r(2) === 0 ? value(c, r) : ''));
    while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
    if (parts.length === 0) parts.push(value(e.components[0]!, r));
    return parts.join(':');
  };
  if (e.repeat <= 1) return one();
  return Array.from({ length: 1 + r(2) }, one).join('^');
}

function segmentText(id: string, els: readonly ElementDef[], r: (n: number) => number): string {
  const parts = els.map((e) => (e.usage === 'not_used' ? '' : e.usage === 'must_use' || r(3) === 0 ? elementText(e, r) : ''));
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return [id, ...parts].join('*');
}

function generate(nodes: readonly StructureNode[], r: (n: number) => number, out: string[], depth: number, inLoop: boolean): void {
  nodes.forEach((n, i) => {
    if (n.id === 'ST' || n.id === 'SE' || n.usage === 'not_used') return;
    const first = inLoop && i === 0;
    const max = n.kind === 'segment' ? (n.maxUse ?? 3) : (n.repeat ?? 3);
    const cap = Math.min(max, depth > 2 ? 1 : 2);
    const count = first ? 1 : n.usage === 'must_use' ? 1 + r(cap) : r(cap + 1) * (r(2) === 0 ? 0 : 1);
    for (let k = 0; k < count; k++) {
      if (n.kind === 'segment') out.push(segmentText(n.id, n.elements, r));
      else generate(n.children, r, out, depth + 1, true);
    }
  });
}

function documentFor(impl: Implementation, seed: number): string {
  const r = rng(seed);
  const body: string[] = [];
  for (const t of impl.tables) generate(t.children, r, body, 0, false);
  const segs = [`ST*${impl.transactionSet.identifier}*0001`, ...body, `SE*${body.length + 2}*0001`];
  return `${segs.join('~')}~`;
}

const ajv = new Ajv2020({ allErrors: true, strict: false });

describe.each([
  ['850', '004010', true],
  ['810', '005010', false],
  ['856', '004010', true],
  ['204', '003060', false],
  ['820', '004010', false],
  ['997', '005010', false],
  ['999', '005010', false],
])('round trip %s %s', (set, release, schema) => {
  const impl = baseImplementation(set, release)!;
  it('EDI → JSON → EDI gives the same segments', () => {
    const validate = schema ? ajv.compile(implementationSchema(impl)) : null;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const text = documentFor(impl, seed);
        const t = translateSet(setOf(text, release), impl);
        expect(t.warnings).toEqual([]);
        expect(textOf(documentToSegments(t.document, impl))).toBe(text);
        if (validate) expect(validate(t.document), JSON.stringify(validate.errors)).toBe(true);
      }),
      { seed: 4010, numRuns: 30 },
    );
  });
});
