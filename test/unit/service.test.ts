import { describe, expect, it } from 'vitest';
import { buildRoles } from '../../src/service.ts';
import { parseRoles } from '../../src/main.ts';
import { Resources } from '../../src/compose.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { NODE_SERVICES } from '../../src/domain/node-services.ts';

const config = loadConfig({ TDX_LOG_LEVEL: 'silent' });
const io = process.stdout;

describe('buildRoles', () => {
  it('builds one role per name for all, with the api last so /readyz turns green only once consumers run', () => {
    const roles = buildRoles(new Resources(config, createLogger(config)), parseRoles('all'), io);
    expect(roles).toHaveLength(3 + NODE_SERVICES.length);
    expect(roles[roles.length - 1]!.name).toBe('api');
    expect(roles.map((r) => r.name)).toContain('node:x12_split');
  });

  it('opens nothing for a node service without a step, and its start is a no-op', async () => {
    const resources = new Resources(config, createLogger(config));
    const [role] = buildRoles(resources, parseRoles('node:webhook'), io, { routers: [], nodes: {} });
    await role!.start();
    await role!.stop();
    expect(resources.checks()).toEqual([]);
  });
});
