import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  baseImplementation,
  deriveImplementation,
  deviations,
  documentToSegments,
  exportImplementation,
  implementationSchema,
  importImplementation,
  renderGuide,
  translateSet,
  useCounts,
  validateSet,
} from '../../../../src/x12/impl/index.ts';
import type { Finding } from '../../../../src/x12/impl/index.ts';
import { isTdxError } from '../../../../src/errors.ts';
import { setOf, textOf } from './helpers.ts';

const base = baseImplementation('850', '004010')!;
const partner = deriveImplementation(base, { id: 'impl-acme-850', name: 'ACME 850', version: '1.2', status: 'published', description: 'ACME purchase orders' }, [
  { path: 'heading/BEG', element: 1, codes: ['00', '05'] },
  { path: 'heading/BEG', element: 2, codes: ['SA'] },
  { path: 'heading/CUR', usage: 'not_used' },
  { path: 'heading/REF', usage: 'must_use', max: 2 },
  { path: 'heading/N1', max: 3, notes: 'Ship-to and bill-to' },
  { path: 'heading/N1/N1', element: 3, usage: 'must_use' },
  { path: 'detail/PO1/PO1', element: 4, usage: 'must_use' },
  { path: 'detail/PO1/PO1', element: 1, usage: 'not_used' },
]);
const codes = (fs: Finding[]): string[] => fs.map((f) => `${f.segmentId}:${f.code}${f.level === 'element' ? `@${f.elementPosition}` : ''}${f.implementationCode ? `/${f.implementationCode}` : ''}`);
const good = 'ST*850*0001~BEG*00*SA*PO1**20240101~REF*DP*1~N1*ST*Store*92*01~PO1**2*EA*3.5~SE*6*0001~';

describe('partner implementation', () => {
  it('keeps the base untouched and records where it came from', () => {
    expect(partner.sourceImplementation).toEqual({ id: base.id, name: base.name });
    expect(base.tables[0]!.children.find((c) => c.id === 'CUR')!.usage).toBe('used');
    expect(useCounts(partner).segmentUseCount).toBe(useCounts(base).segmentUseCount - 1);
  });

  it('accepts a document that follows it', () => {
    expect(validateSet(setOf(good), partner)).toEqual([]);
  });

  it.each([
    ['a restricted code', good.replace('BEG*00*SA', 'BEG*00*NE'), 'BEG:7@2'],
    ['a not-used segment', good.replace('REF*DP*1~', 'CUR*BY*USD~REF*DP*1~').replace('SE*6', 'SE*7'), 'CUR:2/I6'],
    ['a missing must-use segment', good.replace('REF*DP*1~', '').replace('SE*6', 'SE*5'), 'REF:3'],
    ['a lowered max use', good.replace('REF*DP*1~', 'REF*DP*1~REF*IA*2~REF*VR*3~').replace('SE*6', 'SE*8'), 'REF:5'],
    ['a must-use element', good.replace('N1*ST*Store*92*01', 'N1*ST*Store'), 'N1:1@3'],
    ['a not-used element', good.replace('PO1**2*EA', 'PO1*1*2*EA'), 'PO1:10@1/I10'],
    ['a lowered loop repeat', good.replace('N1*ST*Store*92*01~', 'N1*ST*A*92*01~N1*BT*B*92*01~N1*SF*C*92*01~N1*RE*D*92*01~').replace('SE*6', 'SE*9'), 'N1:4'],
  ])('flags %s', (_, text, expected) => {
    expect(codes(validateSet(setOf(text), partner))).toContain(expected);
    expect(codes(validateSet(setOf(text), base))).not.toContain(expected);
  });

  it('lists its deviations from the base', () => {
    const d = deviations(partner, base).map((x) => `${x.path} ${x.field} ${x.base} → ${x.value}`);
    expect(d).toEqual(
      expect.arrayContaining([
        'heading/BEG BEG01 codes (none) → 00, 05',
        'heading/CUR usage used → not_used',
        'heading/REF usage used → must_use',
        'heading/REF max unbounded → 2',
        'heading/N1 max 200 → 3',
        'heading/N1/N1 N103 usage used → must_use',
        'detail/PO1/PO1 PO101 usage used → not_used',
      ]),
    );
    expect(deviations(base, base)).toEqual([]);
  });

  it('refuses a path that names nothing', () => {
    const attempt = (): unknown => deriveImplementation(base, { id: 'x', name: 'x', version: '1' }, [{ path: 'heading/N1/XYZ', usage: 'must_use' }]);
    expect(attempt).toThrow(/heading\/N1\/XYZ/);
    try {
      attempt();
    } catch (e) {
      expect(isTdxError(e) && e.code).toBe('x12_document_invalid');
    }
  });

  it('its schema requires what it requires and refuses what it does not use', () => {
    // each implementation schema is compiled once: ajv's passes that tidy the generated code cost more
    // than they save on a single validation (the validator accepts and refuses the same)
    const ajv = new Ajv2020({ strict: false, code: { optimize: false } });
    const validate = ajv.compile(implementationSchema(partner));
    const doc = translateSet(setOf(good), partner).document;
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    const withCur = translateSet(setOf(good.replace('REF*DP*1~', 'CUR*BY*USD~REF*DP*1~')), partner).document;
    expect(validate(withCur)).toBe(false);
    const badCode = translateSet(setOf(good.replace('BEG*00*SA', 'BEG*01*SA')), partner).document;
    expect(validate(badCode)).toBe(false);
    expect(textOf(documentToSegments(doc, partner))).toBe(good);
    // compiling the schema of the standard's whole 850 table takes seconds on a loaded machine
  }, 60_000);
});

describe('guide', () => {
  it.each(['console', 'markdown'] as const)('%s lists tables, loops, segments, elements, codes, conditions and deviations', (variant) => {
    const g = renderGuide(partner, variant);
    for (const s of ['ACME 850', 'Table heading', 'Table detail', 'Table summary', 'Loop N1', 'Loop PO1', 'BEG', 'Purchase Order Number', 'codes: 00, 05', 'Ship-to and bill-to', 'not used', 'heading/CUR: usage used → not_used', 'Condition P0304']) {
      expect(g, s).toContain(s);
    }
    if (variant === 'markdown') {
      expect(g).toContain('## Table heading');
      expect(g).toContain('| Element | Ref | Name |');
    } else expect(g).not.toContain('| Element');
  });

  it('a base implementation has no deviations section', () => {
    expect(renderGuide(base)).not.toContain('Deviations');
  });
});

describe('portable export', () => {
  it('imports back to an equal implementation', () => {
    const exported = exportImplementation(partner);
    const json = JSON.parse(JSON.stringify(exported)) as unknown;
    expect(importImplementation(json, { id: partner.id, sourceImplementation: partner.sourceImplementation })).toEqual(partner);
    expect(importImplementation(exportImplementation(base), { id: base.id })).toEqual(base);
  });

  it('is keyed by segment codes, positions and loop ids, with no database ids', () => {
    const text = JSON.stringify(exportImplementation(partner));
    expect(text).not.toContain(partner.id);
    expect(text).toContain('"loop":"N1"');
    expect(text).toContain('"segment":"BEG","name":"Beginning Segment for Purchase Order","position":"020"');
  });

  it('names the path of a broken export', () => {
    const broken = exportImplementation(partner) as { tables: { children: { usage: string }[] }[] };
    broken.tables[0]!.children[1]!.usage = 'sometimes';
    expect(() => importImplementation(broken, { id: 'x' })).toThrow(/\$\.tables\[0\]\.children\[1\]\.usage/);
  });
});
