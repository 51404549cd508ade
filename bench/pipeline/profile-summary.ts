/**
 * Summarizes a V8 `.cpuprofile` (node --cpu-prof): self time by area (package or source
 * folder), by function, and inclusive time of the project's own functions, so the shares in
 * docs/performance.md can be recomputed from a profile of `npm run bench:pipeline`.
 *
 *   npx tsx bench/pipeline/profile-summary.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const file = process.argv[2];
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
const top = Number(process.argv[3] ?? 25);
const prof = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// self time per node from samples and time deltas (microseconds)
const self = new Map<number, number>();
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i]!;
  self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);

/** The area a frame belongs to: a package, a folder of src/, or a V8 pseudo-frame. */
function area(n: Node): string {
  const { url, functionName } = n.callFrame;
  if (!url) return `(${functionName || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const src = /\/(src\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (src) return src[1]!;
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').split('/')[0]!;
  return url.replace(/^.*\//, '');
}

function add(m: Map<string, number>, k: string, v: number): void {
  m.set(k, (m.get(k) ?? 0) + v);
}

const areas = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id)!;
  add(areas, area(n), t);
  add(fns, `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${n.callFrame.lineNumber + 1}`, t);
}

// inclusive time of project functions (src/): each sample counts once per distinct function on its stack
const inclusive = new Map<string, number>();
for (const [id, t] of self) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur)!;
    if (!/\/src\//.test(n.callFrame.url) || n.callFrame.url.includes('node_modules')) continue;
    const k = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/src\//, 'src/')}:${n.callFrame.lineNumber + 1}`;
    if (seen.has(k)) continue;
    seen.add(k);
    add(inclusive, k, t);
  }
}

// inclusive time by area: each sample counts once per area on its stack (a driver's buffer work
// counts for the driver that called node:buffer)
const inclusiveAreas = new Map<string, number>();
for (const [id, t] of self) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const a = area(byId.get(cur)!);
    if (seen.has(a) || a.startsWith('(')) continue;
    seen.add(a);
    add(inclusiveAreas, a, t);
  }
}
// attributed: each sample to the nearest frame on its stack that is a package or project code
// (not node: internals or a V8 pseudo-frame), so a driver's buffer and socket work counts for
// the driver; GC, idle and program stay apart
const attributed = new Map<string, number>();
for (const [id, t] of self) {
  let owner = area(byId.get(id)!);
  if (!owner.startsWith('((')) {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const a = area(byId.get(cur)!);
      if (a.startsWith('(') || a.startsWith('node:')) continue;
      owner = a;
      break;
    }
  }
  add(attributed, owner, t);
}
const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((n, [, t]) => n + t, 0);

const pct = (v: number): string => `${((100 * v) / total).toFixed(1).padStart(5)}%`;
const ms = (v: number): string => `${(v / 1000).toFixed(0).padStart(7)} ms`;
const show = (title: string, m: Map<string, number>): void => {
  console.log(`\n${title}`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)} ${ms(v)}  ${k}`);
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled (wall ${((prof.endTime - prof.startTime) / 1e6).toFixed(1)} s)`);
console.log(`busy (not idle): ${((total - idle) / 1e6).toFixed(1)} s; shares below are of all samples`);
show('self time by area', areas);
show('time attributed to the nearest package or project folder on the stack', attributed);
show('inclusive time by area (a sample counts once for each area on its stack)', inclusiveAreas);
show('self time by function', fns);
show('inclusive time of src/ functions', inclusive);
