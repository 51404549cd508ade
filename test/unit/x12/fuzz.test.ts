/**
 * Fuzz: mutated inputs (bytes flipped, segments dropped, delimiters swapped) end with a result
 * or a typed `x12_unreadable` error, never another exception or a hang. Seeds are fixed and
 * runs bounded so CI stays fast. Uses the corpus when present, else the own fixtures.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTdxError } from '../../../src/errors.ts';
import { genericJson } from '../../../src/x12/generic.ts';
import { translateAndValidateJson, translateSetJson, validateSet } from '../../../src/x12/impl/index.ts';
import { readInterchanges } from '../../../src/x12/interchange.ts';
import { readX12Stream } from '../../../src/x12/reader.ts';
import { fixture, fixturesDir } from './helpers.ts';
import { mutate, mutation } from '../../support/x12-mutate.ts';

const corpus = fileURLToPath(new URL('../../../../shared/corpus/x12/', import.meta.url));
const inputs: Buffer[] = existsSync(corpus)
  ? readdirSync(corpus)
      .filter((d) => statSync(corpus + d).isDirectory())
      .flatMap((d) => readdirSync(corpus + d).map((f) => readFileSync(`${corpus}${d}/${f}`)))
      .filter((b) => b.length < 20_000)
  : readdirSync(fixturesDir).map(fixture);

function settle(fn: () => unknown): 'read' | 'refused' {
  try {
    fn();
    return 'read';
  } catch (err) {
    if (isTdxError(err) && err.code === 'x12_unreadable') return 'refused';
    throw err;
  }
}

describe('reader fuzz', () => {
  it('ends every mutated input with a result or a typed error', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: inputs.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 6 }), (which, ms) => {
        const input = mutate(inputs[which]!, ms);
        const t0 = performance.now();
        const outcome = settle(() => {
          const read = readInterchanges(input);
          // touch every set's segments so the lazy split runs too
          for (const ic of read.interchanges) for (const g of ic.groups) for (const s of g.sets) void s.set.segments.length;
        });
        expect(['read', 'refused']).toContain(outcome);
        expect(performance.now() - t0).toBeLessThan(2000);
      }),
      { seed: 20240315, numRuns: 600 },
    );
  });

  it('streams mutated inputs to the same outcome as the whole-input read', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: inputs.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 97 }), async (which, ms, size) => {
        const input = mutate(inputs[which]!, ms);
        const whole = settle(() => readInterchanges(input));
        const chunks: Buffer[] = [];
        for (let i = 0; i < input.length; i += size) chunks.push(input.subarray(i, i + size));
        let streamed: 'read' | 'refused' = 'read';
        try {
          for await (const _ of readX12Stream(chunks)) void _;
        } catch (err) {
          if (!(isTdxError(err) && err.code === 'x12_unreadable')) throw err;
          streamed = 'refused';
        }
        expect(streamed).toBe(whole);
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('translates and validates every set of a mutated input: JSON text that parses, the same from each entry point', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: inputs.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 6 }), (which, ms) => {
        const input = mutate(inputs[which]!, ms);
        let read;
        try {
          read = readInterchanges(input);
        } catch (err) {
          if (isTdxError(err) && err.code === 'x12_unreadable') return;
          throw err;
        }
        for (const ic of read.interchanges) {
          for (const g of ic.groups) {
            for (const { set } of g.sets) {
              const t = translateSetJson(set);
              expect(() => JSON.parse(t.json) as unknown, t.json.slice(0, 200)).not.toThrow();
              expect(() => JSON.parse(genericJson(set)) as unknown).not.toThrow();
              const both = translateAndValidateJson(set);
              expect(both.json).toBe(t.json);
              expect(both.warnings).toEqual(t.warnings);
              expect(both.findings).toEqual(validateSet(set));
            }
          }
        }
      }),
      { seed: 31, numRuns: 300 },
    );
  });
});
