import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('deploy/stack.sh', () => {
  it('makes Kafka cluster ids of 16 URL-safe base64 bytes that never start with "-" (the storage tool would read one as an option)', () => {
    // one in 64 random ids starts with '-': 300 ids meet one 99 times in 100 when the guard is gone
    const out = execFileSync('bash', ['-c', '. deploy/stack.sh && for i in $(seq 300); do kafka_cluster_id; done'], { encoding: 'utf8' });
    const ids = out.trim().split('\n');
    expect(ids).toHaveLength(300);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    expect(new Set(ids).size).toBe(300);
  }, 30_000);

  it('starts a command with the timer slack asked for, in the same process, and with none for 0 (Cassandra, TDX_STACK_CASSANDRA_TIMER_SLACK_NS)', () => {
    const run = (ns: string): string[] =>
      execFileSync('bash', ['-c', `. deploy/stack.sh; mapfile -d '' -t p < <(with_timer_slack ${ns}); "\${p[@]}" bash -c 'echo $$; cat /proc/$$/timerslack_ns' & wait $!; echo $!`], { encoding: 'utf8' }).trim().split('\n');
    const [pid, slack, launched] = run('700000');
    expect(slack).toBe('700000');
    // the pid a launcher records is the command's own (the prefix execs it)
    expect(pid).toBe(launched);
    expect(run('0')[1]).toBe(readFileSync('/proc/self/timerslack_ns', 'utf8').trim());
    expect(() => execFileSync('bash', ['deploy/stack.sh', 'status'], { env: { ...process.env, TDX_STACK_CASSANDRA_TIMER_SLACK_NS: 'fast' }, stdio: 'pipe' })).toThrow(/whole number of nanoseconds/);
  }, 30_000);

  it('waits for the npm packages before its probes when npm test starts it beside npm ci (TDX_STACK_DEPS_READY), and gives up when the run went away', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tdx-deps-ready-'));
    try {
      const ready = join(dir, 'deps.ready');
      // the file appears 0.6 s later: the wait returns after it, not before
      const waited = spawnSync('bash', ['-c', `. deploy/stack.sh; (sleep 0.6; : > "${ready}") & t0=$(date +%s%N); await_node_deps; echo $(( ($(date +%s%N) - t0) / 1000000 ))`], {
        encoding: 'utf8',
        env: { ...process.env, TDX_STACK_DEPS_READY: ready },
      });
      expect(waited.status, waited.stderr).toBe(0);
      expect(Number(waited.stdout.trim())).toBeGreaterThanOrEqual(500);
      // the run's folder is removed (npm test exited, npm ci having failed): the wait ends with an error
      const gone = join(dir, 'gone');
      const gaveUp = spawnSync('bash', ['-c', `. deploy/stack.sh; await_node_deps`], { encoding: 'utf8', env: { ...process.env, TDX_STACK_DEPS_READY: join(gone, 'deps.ready') }, timeout: 10_000 });
      expect(gaveUp.status).toBe(1);
      expect(gaveUp.stderr).toMatch(/gave up waiting for the npm dependencies/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('kills a component at once with `kill` (a stack .ci/run discards), where `stop` waits for a graceful exit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tdx-stack-kill-'));
    try {
      // a stand-in for sshd (its marker is its config path on the command line) that ignores SIGTERM
      const conf = join(dir, 'sshd', 'sshd_config');
      const started = spawnSync('bash', ['-c', `mkdir -p "${dir}/sshd"; setsid bash -c 'trap "" TERM; while :; do sleep 0.1; done' "${conf}" >/dev/null 2>&1 & echo $! > "${dir}/sshd/pid"`], { encoding: 'utf8' });
      expect(started.status, started.stderr).toBe(0);
      const pid = Number(readFileSync(join(dir, 'sshd', 'pid'), 'utf8'));
      const alive = (): boolean => spawnSync('kill', ['-0', String(pid)]).status === 0;
      expect(alive()).toBe(true);
      const t0 = Date.now();
      const killed = spawnSync('bash', ['deploy/stack.sh', 'kill', 'sshd'], { encoding: 'utf8', env: { ...process.env, TDX_STACK_DIR: dir }, timeout: 20_000 });
      expect(killed.status, killed.stderr).toBe(0);
      expect(killed.stderr).toContain(`sshd: killed (pid ${pid})`);
      // SIGTERM is ignored: only SIGKILL ends it, and at once (stop would wait 30 s before it)
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(alive()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
