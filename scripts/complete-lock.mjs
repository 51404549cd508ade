#!/usr/bin/env node
// Completes package-lock.json so that `npm ci` accepts it on every machine.
//
// npm records a package's optional platform dependencies (native binaries for other operating
// systems and CPUs) only when the registry serves them; some are never published (chdb's darwin
// libraries) or not served here. `npm ci` then refuses the lock file ("Missing: X from lock
// file"). This script adds, for every optional dependency a locked package declares and the lock
// lacks, an entry marked optional with the os/cpu its name states, so npm ci skips it on other
// platforms. Run it after `npm install` changes the lock file (`npm run lock:complete`);
// `--check` only reports what is missing and exits 1 when anything is (a unit test runs it).
// It also records each registry package's tarball address (see below).
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU = [['arm64', 'arm64'], ['aarch64', 'arm64'], ['x64', 'x64'], ['x86_64', 'x64'], ['ia32', 'ia32'], ['loong64', 'loong64'], ['ppc64', 'ppc64'], ['riscv64', 'riscv64'], ['s390x', 's390x'], ['mips64el', 'mips64el'], ['arm', 'arm'], ['wasm32', 'wasm32']];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((o) => parts.includes(o));
  const cpu = CPU.find(([tag]) => parts.includes(tag))?.[1];
  const out = {};
  if (os) out.os = [os];
  if (cpu) out.cpu = [cpu];
  if (parts.includes('musl') || parts.some((p) => p.startsWith('musleabi'))) out.libc = ['musl'];
  else if (parts.includes('gnu') || parts.some((p) => p.startsWith('gnueabi'))) out.libc = ['glibc'];
  return out;
}

/** Where npm would look for `dep` required from the package at `from` (node_modules/a/node_modules/b...). */
function resolves(from, dep) {
  let base = from;
  for (;;) {
    if (pkgs[`${base ? `${base}/` : ''}node_modules/${dep}`]) return true;
    if (!base) return false;
    const i = base.lastIndexOf('/node_modules/');
    base = i < 0 ? '' : base.slice(0, i);
  }
}

let added = 0;
for (const [path, meta] of Object.entries({ ...pkgs })) {
  for (const [dep, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    if (resolves(path, dep)) continue;
    const version = /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec) ? spec : spec.replace(/^[\^~>=<\s]+/, '');
    pkgs[`node_modules/${dep}`] = { version, optional: true, ...platformOf(dep) };
    added++;
  }
}
// Each registry package's tarball address (`resolved`), which npm leaves out where it is told to
// (omit-lockfile-registry-resolved): without it `npm ci` reads every package's registry document
// (its cached copy, or the registry's) to find the tarball, which took a third of its CPU here.
// The address is the registry's standard one; npm swaps in the configured registry's host.
let resolvedAdded = 0;
for (const [path, meta] of Object.entries({ ...pkgs })) {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0 || meta.resolved || meta.link || meta.inBundle || !meta.integrity || !meta.version) continue;
  const name = meta.name ?? path.slice(at + 'node_modules/'.length);
  // after `version`, where npm writes it
  const resolved = `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${meta.version}.tgz`;
  pkgs[path] = Object.fromEntries(Object.entries(meta).flatMap((e) => (e[0] === 'version' ? [e, ['resolved', resolved]] : [e])));
  resolvedAdded++;
}
if (process.argv.includes('--check')) {
  if (added > 0) console.error(`complete-lock: ${added} optional platform entries missing; run npm run lock:complete`);
  if (resolvedAdded > 0) console.error(`complete-lock: ${resolvedAdded} tarball addresses (resolved) missing; run npm run lock:complete`);
  process.exit(added + resolvedAdded > 0 ? 1 : 0);
}
const sorted = {};
for (const k of Object.keys(pkgs).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0))) sorted[k] = pkgs[k];
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.error(`complete-lock: ${added} optional platform entr${added === 1 ? 'y' : 'ies'} added, ${resolvedAdded} tarball address${resolvedAdded === 1 ? '' : 'es'}`);
