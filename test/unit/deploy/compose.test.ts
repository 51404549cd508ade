import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseRoles } from '../../../src/main.ts';

interface Service {
  image?: string;
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as { services: Record<string, Service> };
const tdxServices = Object.entries(compose.services).filter(([, s]) => s.image === 'tdx:local');

describe('docker-compose.yml', () => {
  it('runs every role of `tdx start --role all` in exactly one service of the image, and no role that does not exist', () => {
    const roles = tdxServices.flatMap(([, s]) => (s.environment?.['TDX_ROLE'] ? [s.environment['TDX_ROLE']] : []));
    // each names one role (a list would hide a role behind another's container)
    for (const r of roles) expect(parseRoles(r)).toEqual([r]);
    expect([...roles].sort()).toEqual([...parseRoles('all')].sort());
  });

  it('names each role service after its role, and runs migrate once before them', () => {
    for (const [name, s] of tdxServices) {
      const role = s.environment?.['TDX_ROLE'];
      if (role === undefined) {
        // the one-shot services: migrate, and the CLI profile
        expect(name === 'migrate' ? s.command : s.profiles).toEqual(name === 'migrate' ? ['migrate'] : ['cli']);
        continue;
      }
      expect(name).toBe(role.replace(/^node:/, 'node-').replace(/_/g, '-'));
      expect(s.environment?.['TDX_MIGRATE']).toBe('0');
    }
  });
});
