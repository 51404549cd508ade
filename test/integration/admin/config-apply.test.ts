import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassandraConfigAdminStore } from '../../../src/adapters/cassandra/config-store.ts';
import { CassandraOrganizationStore } from '../../../src/adapters/cassandra/organization-store.ts';
import { cassandraEnv, createOrg, dumpKeyspace, orgWithKeys, type Env } from '../platform/support.ts';

let env: Env;
const dir = mkdtempSync(path.join(tmpdir(), 'tdx-config-'));
const demo = readFileSync('deploy/demo/config.yaml', 'utf8');

/** The paths of the demo's AS2 key pairs, made by the demo's own script (as apply-demo.sh does). */
function demoAs2Env(): Record<string, string> {
  const out = execFileSync('bash', ['deploy/demo/as2-keys.sh', path.join(dir, 'demo-as2')], { encoding: 'utf8' });
  return Object.fromEntries([...out.matchAll(/^export (DEMO_AS2_\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
}

beforeAll(async () => {
  const as2 = demoAs2Env();
  expect(Object.keys(as2)).toHaveLength(3);
  env = await cassandraEnv(as2);
}, 120_000);
afterAll(async () => env?.close());

describe('tdx admin', () => {
  it('creates an organization, prints keys once, lists and revokes them', async () => {
    const { org, standard } = await orgWithKeys(env, 'Admin Test Org');
    expect(org).toMatch(/^[0-9a-f-]{36}$/);
    expect(standard).toMatch(/^tdx_[A-Za-z0-9_-]{43}$/);
    const list = await env.tdx(['admin', 'key', 'list', '--org', org, '--json']);
    const keys = JSON.parse(list.stdout) as { id: string; kind: string; prefix: string; revokedAt: string | null }[];
    expect(keys.map((k) => k.kind).sort()).toEqual(['read-only', 'sandbox', 'standard']);
    expect(list.stdout).not.toContain(standard);
    const rows = await env.client.execute('SELECT key_hash FROM api_keys WHERE org_id = ?', [org]);
    expect(rows.rows.map((r) => String(r.get('key_hash')))).not.toContain(standard);
    const std = keys.find((k) => k.kind === 'standard')!;
    expect((await env.tdx(['admin', 'key', 'revoke', '--org', org, std.id])).code).toBe(0);
    const after = JSON.parse((await env.tdx(['admin', 'key', 'list', '--org', org, '--json'])).stdout) as typeof keys;
    expect(after.find((k) => k.id === std.id)!.revokedAt).not.toBeNull();
    const bad = await env.tdx(['admin', 'key', 'create', '--org', org, '--kind', 'admin']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--kind');
  });
});

describe('tdx config apply', () => {
  it('applies the demo file, and applying it again leaves identical state', async () => {
    const org = await createOrg(env, 'Demo');
    const store = new CassandraConfigAdminStore(env.client, env.config.secrets.keyring);
    const first = await env.tdx(['config', 'apply', 'deploy/demo/config.yaml', '--org', org]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/change\(s\) applied/);
    const state1 = await store.loadState(org);
    expect(state1.partners.map((p) => p.key).sort()).toEqual(['ACME', 'GADGET', 'GLOBEX']);
    // GADGET's AS2 connection is ready with the keys as2-keys.sh made, so its flows are active too
    expect(state1.connections.find((c) => c.name === 'gadget-as2')?.as2?.setupStatus).toBe('ready');
    expect(state1.flows.filter((f) => f.current).map((f) => f.status)).toEqual(['active', 'active', 'active', 'active', 'active', 'active']);
    const dump1 = await dumpKeyspace(env);
    const configRows = Object.entries(dump1).filter(([t]) => t.startsWith('config_'));
    expect(configRows.map(([t]) => t)).toEqual(expect.arrayContaining(['config_connections', 'config_flows', 'config_mapping_versions', 'config_partners', 'config_secrets']));
    expect(configRows.every(([, rows]) => rows.length > 0)).toBe(true);
    const export1 = await env.tdx(['config', 'export', '--org', org]);
    expect(export1.code, export1.stderr).toBe(0);

    const second = await env.tdx(['config', 'apply', 'deploy/demo/config.yaml', '--org', org]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('no changes');
    // every row of every table, with the write time of every cell: nothing was written again
    expect(await dumpKeyspace(env)).toEqual(dump1);
    expect(await store.loadState(org)).toEqual(state1);
    const export2 = await env.tdx(['config', 'export', '--org', org]);
    expect(export2.stdout).toBe(export1.stdout);

    // export writes the same format back; applying the export changes nothing either
    expect(export1.stdout).not.toContain('PRIVATE KEY');
    expect(export1.stdout).not.toContain('privateKeyFile');
    expect(export1.stdout).not.toContain('whsec_');
    const file = path.join(dir, 'export.yaml');
    writeFileSync(file, export1.stdout);
    expect((await env.tdx(['config', 'apply', file, '--org', org])).stdout.trim()).toBe('no changes');
    expect(await dumpKeyspace(env)).toEqual(dump1);
  });

  it('rejects an invalid file naming file, line and field, and applies nothing of it', async () => {
    const org = await createOrg(env, 'Invalid');
    const store = new CassandraConfigAdminStore(env.client, env.config.secrets.keyring);
    expect((await env.tdx(['config', 'apply', 'deploy/demo/config.yaml', '--org', org])).code).toBe(0);
    const before = await store.loadState(org);
    const dumped = await dumpKeyspace(env);
    // a valid change early in the file and an invalid one late: neither may land
    const text = demo.replace('url: http://127.0.0.1:9901/edi/inbound', 'url: http://127.0.0.1:9902/changed').replace('deliveryMethod: polling', 'deliveryMethod: fax');
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, text);
    const r = await env.tdx(['config', 'apply', file, '--org', org]);
    expect(r.code).toBe(2);
    const line = text.split('\n').findIndex((l) => l.includes('deliveryMethod: fax')) + 1;
    expect(r.stderr).toContain(`${file}:${line}:`);
    expect(r.stderr).toContain('partners[1].deliveryMethod');
    expect(await store.loadState(org)).toEqual(before);
    expect(await dumpKeyspace(env)).toEqual(dumped);
    // a reference to nothing, and a file that is not YAML at all
    const ref = demo.replace('connection: globex-sftp', 'connection: nosuch-sftp');
    const cases: [string, string, number, string][] = [
      ['ref.yaml', ref, ref.split('\n').findIndex((l) => l.includes('nosuch-sftp')) + 1, 'partners[1].connection'],
      ['syntax.yaml', 'partners:\n  - key: [unclosed\n', 3, '(syntax)'],
    ];
    for (const [name, body, atLine, field] of cases) {
      const f = path.join(dir, name);
      writeFileSync(f, body);
      const out = await env.tdx(['config', 'apply', f, '--org', org]);
      expect(out.code, name).toBe(2);
      expect(out.stderr).toContain(`${f}:${atLine}:`);
      expect(out.stderr).toContain(`: ${field}`);
      expect(out.stderr).toContain('nothing was applied');
    }
    expect(await dumpKeyspace(env)).toEqual(dumped);
  });

  it('a changed transformation adds a mapping version; a changed delivery method rebuilds both flows as version 2', async () => {
    const org = await createOrg(env, 'Changes');
    const store = new CassandraConfigAdminStore(env.client, env.config.secrets.keyring);
    expect((await env.tdx(['config', 'apply', 'deploy/demo/config.yaml', '--org', org])).code).toBe(0);
    const text = demo
      .replace('"orderNumber": $beg.purchase_order_number_03,', '"orderNumber": $string($beg.purchase_order_number_03),')
      .replace('deliveryMethod: polling', 'deliveryMethod: webhook')
      .replace('webhooks: { error: erp-notifications }', 'webhooks: { inbound: erp-inbound, error: erp-notifications }');
    const file = path.join(dir, 'changed.yaml');
    writeFileSync(file, text);
    const r = await env.tdx(['config', 'apply', file, '--org', org, '--author', 'ops']);
    expect(r.code, r.stderr).toBe(0);
    const state = await store.loadState(org);
    const m = state.mappings.find((x) => x.name === 'demo-850-to-erp')!;
    expect(m.currentVersion).toBe(2);
    expect(state.mappingVersions.filter((v) => v.mappingId === m.id).map((v) => [v.versionNumber, v.createdBy.name]).sort()).toEqual([
      [1, expect.any(String)],
      [2, 'ops'],
    ]);
    const globex = state.partners.find((p) => p.key === 'GLOBEX')!;
    const flows = state.flows.filter((f) => f.partnerId === globex.id).map((f) => [f.direction, f.versionNumber, f.current]);
    expect(flows.sort()).toEqual([
      ['inbound', 1, false],
      ['inbound', 2, true],
      ['outbound', 1, false],
      ['outbound', 2, true],
    ]);
    const orgs = new CassandraOrganizationStore(env.client);
    expect(await orgs.getOrganization(org)).not.toBeNull();
  });
});
