/**
 * Property: for generated conforming documents of several sets, EDI → JSON → EDI gives the same
 * segments, raises no warning, and the JSON validates against the implementation's schema.
 *
 * What is compared: the written EDI text, byte for byte, against the generated text. The
 * generator writes numbers in their canonical form (R without leading zeros or trailing fraction
 * zeros, N without leading zeros beyond the element's minimum length), because translation
 * carries numbers as JSON numbers. A second property sends numbers in non-canonical forms
 * ("0012.50"): they come back canonical ("12.5"), so there the elements are compared as text
 * except numeric ones, which are compared by value.
 *
 * Bounded runs with a fixed seed keep CI fast and reproducible.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
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

/** `canonical` false: numbers get extra leading zeros and trailing fraction zeros at random. */
function value(e: ElementDef, r: (n: number) => number, canonical: boolean): string {
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
      if (!canonical) s = '0'.repeat(r(3)) + s + (s.includes('.') ? '0'.repeat(r(3)) : r(2) === 0 ? '.0' : '');
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
      const s = n === 1 ? String(r(10)) : String(1 + r(9)) + Array.from({ length: n - 1 }, () => String(r(10))).join('');
      return canonical ? s : '0'.repeat(r(3)) + s;
    }
  }
}

function elementText(e: ElementDef, r: (n: number) => number, canonical: boolean): string {
  const one = (): string => {
    if (!e.components) return value(e, r, canonical);
    const parts = e.components.map((c) => (c.usage === 'must_use' || r(2) === 0 ? value(c, r, canonical) : ''));
    while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
    if (parts.length === 0) parts.push(value(e.components[0]!, r, canonical));
    return parts.join(':');
  };
  if (e.repeat <= 1) return one();
  return Array.from({ length: 1 + r(2) }, one).join('^');
}

function segmentText(id: string, els: readonly ElementDef[], r: (n: number) => number, canonical: boolean): string {
  const parts = els.map((e) => (e.usage === 'not_used' ? '' : e.usage === 'must_use' || r(3) === 0 ? elementText(e, r, canonical) : ''));
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return [id, ...parts].join('*');
}

function generate(nodes: readonly StructureNode[], r: (n: number) => number, out: string[], depth: number, inLoop: boolean, canonical: boolean): void {
  nodes.forEach((n, i) => {
    if (n.id === 'ST' || n.id === 'SE' || n.usage === 'not_used') return;
    const first = inLoop && i === 0;
    const max = n.kind === 'segment' ? (n.maxUse ?? 3) : (n.repeat ?? 3);
    const cap = Math.min(max, depth > 2 ? 1 : 2);
    const count = first ? 1 : n.usage === 'must_use' ? 1 + r(cap) : r(cap + 1) * (r(2) === 0 ? 0 : 1);
    for (let k = 0; k < count; k++) {
      if (n.kind === 'segment') out.push(segmentText(n.id, n.elements, r, canonical));
      else generate(n.children, r, out, depth + 1, true, canonical);
    }
  });
}

function documentFor(impl: Implementation, seed: number, canonical = true): string {
  const r = rng(seed);
  const body: string[] = [];
  for (const t of impl.tables) generate(t.children, r, body, 0, false, canonical);
  const segs = [`ST*${impl.transactionSet.identifier}*0001`, ...body, `SE*${body.length + 2}*0001`];
  return `${segs.join('~')}~`;
}

// each implementation schema is compiled once: ajv's passes that tidy the generated code cost more
// than they save on a single validation (the validator accepts and refuses the same)
const ajv = new Ajv2020({ allErrors: true, strict: false, code: { optimize: false } });

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
  // compiling the 850's schema is most of this block's time (about 0.6 s of 0.9 alone on a
  // 2-core machine): set-up, not the property
  let validate: ValidateFunction | null = null;
  beforeAll(() => {
    validate = schema ? ajv.compile(implementationSchema(impl)) : null;
  });
  it('EDI → JSON → EDI gives the same segments', () => {
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

  it('EDI → JSON → EDI with non-canonical numbers gives the same segments, numbers equal in value', () => {
    // element and component values by position; numeric ones (N, R) compared by value, the rest as text
    const numeric = new Set<string>();
    const composite = new Set<string>();
    const isNumeric = (e: ElementDef): boolean => e.type === 'R' || /^N[0-9]$/.test(e.type);
    const walk = (nodes: readonly StructureNode[]): void => {
      for (const n of nodes) {
        if (n.kind === 'loop') walk(n.children);
        else {
          n.elements.forEach((e, i) => {
            if (isNumeric(e)) numeric.add(`${n.id}/${i}`);
            if (e.components) composite.add(`${n.id}/${i}`);
            e.components?.forEach((c, j) => {
              if (isNumeric(c)) numeric.add(`${n.id}/${i}/${j}`);
            });
          });
        }
      }
    };
    for (const t of impl.tables) walk(t.children);
    const num = (key: string, v: string): unknown => (numeric.has(key) && /^-?[0-9]*\.?[0-9]+\.?$/.test(v) ? Number(v) : v);
    const normal = (text: string): unknown[][] =>
      text
        .split('~')
        .filter((s) => s !== '')
        .map((s) => {
          const [id = '', ...els] = s.split('*');
          return [id, ...els.map((v, i) => v.split('^').map((rep) => rep.split(':').map((c, j, all) => (composite.has(`${id}/${i}`) ? num(`${id}/${i}/${j}`, c) : all.length === 1 ? num(`${id}/${i}`, c) : c))))];
        });
    let changed = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const text = documentFor(impl, seed, false);
        const written = textOf(documentToSegments(translateSet(setOf(text, release), impl).document, impl));
        if (written !== text) changed++;
        expect(normal(written)).toEqual(normal(text));
      }),
      { seed: 4010, numRuns: 30 },
    );
    // the property is not vacuous: non-canonical numbers did come back in another form
    if (numeric.size > 0) expect(changed).toBeGreaterThan(0);
  });
});
