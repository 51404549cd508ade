/**
 * CPU and memory of the processes a run involves, from /proc (Linux): CPU seconds from
 * /proc/<pid>/stat (utime + stime, clock ticks) read before and after a scenario, and peak RSS
 * sampled from /proc/<pid>/status every 100 ms while it runs (VmHWM is the peak since the
 * process started, which would carry one scenario's peak into the next).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used so far; undefined once it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name (which may contain spaces), 1-based: utime 14, stime 15
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / TICKS;
  } catch {
    return undefined;
  }
}

/** Resident set size in MB. */
export function rssMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The pid listening on a loopback TCP port (Kafka, Cassandra), from `ss`. */
export function listenerPid(port: number): number | undefined {
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`]).toString();
    const m = /pid=(\d+)/.exec(out);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The kernel's count of connections a full accept queue dropped (TcpExt ListenOverflows in
 * /proc/net/netstat, every listening socket of the machine); undefined where it cannot be read.
 */
export function listenOverflows(): number | undefined {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((l) => l.startsWith('TcpExt:'));
    const names = lines[0]?.split(/\s+/) ?? [];
    const values = lines[1]?.split(/\s+/) ?? [];
    const i = names.indexOf('ListenOverflows');
    return i > 0 && values[i] !== undefined ? Number(values[i]) : undefined;
  } catch {
    return undefined;
  }
}

/** The `p`th percentile of `values` (the value at index ⌊p/100 × n⌋ of the sorted values); 0 when empty. */
export function pct(values: readonly number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

export const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

/** `service`: a process of the service; `store`: Kafka, Cassandra, the schema registry; `bench`: the load generator and the orchestrator (never charged to the pipeline). */
export type ProcessKind = 'service' | 'store' | 'bench';

export interface Watched {
  readonly name: string;
  readonly pid: number;
  readonly kind: ProcessKind;
}

export interface Usage {
  readonly name: string;
  readonly pid: number;
  readonly kind: ProcessKind;
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
}

/** Starts watching processes; `stop()` gives each one's CPU seconds used and peak RSS meanwhile. */
export function watch(procs: readonly Watched[]): { stop(): Usage[] } {
  const before = procs.map((p) => cpuSeconds(p.pid) ?? 0);
  const peak = procs.map((p) => rssMb(p.pid) ?? 0);
  const timer = setInterval(() => {
    procs.forEach((p, i) => {
      peak[i] = Math.max(peak[i]!, rssMb(p.pid) ?? 0);
    });
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return procs.map((p, i) => ({
        name: p.name,
        pid: p.pid,
        kind: p.kind,
        cpuSeconds: (cpuSeconds(p.pid) ?? before[i]!) - before[i]!,
        peakRssMb: Math.max(peak[i]!, rssMb(p.pid) ?? 0),
      }));
    },
  };
}
