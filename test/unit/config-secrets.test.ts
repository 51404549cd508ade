import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, requireSecretKeys } from '../../src/config.ts';
import { isTdxError } from '../../src/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { startService } from '../../src/main.ts';
import { addKeyToFile, keyIdAt } from '../../src/admin/secret-keys.ts';

const b64 = (n = 32): string => randomBytes(n).toString('base64');
const emptyDir = (): string => mkdtempSync(path.join(tmpdir(), 'tdx-secrets-'));

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(isTdxError(err) && err.code).toBe('config_invalid');
    return (err as Error).message;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('operator keys in the configuration (TDX_SECRETS_*)', () => {
  it('reads TDX_SECRETS_KEYS then the key file; the first (or TDX_SECRETS_ACTIVE_KEY) is active', () => {
    const dir = emptyDir();
    const file = path.join(dir, 'keys');
    writeFileSync(file, `# comment\nf1:${b64()}\n\nf2:${b64()}\n`);
    const c = loadConfig({ TDX_DATA_DIR: dir, TDX_SECRETS_KEYS: `e1:${b64()}, e2:${b64()}`, TDX_SECRETS_KEY_FILE: file });
    expect(c.secrets.keyring.ids).toEqual(['e1', 'e2', 'f1', 'f2']);
    expect(c.secrets.keyring.active).toBe('e1');
    expect(c.secrets.keyFile).toBe(file);
    const chosen = loadConfig({ TDX_DATA_DIR: dir, TDX_SECRETS_KEY_FILE: file, TDX_SECRETS_ACTIVE_KEY: 'f2' });
    expect(chosen.secrets.keyring.active).toBe('f2');
    expect(chosen.secrets.keyring.ids).toEqual(['f2', 'f1']);
  });

  it('reads <data dir>/secret-keys when no key setting is given, and runs without any key when it is absent', () => {
    const dir = emptyDir();
    expect(loadConfig({ TDX_DATA_DIR: dir }).secrets.keyring.active).toBeUndefined();
    expect(addKeyToFile(path.join(dir, 'secret-keys'), 'dev1')).toBe('dev1');
    expect(loadConfig({ TDX_DATA_DIR: dir }).secrets.keyring.active).toBe('dev1');
  });

  it('a wrong key names its setting at load time', () => {
    expect(configError({ TDX_SECRETS_KEYS: `k1:${b64(16)}` })).toMatch(/TDX_SECRETS_KEYS \(entry 1\): key "k1" is 16 bytes; AES-256-GCM needs 32/);
    expect(configError({ TDX_SECRETS_KEYS: 'just-a-password' })).toMatch(/TDX_SECRETS_KEYS \(entry 1\): expected "<key id>:<base64/);
    expect(configError({ TDX_SECRETS_KEYS: `k1:${b64()},k1:${b64()}` })).toMatch(/key id "k1" is given twice with different keys/);
    expect(configError({ TDX_SECRETS_KEYS: `k1:${b64()}`, TDX_SECRETS_ACTIVE_KEY: 'k9' })).toMatch(/TDX_SECRETS_ACTIVE_KEY: "k9" is not among the keys/);
    const missing = path.join(emptyDir(), 'nope');
    expect(configError({ TDX_SECRETS_KEY_FILE: missing })).toContain(`TDX_SECRETS_KEY_FILE: cannot read "${missing}" (ENOENT)`);
    const bad = path.join(emptyDir(), 'keys');
    writeFileSync(bad, `ok:${b64()}\nbroken:${b64(31)}\n`);
    expect(configError({ TDX_SECRETS_KEY_FILE: bad })).toContain(`TDX_SECRETS_KEY_FILE (${bad} line 2): key "broken" is 31 bytes`);
  });

  it('a missing key: requireSecretKeys and `tdx start` (startService) refuse before opening anything, naming the settings', async () => {
    const config = loadConfig({ TDX_DATA_DIR: emptyDir(), CASSANDRA_CONTACT_POINTS: '127.0.0.1:1', KAFKA_BROKERS: '127.0.0.1:1' });
    expect(() => requireSecretKeys(config)).toThrow(/TDX_SECRETS_KEYS \/ TDX_SECRETS_KEY_FILE: no operator key/);
    const started = Date.now();
    let err: unknown;
    try {
      await startService(config, createLogger({ ...config, logLevel: 'silent' }), ['materializer'], { write: () => undefined });
    } catch (e) {
      err = e;
    }
    expect(isTdxError(err) && err.code).toBe('config_invalid');
    expect((err as Error).message).toContain('TDX_SECRETS_KEYS / TDX_SECRETS_KEY_FILE: no operator key');
    expect((err as Error).message).toContain('tdx admin secrets keygen');
    // refused at once: no connection to the (unreachable) stores was attempted
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('the key file: a new key goes first (it encrypts), older keys stay; --if-missing leaves a file alone; mode 600', () => {
    const file = path.join(emptyDir(), 'sub', 'secret-keys');
    addKeyToFile(file, 'old');
    const first = readFileSync(file, 'utf8');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(addKeyToFile(file, 'again', { ifMissing: true })).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe(first);
    addKeyToFile(file, 'new');
    const c = loadConfig({ TDX_SECRETS_KEY_FILE: file });
    expect(c.secrets.keyring.ids).toEqual(['new', 'old']);
    expect(readFileSync(file, 'utf8')).toContain(first.split('\n').find((l) => l.startsWith('old:'))!);
    expect(() => addKeyToFile(file, 'new')).toThrow(/already holds a key "new"/);
    expect(keyIdAt(new Date('2026-11-26T13:45:12.345Z'))).toBe('k20261126T134512Z');
  });
});
