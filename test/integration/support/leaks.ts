/**
 * Set-up of every integration file. Integration files share their worker's process (vitest.config.ts
 * runs them without isolation), so what a file leaves behind meets the files after it: a changed
 * process environment would make them pass or fail by their order, and an embedded ClickHouse
 * engine left open would make the next file's engine fail to open (chDB binds one data folder per
 * process). This fails the file that leaves either.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { openEmbeddedClickHouse } from '../../../src/adapters/clickhouse/client.ts';

let before: Record<string, string | undefined> = {};
beforeAll(() => {
  before = { ...process.env };
});
afterAll(() => {
  expect({ ...process.env }, 'an integration file left the process environment changed').toEqual(before);
  expect(openEmbeddedClickHouse(), 'an integration file left an embedded ClickHouse engine open').toEqual([]);
});
