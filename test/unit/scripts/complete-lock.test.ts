/**
 * `npm ci` refuses a lock file that lacks any optional platform package a locked package
 * declares; scripts/complete-lock.mjs adds them. This keeps package-lock.json complete after
 * dependency changes (a fresh clone's `npm ci` must work).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('package-lock.json', () => {
  it('lists every optional platform package, so npm ci accepts it', () => {
    const r = spawnSync(process.execPath, ['scripts/complete-lock.mjs', '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
