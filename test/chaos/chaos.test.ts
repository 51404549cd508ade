/**
 * `npm run chaos`: the full chaos run (test/chaos/run.ts, docs/reliability.md). Its size comes
 * from CHAOS_SETS (default 10000), CHAOS_KILLS (default 20) and CHAOS_SEED (default random);
 * CHAOS_STORE_RESTARTS=n runs it on a private Kafka broker restarted n times while it feeds;
 * the figures are printed and the run fails on any lost or duplicated document.
 */
import { describe, expect, it } from 'vitest';
import { formatReport, runChaos } from './run.ts';

const num = (name: string, fallback: number): number => {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : Number(v);
};

describe('chaos run', () => {
  it('loses and duplicates nothing while processes are killed', async () => {
    const report = await runChaos({
      sets: num('CHAOS_SETS', 10_000),
      kills: num('CHAOS_KILLS', 20),
      brokerRestarts: num('CHAOS_STORE_RESTARTS', 0),
      ...(process.env['CHAOS_SEED'] ? { seed: num('CHAOS_SEED', 0) } : {}),
      say: (l) => void process.stdout.write(`${l}\n`),
    });
    process.stdout.write(`\n${formatReport(report).join('\n')}\n\n`);
    expect(report.failures).toEqual([]);
    expect(report.lost).toBe(0);
    expect(report.duplicated).toBe(0);
    expect(report.kills.length).toBe(num('CHAOS_KILLS', 20));
    expect(report.brokerRestarts.length).toBe(num('CHAOS_STORE_RESTARTS', 0));
  }, 4 * 3600_000);
});
