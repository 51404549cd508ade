/**
 * The chaos run in small (docs/reliability.md): 300 transaction sets of every kind through the
 * service running as six processes, three of them killed with SIGKILL at random moments and
 * started again. Nothing is lost or duplicated: every set recorded once and ended, every feed
 * entry once, every webhook and 997 delivered, control numbers unique, ClickHouse agreeing with
 * Cassandra. `npm run chaos` runs the same at full size.
 */
import { describe, expect, it } from 'vitest';
import { formatReport, runChaos } from '../../chaos/run.ts';

describe('SIGKILL of random processes while 300 sets flow', () => {
  it('loses and duplicates nothing', async () => {
    const report = await runChaos({ sets: 300, kills: 3, settleTimeoutMs: 240_000, say: () => undefined });
    const lines = formatReport(report);
    expect(report.failures, lines.join('\n')).toEqual([]);
    expect([report.lost, report.duplicated]).toEqual([0, 0]);
    expect(report.kills).toHaveLength(3);
    expect(report.webhookCalls.failedOnPurpose, 'the receiver failed some calls').toBeGreaterThan(0);
    expect(report.acks997Received).toBeGreaterThan(0);
  }, 600_000);
});
