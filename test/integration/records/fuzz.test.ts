/**
 * The short variant of `npm run fuzz:api` (test/fuzz/api-fuzz.ts) in the integration suite:
 * schemathesis 4 (pinned, scripts/fuzz-api) over every operation of the served OpenAPI document,
 * POST ones included, against a service with a populated throwaway organization on the real
 * stack, with 5 examples per operation and phase (the full run takes 60; this one about a
 * minute). All checks (`--checks all`), positive data acceptance and negative data rejection
 * included: what the document allows the service takes, and what it forbids the service
 * refuses. The one refusal of valid data left is documented: an arbitrary string offered as a
 * signed cursor (the hooks drop it and count it). Skipped when PyPI cannot be reached
 * (schemathesis cannot be installed).
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSchemathesis, startFuzzTarget } from '../../fuzz/api-fuzz.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
// the environment is cached by setup.sh: well under a second after the first run
const setup = spawnSync('bash', [join(ROOT, 'scripts/fuzz-api/setup.sh')], { encoding: 'utf8', timeout: 600_000 });
const command = setup.status === 0 ? setup.stdout.trim().split('\n').pop()! : null;
if (setup.status === 3) {
  process.stderr.write('API fuzzing skipped: PyPI cannot be reached, so schemathesis cannot be installed (scripts/fuzz-api/setup.sh exit 3)\n');
} else if (setup.status !== 0) {
  throw new Error(`scripts/fuzz-api/setup.sh failed (exit ${setup.status}):\n${setup.stderr}`);
}

describe.skipIf(command === null)('schemathesis over the whole API', () => {
  let target: Awaited<ReturnType<typeof startFuzzTarget>>;
  const reportDir = mkdtempSync(join(tmpdir(), 'tdx-fuzz-api-'));

  beforeAll(async () => {
    target = await startFuzzTarget();
  }, 300_000);

  afterAll(async () => {
    await target?.stop();
    rmSync(reportDir, { recursive: true, force: true });
  });

  it('finds no failure of any check over every operation, but the documented refusal of arbitrary cursors', async () => {
    let output = '';
    const summary = await runSchemathesis(command!, target, { maxExamples: 5, phases: 'examples,coverage,fuzzing', checks: 'all', workers: 2, reportDir, echo: (t) => (output += t) });
    process.stderr.write(`${summary.text}\n`);
    expect(summary.failures.map((f) => `${f.operation} [${f.check}] ${f.title} (status ${f.status})\n${f.reproduce}`), summary.text).toEqual([]);
    expect(summary.errors, summary.text).toEqual([]);
    expect(summary.exitCode, output.slice(-4000)).toBe(0);
    // every documented operation was reached (but the document itself, which schemathesis leaves out)
    const doc = (await target.p.api('/platform/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).filter(([path]) => path !== '/platform/openapi.json');
    expect(summary.operations).toBe(documented.reduce((n, [, ops]) => n + Object.keys(ops).length, 0));
    expect(summary.operationsTested).toBe(summary.operations);
    expect(summary.testCases).toBeGreaterThan(500);
    // arbitrary cursors were offered as valid data and refused with the cursor's own error
    // (the hook drops exactly those); none means the refusal or its message changed
    expect(summary.cursorRefusals).toBeGreaterThan(0);
  }, 600_000);
});
