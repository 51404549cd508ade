/**
 * Mutations of X12 input for fuzz tests (the reader's unit fuzz and the pipeline fuzz): bytes
 * overwritten, segments dropped, delimiters swapped, the input cut short.
 */
import fc from 'fast-check';

export type Mutation = { kind: 'flip'; at: number; byte: number } | { kind: 'drop'; at: number } | { kind: 'swap'; a: number; b: number } | { kind: 'cut'; at: number };

export function mutate(input: Buffer, mutations: readonly Mutation[]): Buffer {
  let b = Buffer.from(input);
  for (const m of mutations) {
    if (b.length === 0) break;
    if (m.kind === 'flip') b[m.at % b.length] = m.byte;
    else if (m.kind === 'cut') b = b.subarray(0, m.at % b.length);
    else if (m.kind === 'drop') {
      // drop one segment: from one terminator to the next (terminator read from the ISA position)
      const term = b[105] ?? 0x7e;
      const start = b.indexOf(term, m.at % b.length);
      const end = start < 0 ? -1 : b.indexOf(term, start + 1);
      if (end > start) b = Buffer.concat([b.subarray(0, start), b.subarray(end)]);
    } else {
      // swap two delimiter bytes everywhere
      const x = b[3 + (m.a % 4 === 0 ? 0 : 100 + (m.a % 4))] ?? 0x2a;
      const y = b[3 + (m.b % 4 === 0 ? 0 : 100 + (m.b % 4))] ?? 0x7e;
      b = Buffer.from(b.map((c) => (c === x ? y : c === y ? x : c)));
    }
  }
  return b;
}

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
);
