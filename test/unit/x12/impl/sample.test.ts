import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { baseImplementation, deriveImplementation, implementationSchema, sampleSegments, sampleSet, supportedReleases, supportedSets, translateAndValidateJson } from '../../../../src/x12/impl/index.ts';

// each implementation schema is compiled once: ajv's passes that tidy the generated code cost more
// than they save on a single validation (the validator accepts and refuses the same)
const ajv = new Ajv2020({ allErrors: true, strict: false, code: { optimize: false } });
const every = supportedSets.flatMap((set) => supportedReleases(set).map((release) => [set, release] as const));

describe('sampleSet', { timeout: 30_000 }, () => {
  it('covers every shipped set and release', () => {
    expect(every.length).toBeGreaterThan(20);
  });

  it.each(every)('%s %s: a minimal set that validates with no finding and translates into the schema', (set, release) => {
    const impl = baseImplementation(set, release)!;
    const r = translateAndValidateJson(sampleSet(impl), impl);
    expect(r.findings).toEqual([]);
    expect(r.warnings).toEqual([]);
    const validate = ajv.compile(implementationSchema(impl));
    expect(validate(JSON.parse(r.json)), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });

  it('gives must-use segments their must-use elements, paired elements together and codes from the implementation', () => {
    const impl = deriveImplementation(baseImplementation('850', '004010')!, { id: 'x', name: 'x', version: '1', status: 'published' }, [
      { path: 'heading/BEG', element: 1, codes: ['05', '00'] },
      { path: 'heading/CUR', usage: 'must_use' },
      { path: 'heading/CUR', element: 8, usage: 'must_use' },
    ]);
    const segs = sampleSegments(impl);
    expect(segs.map((s) => s.id)).toEqual(['BEG', 'CUR', 'PO1']);
    // BEG01 takes the first allowed code; BEG05 is a CCYYMMDD date
    expect(segs[0]).toEqual({ id: 'BEG', elements: ['05', 'ZZ', 'SAMPLE', '', '20260115'] });
    // CUR08 is must-use here, and C0807 then requires CUR07
    expect(segs[1]).toEqual({ id: 'CUR', elements: ['ZZ', 'ZZZ', '', '', '', '', 'ZZZ', '20260115'] });
    expect(translateAndValidateJson(sampleSet(impl), impl).findings).toEqual([]);
  });
});
