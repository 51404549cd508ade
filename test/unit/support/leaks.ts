/**
 * Set-up of every unit file. Unit files share their worker's process (vitest.config.ts runs them
 * without isolation), so a file that changes the process environment and leaves it changed would
 * make the files after it pass or fail by their order. This fails the file that does.
 */
import { afterAll, beforeAll, expect } from 'vitest';

let before: Record<string, string | undefined> = {};
beforeAll(() => {
  before = { ...process.env };
});
afterAll(() => {
  expect({ ...process.env }, 'a unit file left the process environment changed').toEqual(before);
});
