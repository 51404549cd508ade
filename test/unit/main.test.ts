import { describe, expect, it } from 'vitest';
import { parseRoles } from '../../src/main.ts';
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
