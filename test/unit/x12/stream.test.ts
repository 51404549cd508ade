/**
 * Streaming over a large generated input keeps memory flat. CI reads 100 MB generated on the fly;
 * X12_STREAM_MB=1024 runs the 1 GB version (npx vitest run test/unit/x12/stream.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { interchangeChunks } from '../../../bench/x12/generate.ts';
import { readX12Stream } from '../../../src/x12/reader.ts';

const mb = Number(process.env['X12_STREAM_MB'] ?? 100);

async function* chunks(target: number): AsyncGenerator<Buffer> {
  for (const c of interchangeChunks(target, 40)) {
    yield Buffer.from(c);
    await Promise.resolve();
  }
}

describe('readX12Stream', () => {
  it(`reads ${mb} MB with flat memory and no finding`, { timeout: 600_000 }, async () => {
    let sets = 0;
    let segments = 0;
    let findings = 0;
    let peak = 0;
    let base = 0;
    for await (const e of readX12Stream(chunks(mb * 1e6))) {
      if (e.type === 'set') {
        sets++;
        findings += e.findings.length;
        if (sets % 500 === 0) segments += e.set.segments.length;
        if (sets === 1000) base = process.memoryUsage().heapUsed;
        if (sets % 2000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      } else if (e.type === 'group_end' || e.type === 'interchange_end') findings += e.findings.length;
    }
    expect(sets).toBeGreaterThan(mb * 200);
    expect(segments).toBeGreaterThan(0);
    expect(findings).toBe(0);
    // heap growth bounded (a few chunks and GC slack), not proportional to the input
    expect(peak - base).toBeLessThan(64 * 1024 * 1024);
  });
});
