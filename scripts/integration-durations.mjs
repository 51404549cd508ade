#!/usr/bin/env node
// Rewrites test/integration/support/durations.json (the integration files' start order, see
// test/integration/support/sequencer.ts) from a vitest JSON report of a whole integration run:
//   TEST_MODE=integration npx vitest run --reporter=default --reporter=json --outputFile.json=/tmp/integration.json
//   node scripts/integration-durations.mjs /tmp/integration.json
// Each file's seconds are its end minus its start, rounded; files the report lacks keep theirs.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'integration');
const report = process.argv[2];
if (!report) {
  console.error('usage: node scripts/integration-durations.mjs <vitest JSON report>');
  process.exit(2);
}
const out = join(dir, 'support', 'durations.json');
const seconds = JSON.parse(readFileSync(out, 'utf8'));
for (const r of JSON.parse(readFileSync(report, 'utf8')).testResults ?? []) {
  const name = relative(dir, r.name).split('\\').join('/');
  if (name.startsWith('..') || !(r.endTime > r.startTime)) continue;
  seconds[name] = Math.round((r.endTime - r.startTime) / 1000);
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)));
writeFileSync(out, `${JSON.stringify(sorted, null, 2)}\n`);
console.error(`durations.json: ${Object.keys(sorted).length} files`);
