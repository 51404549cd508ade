import { defineConfig } from 'vitest/config';
import { TestSequencer } from './test/unit/support/sequencer.ts';

// TEST_MODE selects the collection: `unit` (no services) or `integration` (the real stack,
// started by test/integration/global-setup.ts when it is not running). Unset runs both.
const mode = process.env['TEST_MODE'] ?? 'all';
if (!['unit', 'integration', 'all', 'chaos'].includes(mode)) {
  throw new Error(`TEST_MODE must be unit, integration, all or chaos, got "${mode}"`);
}

// Unit files share one module graph per worker (no isolation): each file re-importing the
// service's modules and their libraries (ajv, kafkajs, cassandra-driver, pkijs, koa, the MCP SDK)
// cost more than the tests themselves. So a unit file must leave the process as it found it
// (environment, globals, module-level state); test/unit/support/leaks.ts fails a file that leaves
// the environment changed. Threads start faster than forked processes. A file that measures the
// process's own memory runs alone in a fresh process (project unit-alone): another file's
// garbage in the same heap would be counted as its own.
// Two workers even on two cores (vitest's default is one fewer than the cores: one here): a unit
// file often waits (a spawned `tdx` or Python process, a mapping worker, a timer), and with one
// worker every such wait was the whole step's. The slowest files start first
// (test/unit/support/sequencer.ts).
const unitAlone = ['test/unit/x12/stream.test.ts'];
const unit = {
  extends: true as const,
  test: {
    name: 'unit',
    include: ['test/unit/**/*.test.ts', 'test/issues/**/*.test.ts'],
    exclude: unitAlone,
    setupFiles: ['test/unit/support/leaks.ts'],
    isolate: false,
    pool: 'threads' as const,
    maxWorkers: 2,
  },
};
const unitIsolated = {
  extends: true as const,
  // the same maxWorkers as unit: vitest runs projects of one group only with equal worker counts
  test: { name: 'unit-alone', include: unitAlone, isolate: true, pool: 'forks' as const, maxWorkers: 2 },
};
// Integration files wait on the services far more than they compute (consumer groups joining,
// retries, polls), so three of them run at once even on two cores (on the test stack's profile,
// docs/stack.md, three finished a fresh clone's run in 352 s where two took 375 s); every file
// isolates itself (own topics, keyspace, chDB folder, organizations, SFTP folders, ports).
// TDX_TEST_WORKERS sets the count (1 runs the files one after another; more suits a machine with
// cores to spare).
const workers = (fallback: number): number => {
  const raw = process.env['TDX_TEST_WORKERS'];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`TDX_TEST_WORKERS must be a positive integer, got "${raw}"`);
  return n;
};

// Integration files also share their worker's process and module graph (no isolation): in a
// fresh process each file re-imported the service's whole graph (kafkajs, cassandra-driver, koa,
// ajv, pkijs, the MCP SDK, the stores and roles) before its first test. Their isolation is by
// data (above), not by process; test/integration/support/leaks.ts fails a file that leaves the
// environment changed or the process's one embedded ClickHouse engine open. TDX_TEST_ISOLATE=1
// runs every file in a fresh process instead.
const integration = {
  extends: true as const,
  test: {
    name: 'integration',
    include: ['test/integration/**/*.test.ts'],
    globalSetup: ['test/integration/global-setup.ts'],
    setupFiles: ['test/integration/support/leaks.ts'],
    isolate: process.env['TDX_TEST_ISOLATE'] === '1',
    maxWorkers: workers(3),
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
};

// `chaos` (npm run chaos) is never part of `all`: the full run takes many minutes.
const chaos = {
  extends: true as const,
  test: { name: 'chaos', include: ['test/chaos/**/*.test.ts'], globalSetup: ['test/integration/global-setup.ts'], testTimeout: 4 * 3600_000, hookTimeout: 600_000 },
};

export default defineConfig({
  test: {
    projects: mode === 'unit' ? [unit, unitIsolated] : mode === 'integration' ? [integration] : mode === 'chaos' ? [chaos] : [unit, unitIsolated, integration],
    reporters: ['default'],
    // integration files start longest first (test/integration/support/sequencer.ts), and so do
    // the slowest unit files (test/unit/support/sequencer.ts)
    sequence: { sequencer: TestSequencer },
  },
});
