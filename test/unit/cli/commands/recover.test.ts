import { describe, expect, it } from 'vitest';
import { progressLine, timeArg } from '../../../../src/cli/commands/recover.ts';

describe('tdx recover', () => {
  it('reads times as ISO 8601 or a duration back from now', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(timeArg('since', '30m', now)).toBe('2026-11-26T11:30:00.000Z');
    expect(timeArg('since', '2d', now)).toBe('2026-11-24T12:00:00.000Z');
    expect(timeArg('until', '2026-11-26T10:00:00+01:00', now)).toBe('2026-11-26T09:00:00.000Z');
    expect(() => timeArg('since', 'yesterday', now)).toThrow(/--since/);
  });

  it('prints progress as one line', () => {
    expect(progressLine({ id: 'r', status: 'running', matched: 200, examined: 50, started: 40, skipped: { delivered_since: 10, already_recovered: 0 }, errors: 0 })).toBe('recovery r running: 50/200 examined (25%), 40 started, skipped: 10 delivered since');
    expect(progressLine({ id: 'r', status: 'done', matched: 0, examined: 0, started: 0, skipped: {}, errors: 2, dryRun: true })).toBe('recovery r done: 0/0 examined (100%), 0 would start, 2 could not start');
  });
});
