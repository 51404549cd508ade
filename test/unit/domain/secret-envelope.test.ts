import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { newKeyLine, parseKeyEntry, SecretKeyring, type SecretSlot } from '../../../src/domain/secret-envelope.ts';
import { isTdxError } from '../../../src/errors.ts';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const slot: SecretSlot = { organizationId: 'org-1', ownerKind: 'connection', ownerId: 'c-1', name: 'password' };
const SECRET = 'correct horse battery staple';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isTdxError(err) ? err.code : 'not a TdxError';
  }
  return undefined;
}

describe('secret envelope (AES-256-GCM)', () => {
  it('seals under the active key into a v1 envelope that opens to the same text', () => {
    const ring = SecretKeyring.of([{ id: 'a', key: keyA }]);
    const sealed = ring.seal(slot, SECRET);
    expect(sealed.keyId).toBe('a');
    // v1.<iv 12 bytes>.<ciphertext>.<tag 16 bytes>, base64url
    const m = /^v1\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(sealed.value);
    expect(m, sealed.value).not.toBeNull();
    expect(Buffer.from(m![2]!, 'base64url')).toHaveLength(Buffer.byteLength(SECRET));
    expect(sealed.value).not.toContain(SECRET);
    expect(Buffer.from(m![2]!, 'base64url').toString('utf8')).not.toBe(SECRET);
    expect(ring.open(slot, sealed)).toBe(SECRET);
  });

  it('uses a fresh IV every time: the same text never seals to the same envelope', () => {
    const ring = SecretKeyring.of([{ id: 'a', key: keyA }]);
    const values = new Set(Array.from({ length: 20 }, () => ring.seal(slot, SECRET).value));
    expect(values.size).toBe(20);
  });

  it('binds the envelope to its row and key id: another row, a relabelled key id or a changed byte does not open', () => {
    const ring = SecretKeyring.of([
      { id: 'a', key: keyA },
      { id: 'b', key: keyA }, // same bytes under another id: the key id is authenticated too
    ]);
    const sealed = ring.seal(slot, SECRET);
    expect(codeOf(() => ring.open({ ...slot, name: 'privateKey' }, sealed))).toBe('secret_undecryptable');
    expect(codeOf(() => ring.open({ ...slot, organizationId: 'org-2' }, sealed))).toBe('secret_undecryptable');
    expect(codeOf(() => ring.open(slot, { keyId: 'b', value: sealed.value }))).toBe('secret_undecryptable');
    const parts = sealed.value.split('.');
    const body = Buffer.from(parts[2]!, 'base64url');
    body[0] = body[0]! ^ 1;
    expect(codeOf(() => ring.open(slot, { keyId: 'a', value: [parts[0], parts[1], body.toString('base64url'), parts[3]].join('.') }))).toBe('secret_undecryptable');
    expect(codeOf(() => ring.open(slot, { keyId: 'a', value: 'not an envelope' }))).toBe('secret_undecryptable');
  });

  it('a different key under the same id, or an unknown key id, fails with secret_undecryptable naming the row and never the value', () => {
    const sealed = SecretKeyring.of([{ id: 'a', key: keyA }]).seal(slot, SECRET);
    const wrong = SecretKeyring.of([{ id: 'a', key: keyB }]);
    let err: unknown;
    try {
      wrong.open(slot, sealed);
    } catch (e) {
      err = e;
    }
    expect(isTdxError(err) && err.code).toBe('secret_undecryptable');
    expect((err as Error).message).toContain('connection/c-1/password');
    expect((err as Error).message).not.toContain(SECRET);
    expect(codeOf(() => SecretKeyring.of([{ id: 'b', key: keyB }]).open(slot, sealed))).toBe('secret_undecryptable');
  });

  it('rotation: the new active key seals, old keys still open', () => {
    const old = SecretKeyring.of([{ id: 'a', key: keyA }]);
    const sealedOld = old.seal(slot, SECRET);
    const both = SecretKeyring.of([
      { id: 'b', key: keyB },
      { id: 'a', key: keyA },
    ]);
    expect(both.active).toBe('b');
    expect(both.ids).toEqual(['b', 'a']);
    expect(both.open(slot, sealedOld)).toBe(SECRET);
    expect(both.isCurrent(sealedOld)).toBe(false);
    const sealedNew = both.seal(slot, SECRET);
    expect(sealedNew.keyId).toBe('b');
    expect(both.isCurrent(sealedNew)).toBe(true);
    expect(codeOf(() => old.open(slot, sealedNew))).toBe('secret_undecryptable');
    // an explicitly chosen active key
    const chosen = SecretKeyring.of(
      [
        { id: 'b', key: keyB },
        { id: 'a', key: keyA },
      ],
      'a',
    );
    expect(chosen.seal(slot, SECRET).keyId).toBe('a');
  });

  it('values stored before encryption (no key id) read as their plain text, and are not current', () => {
    const ring = SecretKeyring.of([{ id: 'a', key: keyA }]);
    expect(ring.open(slot, { keyId: null, value: SECRET })).toBe(SECRET);
    expect(ring.isCurrent({ keyId: null, value: SECRET })).toBe(false);
    expect(SecretKeyring.of([]).open(slot, { keyId: null, value: SECRET })).toBe(SECRET);
  });

  it('without a key, sealing fails with config_invalid naming the settings', () => {
    let err: unknown;
    try {
      SecretKeyring.of([]).seal(slot, SECRET);
    } catch (e) {
      err = e;
    }
    expect(isTdxError(err) && err.code).toBe('config_invalid');
    expect((err as Error).message).toContain('TDX_SECRETS_KEYS');
  });

  it('the keyring never shows its key bytes: JSON, util.inspect and string forms carry ids only', () => {
    const ring = SecretKeyring.of([{ id: 'a', key: keyA }]);
    const shown = [JSON.stringify({ ring }), inspect(ring, { showHidden: true, depth: 10 }), inspect({ config: { ring } }, { depth: 10 }), String(Object.values(ring))];
    for (const text of shown) {
      expect(text).not.toContain(keyA.toString('base64'));
      expect(text).not.toContain(keyA.toString('hex'));
    }
    expect(JSON.parse(JSON.stringify(ring))).toEqual({ active: 'a', ids: ['a'] });
  });

  it('parses key entries id:base64 and explains bad ones', () => {
    const line = newKeyLine('k1');
    const parsed = parseKeyEntry(line, 'X');
    expect(typeof parsed).toBe('object');
    expect(parsed).toMatchObject({ id: 'k1' });
    expect((parsed as { key: Uint8Array }).key).toHaveLength(32);
    expect(parseKeyEntry(`k2:${keyA.toString('base64url')}`, 'X')).toMatchObject({ id: 'k2' });
    expect(parseKeyEntry('nocolon', 'X')).toMatch(/^X: expected "<key id>:<base64/);
    expect(parseKeyEntry(`k1:${randomBytes(16).toString('base64')}`, 'X')).toMatch(/is 16 bytes; AES-256-GCM needs 32/);
    expect(parseKeyEntry('bad id!:AAAA', 'X')).toMatch(/key id/);
    expect(parseKeyEntry('k1:***', 'X')).toMatch(/not base64/);
  });
});
