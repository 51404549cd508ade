/**
 * Partners' secrets at rest (docs/secrets.md), on the real Cassandra: the demo configuration's
 * secrets (SFTP private key and password, AS2 private key and certificates, webhook signing
 * secrets) are found nowhere in clear when every table of the keyspace is read directly with
 * cassandra-driver; `tdx admin secrets rotate` re-encrypts them under a new key, plain values
 * written before encryption included, idempotently and resumably; `tdx start` with a missing or
 * different key refuses to start, naming the setting.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassandraConfigAdminStore } from '../../../src/adapters/cassandra/config-store.ts';
import { CassandraSecretReader, rotateSecrets } from '../../../src/adapters/cassandra/secret-store.ts';
import { SecretKeyring } from '../../../src/domain/secret-envelope.ts';
import { cassandraEnv, createOrg, dumpKeyspace, type Env } from '../platform/support.ts';

const ENVELOPE = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;
const SFTP_PASSWORD = `pw-${randomBytes(12).toString('hex')}`;
const dir = mkdtempSync(path.join(tmpdir(), 'tdx-secrets-it-'));
let env: Env;

const keyLine = (id: string): string => `${id}:${randomBytes(32).toString('base64')}`;
const ringOf = (keys: string): SecretKeyring =>
  SecretKeyring.of(
    keys.split(',').map((k) => {
      const [id, b64] = k.split(/:(.*)/s) as [string, string];
      return { id, key: Buffer.from(b64, 'base64') };
    }),
  );

beforeAll(async () => {
  const out = execFileSync('bash', ['deploy/demo/as2-keys.sh', path.join(dir, 'demo-as2')], { encoding: 'utf8' });
  const as2 = Object.fromEntries([...out.matchAll(/^export (DEMO_AS2_\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
  env = await cassandraEnv({ ...as2, SFTP_PASSWORD });
}, 120_000);
afterAll(async () => env?.close());

async function secretRows(): Promise<{ org: string; owner: string; name: string; value: string; keyId: string | null }[]> {
  const rs = await env.client.execute('SELECT org_id, owner_kind, owner_id, name, value, key_id FROM config_secrets', [], { fetchSize: 10_000 });
  return rs.rows.map((r) => ({
    org: String(r.get('org_id')),
    owner: `${String(r.get('owner_kind'))}/${String(r.get('owner_id'))}`,
    name: String(r.get('name')),
    value: String(r.get('value')),
    keyId: (r.get('key_id') as string | null) ?? null,
  }));
}

async function applyDemo(name: string): Promise<string> {
  const org = await createOrg(env, name);
  const r = await env.tdx(['config', 'apply', 'deploy/demo/config.yaml', '--org', org]);
  expect(r.code, r.stderr).toBe(0);
  return org;
}

describe('secrets at rest', () => {
  it('no stored secret is in clear in any table; each is an AES-256-GCM envelope with its key id beside it', async () => {
    const org = await applyDemo('Secrets at rest');
    const ring = env.config.secrets.keyring;
    const state = await new CassandraConfigAdminStore(env.client, ring).loadState(org);
    const byName = (n: string): string[] => state.secrets.filter((s) => s.name === n).map((s) => s.value);
    // what the demo stores, opened by the administration store
    expect(byName('password')).toEqual([SFTP_PASSWORD, SFTP_PASSWORD]);
    expect(byName('privateKey').filter((v) => v.includes('PRIVATE KEY'))).toHaveLength(3); // two SFTP, one AS2
    expect(byName('certificate')[0]).toContain('BEGIN CERTIFICATE');
    expect(byName('partnerCertificate')[0]).toContain('BEGIN CERTIFICATE');
    expect(byName('signingSecret')).toContain('whsec_ZGVtby13ZWJob29rLXNpZ25pbmctc2VjcmV0');
    expect(state.secrets.length).toBeGreaterThanOrEqual(9);

    const rows = (await secretRows()).filter((r) => r.org === org);
    expect(rows).toHaveLength(state.secrets.length);
    for (const r of rows) {
      expect(r.keyId, `${r.owner}/${r.name}`).toBe(ring.active);
      expect(r.value, `${r.owner}/${r.name}`).toMatch(ENVELOPE);
    }
    const registered = await env.client.execute('SELECT key_id FROM secret_keys');
    expect(registered.rows.map((r) => String(r.get('key_id')))).toEqual([ring.active]);

    // every cell of every table of the keyspace, read directly: no secret, nor any line of one
    const dump = JSON.stringify(await dumpKeyspace(env, []));
    const needles = state.secrets.flatMap((s) => [s.value, ...s.value.split('\n').map((l) => l.trim()).filter((l) => l.length >= 16 && !/^-----/.test(l))]);
    expect(needles.length).toBeGreaterThan(20);
    const found = needles.filter((n) => dump.includes(n));
    expect(found).toEqual([]);
    // the nodes' reader opens the same values
    const reader = new CassandraSecretReader(env.client, ring);
    const webhook = state.secrets.find((s) => s.name === 'signingSecret')!;
    expect((await reader.get(org, 'webhook', webhook.ownerId))['signingSecret']).toBe(webhook.value);
  });

  it('rotation re-encrypts everything under the new key (plain values too), resumably and idempotently; tdx start refuses a missing or different key', async () => {
    const org = await applyDemo('Secrets rotation');
    const oldKeys = env.env['TDX_SECRETS_KEYS']!;
    const oldRing = env.config.secrets.keyring;
    const before = await new CassandraConfigAdminStore(env.client, oldRing).loadState(org);
    // a value written before encryption existed: plain text, no key id
    const webhook = before.secrets.find((s) => s.name === 'signingSecret')!;
    const legacy = `whsec_${randomBytes(24).toString('base64')}`;
    await env.client.execute('INSERT INTO config_secrets (org_id, owner_kind, owner_id, name, value, key_id, updated_at) VALUES (?, ?, ?, ?, ?, null, toTimestamp(now()))', [org, 'webhook', webhook.ownerId, 'signingSecret', legacy], {
      prepare: true,
    });
    expect(await new CassandraSecretReader(env.client, oldRing).get(org, 'webhook', webhook.ownerId)).toEqual({ signingSecret: legacy });
    const expected = before.secrets.map((s) => (s === webhook ? { ...s, value: legacy } : s));

    // a new key first (it encrypts), the old one after it (it still decrypts)
    const newKeys = `${keyLine('k2')},${oldKeys}`;
    const total = (await secretRows()).length;
    const first = await env.tdx(['admin', 'secrets', 'rotate'], { TDX_SECRETS_KEYS: newKeys });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^rotated: ${total} re-encrypted, 0 already under k2, 0 changed meanwhile \\(run again\\); before: it1 ${total - 1}, plain 1; retired keys: it1\\n$`));
    expect(first.stderr).toContain(`rotate: ${total}/${total} scanned, ${total} re-encrypted, 0 already under k2`);
    const rows = await secretRows();
    expect(rows.filter((r) => r.keyId !== 'k2' || !ENVELOPE.test(r.value))).toEqual([]);
    expect(rows.some((r) => r.value === legacy)).toBe(false);
    // the new key alone opens everything, to the same values
    const k2Only = ringOf(newKeys.split(',')[0]!);
    expect((await new CassandraConfigAdminStore(env.client, k2Only).loadState(org)).secrets).toEqual(expected);
    expect((await env.client.execute('SELECT key_id FROM secret_keys')).rows.map((r) => String(r.get('key_id')))).toEqual(['k2']);

    // idempotent: nothing left to do
    const again = await env.tdx(['admin', 'secrets', 'rotate'], { TDX_SECRETS_KEYS: newKeys });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`rotated: 0 re-encrypted, ${total} already under k2`);
    const dumpAfter = JSON.stringify(await dumpKeyspace(env, []));
    expect(dumpAfter.includes(legacy)).toBe(false);

    // tdx start with only the retired key, or a different key under the id k2: refused at start
    // (the three refused starts only read: they run side by side)
    const [missing, different, none] = await Promise.all([
      env.tdx(['start', '--role', 'materializer'], { TDX_SECRETS_KEYS: oldKeys }),
      env.tdx(['start', '--role', 'materializer'], { TDX_SECRETS_KEYS: keyLine('k2') }),
      env.tdx(['start', '--role', 'materializer'], { TDX_SECRETS_KEYS: '' }),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('config_invalid');
    expect(missing.stderr).toContain('TDX_SECRETS_KEYS / TDX_SECRETS_KEY_FILE: stored partner secrets are encrypted under key "k2", which is not configured');
    expect(different.code).toBe(1);
    expect(different.stderr).toContain('TDX_SECRETS_KEYS / TDX_SECRETS_KEY_FILE: the key configured as "k2" is not the key that encrypted the stored partner secrets');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('TDX_SECRETS_KEYS / TDX_SECRETS_KEY_FILE: no operator key');

    // resumable: a run stopped after its first page is finished by the next run
    const k3Keys = `${keyLine('k3')},${newKeys.split(',')[0]!}`;
    const k3Ring = ringOf(k3Keys);
    const progress: number[] = [];
    await expect(
      rotateSecrets(
        env.client,
        k3Ring,
        (p) => {
          progress.push(p.resealed);
          throw new Error('stopped');
        },
        { pageSize: 2 },
      ),
    ).rejects.toThrow('stopped');
    expect(progress).toEqual([2]);
    const half = await secretRows();
    expect(half.filter((r) => r.keyId === 'k3')).toHaveLength(2);
    const seen: number[] = [];
    const rest = await rotateSecrets(env.client, k3Ring, (p) => seen.push(p.scanned), { pageSize: 2 });
    expect(rest).toMatchObject({ total, resealed: total - 2, current: 2, skipped: 0, retired: ['k2'] });
    expect(seen.at(-1)).toBe(total);
    expect((await secretRows()).every((r) => r.keyId === 'k3')).toBe(true);
    expect((await new CassandraConfigAdminStore(env.client, ringOf(k3Keys.split(',')[0]!)).loadState(org)).secrets).toEqual(expected);
  });
});
