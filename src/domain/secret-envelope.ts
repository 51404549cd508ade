/**
 * Partners' secrets at rest (docs/secrets.md): every stored secret (SFTP passwords and private
 * keys, AS2 private keys and certificates, passphrases, sandbox tokens, webhook signing secrets)
 * is sealed with AES-256-GCM under an operator key. A stored secret is a pair: the id of the key
 * that sealed it, beside the envelope
 *
 *     v1.<iv, base64url, 12 bytes>.<ciphertext, base64url>.<tag, base64url, 16 bytes>
 *
 * The additional authenticated data binds the envelope to its row (organization, owner kind,
 * owner id, secret name) and its key id, so a sealed value copied to another row or relabelled
 * with another key id does not open. A value stored before encryption existed has no key id and
 * is its plain text; it stays readable until `tdx admin secrets rotate` seals it.
 *
 * `SecretKeyring` holds the operator keys: the active one seals, every one opens. Its key bytes
 * are private fields, invisible to JSON, `util.inspect` and the logger.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { TdxError } from '../errors.ts';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRET_KEY_BYTES = 32;
/** What a key id may look like: it is stored beside every value and written in key files. */
export const SECRET_KEY_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Where a stored secret belongs; the envelope is bound to it. */
export interface SecretSlot {
  readonly organizationId: string;
  readonly ownerKind: string;
  readonly ownerId: string;
  readonly name: string;
}

/** A secret as stored: `keyId` null for a value written before encryption (plain text). */
export interface StoredSecret {
  readonly keyId: string | null;
  readonly value: string;
}

/** One operator key as configured: an id and 32 key bytes. */
export interface SecretKeyEntry {
  readonly id: string;
  readonly key: Uint8Array;
}

function aad(slot: SecretSlot, keyId: string): Buffer {
  // length-prefixed fields: no two different slots give the same bytes
  const parts = [VERSION, keyId, slot.organizationId, slot.ownerKind, slot.ownerId, slot.name];
  return Buffer.from(parts.map((p) => `${Buffer.byteLength(p)}:${p}`).join('|'), 'utf8');
}

function undecryptable(slot: SecretSlot, keyId: string | null, why: string): TdxError {
  return new TdxError('secret_undecryptable', `Stored secret ${slot.ownerKind}/${slot.ownerId}/${slot.name} cannot be decrypted: ${why}`, {
    details: { organizationId: slot.organizationId, ownerKind: slot.ownerKind, ownerId: slot.ownerId, name: slot.name, keyId },
  });
}

/** The operator keys of a process. Build it with `SecretKeyring.of`; `active` seals. */
export class SecretKeyring {
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** Id of the key that seals new values; undefined when no key is configured. */
  readonly active: string | undefined;
  /** Ids of every key that opens values, the active one first. */
  readonly ids: readonly string[];
  /** Names the settings that configure the keys, for error messages. */
  readonly settings: string;

  private constructor(keys: ReadonlyMap<string, Buffer>, active: string | undefined, settings: string) {
    this.#keys = keys;
    this.active = active;
    this.ids = active === undefined ? [...keys.keys()] : [active, ...[...keys.keys()].filter((k) => k !== active)];
    this.settings = settings;
  }

  /**
   * A keyring over `entries` (validated by the caller: ids match SECRET_KEY_ID, keys are 32
   * bytes, ids are unique). `active` defaults to the first entry.
   */
  static of(entries: readonly SecretKeyEntry[], active?: string, settings = 'TDX_SECRETS_KEYS or TDX_SECRETS_KEY_FILE'): SecretKeyring {
    const keys = new Map<string, Buffer>();
    for (const e of entries) {
      if (!SECRET_KEY_ID.test(e.id)) throw new TdxError('config_invalid', `${settings}: key id "${e.id}" is not a valid key id (letters, digits, ".", "_", "-")`);
      if (e.key.length !== SECRET_KEY_BYTES) throw new TdxError('config_invalid', `${settings}: key "${e.id}" is ${e.key.length} bytes; AES-256-GCM needs ${SECRET_KEY_BYTES}`);
      keys.set(e.id, Buffer.from(e.key));
    }
    const chosen = active ?? entries[0]?.id;
    if (chosen !== undefined && !keys.has(chosen)) throw new TdxError('config_invalid', `${settings}: the active key "${chosen}" is not among the configured keys`);
    return new SecretKeyring(keys, chosen, settings);
  }

  has(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  /** Seals `plain` for `slot` under the active key. Throws `config_invalid` without a key. */
  seal(slot: SecretSlot, plain: string): { keyId: string; value: string } {
    const keyId = this.active;
    const key = keyId === undefined ? undefined : this.#keys.get(keyId);
    if (keyId === undefined || key === undefined) {
      throw new TdxError('config_invalid', `${this.settings}: no operator key is configured, so partner secrets cannot be encrypted`);
    }
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(slot, keyId));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return { keyId, value: [VERSION, iv.toString('base64url'), body.toString('base64url'), tag.toString('base64url')].join('.') };
  }

  /** Opens a stored secret of `slot`: plain text when it has no key id. */
  open(slot: SecretSlot, stored: StoredSecret): string {
    if (stored.keyId === null) return stored.value;
    const key = this.#keys.get(stored.keyId);
    if (key === undefined) throw undecryptable(slot, stored.keyId, `key "${stored.keyId}" is not configured (${this.settings})`);
    const parts = stored.value.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) throw undecryptable(slot, stored.keyId, 'not a v1 envelope');
    const iv = Buffer.from(parts[1]!, 'base64url');
    const body = Buffer.from(parts[2]!, 'base64url');
    const tag = Buffer.from(parts[3]!, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw undecryptable(slot, stored.keyId, 'malformed envelope');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(slot, stored.keyId));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw undecryptable(slot, stored.keyId, `authentication failed under key "${stored.keyId}" (a different key under the same id, or a changed value)`);
    }
  }

  /** True when `stored` is sealed under the active key (rotation skips it). */
  isCurrent(stored: StoredSecret): boolean {
    return stored.keyId !== null && stored.keyId === this.active;
  }

  /** Never the key bytes. */
  toJSON(): { active: string | undefined; ids: readonly string[] } {
    return { active: this.active, ids: this.ids };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `SecretKeyring(active=${this.active ?? 'none'}, ids=${this.ids.join(',')})`;
  }
}

/** Parses `id:base64` (32 key bytes). `where` names the setting (and line) for the message. */
export function parseKeyEntry(text: string, where: string): SecretKeyEntry | string {
  const i = text.indexOf(':');
  if (i <= 0) return `${where}: expected "<key id>:<base64 of 32 random bytes>"`;
  const id = text.slice(0, i).trim();
  const material = text.slice(i + 1).trim();
  if (!SECRET_KEY_ID.test(id)) return `${where}: key id "${id}" must be letters, digits, ".", "_" or "-" (at most 64)`;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(material)) return `${where}: key "${id}" is not base64`;
  const key = Buffer.from(material, material.includes('-') || material.includes('_') ? 'base64url' : 'base64');
  if (key.length !== SECRET_KEY_BYTES) return `${where}: key "${id}" is ${key.length} bytes; AES-256-GCM needs ${SECRET_KEY_BYTES} (base64 of 32 random bytes)`;
  return { id, key };
}

/** A new key line `id:base64` with 32 random bytes. */
export function newKeyLine(id: string): string {
  if (!SECRET_KEY_ID.test(id)) throw new TdxError('invalid_parameter', `key id "${id}": letters, digits, ".", "_" or "-" (at most 64)`);
  return `${id}:${randomBytes(SECRET_KEY_BYTES).toString('base64')}`;
}
