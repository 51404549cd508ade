/**
 * deploy/observability: the scrape configuration and the alert rules pass `promtool check`,
 * every alert passes its unit tests (`promtool test rules`: fires when it should, quiet when it
 * should not), and every metric the rules and the dashboard query is one the service exposes.
 * promtool comes from Debian's `prometheus` package (deploy/observability/ensure-prometheus.sh,
 * run here and by `npm test` when it is missing).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrometheusMeters } from '../../../src/adapters/metrics/prometheus.ts';

const dir = fileURLToPath(new URL('../../../deploy/observability/', import.meta.url));

function promtool(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Metric names in PromQL text: identifiers followed by `{`, `[` or `)`, or standing alone. */
function metricNames(expr: string): string[] {
  const names = new Set<string>();
  for (const m of expr.matchAll(/\b((?:tdx|nodejs|process)_[a-z0-9_]+)/g)) names.add(m[1]!);
  return [...names];
}

/** Names the service exposes, with the histogram suffixes. */
async function exposed(): Promise<Set<string>> {
  const text = await new PrometheusMeters().render();
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)/.exec(line);
    if (!m) continue;
    names.add(m[1]!);
    if (m[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m[1]! + s);
  }
  return names;
}

describe('deploy/observability', () => {
  beforeAll(() => {
    execFileSync('bash', [`${dir}ensure-prometheus.sh`], { stdio: 'inherit' });
  }, 600_000);

  it('promtool check config accepts the scrape configuration (and its rule file)', () => {
    const r = promtool('check', 'config', 'prometheus.yml');
    expect(r.out).toContain('SUCCESS');
    expect(r.status, r.out).toBe(0);
  });

  it('promtool check rules accepts the alert rules', () => {
    const r = promtool('check', 'rules', 'alerts.yml');
    expect(r.status, r.out).toBe(0);
  });

  it('promtool test rules passes, and tests every alert both firing and quiet', () => {
    const r = promtool('test', 'rules', 'alerts.test.yml');
    expect(r.status, r.out).toBe(0);
    const rules = readFileSync(`${dir}alerts.yml`, 'utf8');
    const tests = readFileSync(`${dir}alerts.test.yml`, 'utf8');
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]!);
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    for (const name of ['TdxHttpErrorRate', 'TdxDeadLetters', 'TdxConsumerLag', 'TdxSftpPollingFailing', 'TdxWebhooksExhausted', 'TdxAcknowledgmentsOverdue', 'TdxStoreUnavailable']) expect(alerts).toContain(name);
    for (const a of alerts) {
      const cases = [...tests.matchAll(new RegExp(`alertname: ${a}\\n\\s+exp_alerts:(.*)`, 'g'))].map((m) => m[1]!.trim());
      expect(cases.some((c) => c === '[]'), `${a} has no case where it stays quiet`).toBe(true);
      expect(cases.some((c) => c === ''), `${a} has no case where it fires`).toBe(true);
    }
  });

  it('the rules and the dashboard query only metrics the service exposes', async () => {
    const names = await exposed();
    const rules = readFileSync(`${dir}alerts.yml`, 'utf8');
    const dashboard = JSON.parse(readFileSync(`${dir}grafana-dashboard.json`, 'utf8')) as { panels: { type: string; title: string; targets?: { expr: string }[] }[] };
    const used = [...metricNames(rules), ...dashboard.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => metricNames(t.expr)))];
    expect(used.length).toBeGreaterThan(20);
    expect(used.filter((n) => !names.has(n))).toEqual([]);
  });

  it('the dashboard has one row per concern, each with panels', () => {
    const dashboard = JSON.parse(readFileSync(`${dir}grafana-dashboard.json`, 'utf8')) as { panels: { type: string; title: string }[] };
    const rows: string[] = [];
    const panelsPerRow = new Map<string, number>();
    for (const p of dashboard.panels) {
      if (p.type === 'row') rows.push(p.title);
      else panelsPerRow.set(rows.at(-1)!, (panelsPerRow.get(rows.at(-1)!) ?? 0) + 1);
    }
    expect(rows).toEqual(['Processes', 'HTTP API', 'Pipeline', 'Consumer lag', 'Delivery', 'Business', 'Stores', 'Process runtime']);
    for (const r of rows) expect(panelsPerRow.get(r), r).toBeGreaterThan(0);
  });
});
