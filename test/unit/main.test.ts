import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { parseRoles, runRoles, type Role } from '../../src/main.ts';
import { NODE_SERVICES } from '../../src/domain/node-services.ts';

describe('parseRoles', () => {
  it('expands all into every role, each node service once', () => {
    const roles = parseRoles('all');
    expect(roles).toContain('api');
    expect(roles).toContain('materializer');
    expect(roles).toContain('scheduler');
    for (const s of NODE_SERVICES) expect(roles).toContain(`node:${s}`);
    expect(new Set(roles).size).toBe(roles.length);
  });

  it('accepts a comma-separated list without duplicates', () => {
    expect(parseRoles('api, node:x12_split,api')).toEqual(['api', 'node:x12_split']);
  });

  it.each(['node:nope', 'web', '', 'node:'])('rejects %j with config_invalid', (spec) => {
    expect(() => parseRoles(spec)).toThrowError(expect.objectContaining({ code: 'config_invalid' }) as Error);
  });
});

describe('runRoles', () => {
  const config = loadConfig({});
  const logger = createLogger({ ...config, logLevel: 'silent' });
  const role = (name: string, fail = false): Role => ({
    name,
    start: () => (fail ? Promise.reject(new Error('no start')) : Promise.resolve()),
    stop: () => Promise.resolve(),
  });
  const handlers = () => [process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')];

  it('handles SIGTERM and SIGINT while the roles run, and leaves no handler once stopped', async () => {
    const before = handlers();
    const stop = await runRoles([role('api'), role('scheduler')], config, logger);
    expect(handlers()).toEqual(before.map((n) => n + 1));
    await stop();
    expect(handlers()).toEqual(before);
  });

  it('leaves no handler when a role fails to start', async () => {
    const before = handlers();
    await expect(runRoles([role('api'), role('scheduler', true)], config, logger)).rejects.toThrow('no start');
    expect(handlers()).toEqual(before);
  });
});
