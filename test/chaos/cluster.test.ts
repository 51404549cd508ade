/**
 * `npm run chaos:cluster` (test/chaos/cluster.sh): the chaos run on the 3-broker, 3-node cluster of
 * deploy/cluster.sh, killing a broker, a Cassandra node, then one of each at once (test/chaos/run.ts,
 * docs/stack.md "Running on a cluster"). Runs only with CHAOS_CLUSTER=1 (the script sets it after
 * starting the cluster), so `npm run chaos` leaves it out. Prints
 * `cluster: kills <n>, lost <n>, duplicated <n>, unavailable_s <n>`.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatReport, runChaos, type ClusterNodes } from './run.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CLUSTER_DIR = process.env['TDX_CLUSTER_DIR'] ?? path.join(ROOT, '.cluster');

const num = (name: string, fallback: number): number => {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : Number(v);
};

function clusterCommand(cmd: 'kill' | 'start', node: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn('bash', [path.join(ROOT, 'deploy/cluster.sh'), cmd, node], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (out += d.toString()));
    c.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`deploy/cluster.sh ${cmd} ${node} exited ${code}: ${out.slice(-1500)}`))));
  });
}

describe.runIf(process.env['CHAOS_CLUSTER'] === '1')('chaos run on a cluster', () => {
  it('loses and duplicates nothing while brokers and Cassandra nodes are killed', async () => {
    const env = Object.fromEntries(
      readFileSync(path.join(CLUSTER_DIR, 'env'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const cluster: ClusterNodes = { env, kill: (n) => clusterCommand('kill', n), start: (n) => clusterCommand('start', n) };
    const report = await runChaos({
      sets: num('CHAOS_SETS', 2_000),
      kills: 0,
      cluster,
      ...(process.env['CHAOS_SEED'] ? { seed: num('CHAOS_SEED', 0) } : {}),
      say: (l) => void process.stdout.write(`${l}\n`),
    });
    const killed = report.nodeKills.reduce((a, k) => a + k.nodes.length, 0);
    const line = `cluster: kills ${killed}, lost ${report.lost}, duplicated ${report.duplicated}, unavailable_s ${report.unavailableS}`;
    process.stdout.write(`\n${formatReport(report).join('\n')}\n\n${line}\n`);
    writeFileSync(path.join(CLUSTER_DIR, 'chaos-result'), `${formatReport(report).join('\n')}\n${line}\n`);
    expect(report.failures).toEqual([]);
    expect(report.lost).toBe(0);
    expect(report.duplicated).toBe(0);
    expect(killed).toBe(4);
  }, 4 * 3600_000);
});
