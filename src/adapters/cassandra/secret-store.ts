/**
 * Partners' secrets at rest in Cassandra (migrations/0101 `config_secrets`, 0145): sealing on
 * write, opening on read (src/domain/secret-envelope.ts), the registry of operator keys that
 * `tdx start` checks (`secret_keys`), rotation (`tdx admin secrets rotate`), and the SecretReader
 * port of src/domain/processing-ports.ts (`CassandraSecretReader`). Values are opened only in the
 * process that uses them and never logged: errors name the row, not the value.
 */
import type { Client } from 'cassandra-driver';
import { TdxError } from '../../errors.ts';
import type { SecretOwner } from '../../domain/configuration.ts';
import type { SecretReader } from '../../domain/processing-ports.ts';
import type { SecretKeyring, SecretSlot, StoredSecret } from '../../domain/secret-envelope.ts';
import { guardStore } from './guard.ts';
import { str, type Row } from './cells.ts';

/** The fixed text each registered key seals as its check value. */
const CHECK_TEXT = 'tdx secret key check';
const checkSlot = (keyId: string): SecretSlot => ({ organizationId: '*', ownerKind: 'secret_keys', ownerId: keyId, name: 'check' });

/** A stored secret of a row selected with `value, key_id`. */
export function storedOf(row: Row): StoredSecret {
  const keyId = row.get('key_id') as string | null | undefined;
  return { keyId: keyId ?? null, value: String(row.get('value')) };
}

/**
 * Records that `ring`'s active key seals secrets in this keyspace (once per key and process):
 * the first writer's check value stays (`IF NOT EXISTS`), so a different key under the same id
 * is caught by `verifySecretKeys`.
 */
export class SecretKeyRegistry {
  private readonly registered = new Set<string>();
  constructor(
    private readonly client: Client,
    private readonly ring: SecretKeyring,
  ) {}

  async registerActive(): Promise<string> {
    const keyId = this.ring.active;
    if (keyId === undefined) return this.ring.seal(checkSlot('-'), CHECK_TEXT).keyId; // throws config_invalid naming the settings
    if (this.registered.has(keyId)) return keyId;
    await guardStore('secret key register', () =>
      this.client.execute('INSERT INTO secret_keys (key_id, check_value, registered_at) VALUES (?, ?, ?) IF NOT EXISTS', [keyId, this.ring.seal(checkSlot(keyId), CHECK_TEXT).value, new Date()], {
        prepare: true,
      }),
    );
    this.registered.add(keyId);
    return keyId;
  }
}

/**
 * The start-up check: every key that has sealed secrets here must be configured, and be the same
 * key. Throws `config_invalid` naming the settings; a keyspace without sealed secrets passes.
 */
export async function verifySecretKeys(client: Client, ring: SecretKeyring): Promise<{ keyIds: string[] }> {
  const rs = await guardStore('secret keys read', () => client.execute('SELECT key_id, check_value FROM secret_keys', [], { prepare: true, fetchSize: 1000 }));
  const keyIds: string[] = [];
  for (const row of rs.rows) {
    const keyId = String(row.get('key_id'));
    keyIds.push(keyId);
    if (!ring.has(keyId)) {
      throw new TdxError(
        'config_invalid',
        `Invalid configuration: ${ring.settings}: stored partner secrets are encrypted under key "${keyId}", which is not configured (configured: ${ring.ids.join(', ') || 'none'}). Add it beside the new key; old keys keep decrypting until \`tdx admin secrets rotate\` has re-encrypted everything.`,
        { details: { problems: [`${ring.settings}: key "${keyId}" missing`], keyId } },
      );
    }
    try {
      if (ring.open(checkSlot(keyId), { keyId, value: String(row.get('check_value')) }) !== CHECK_TEXT) throw new Error('check text differs');
    } catch {
      throw new TdxError(
        'config_invalid',
        `Invalid configuration: ${ring.settings}: the key configured as "${keyId}" is not the key that encrypted the stored partner secrets under that id.`,
        { details: { problems: [`${ring.settings}: key "${keyId}" differs`], keyId } },
      );
    }
  }
  return { keyIds };
}

/** Progress of a rotation, reported after every page and at the end. */
export interface RotationProgress {
  /** Rows in config_secrets when the rotation began. */
  readonly total: number;
  /** Rows looked at so far. */
  readonly scanned: number;
  /** Rows re-encrypted under the active key by this run. */
  readonly resealed: number;
  /** Rows that already were under the active key. */
  readonly current: number;
  /** Rows another writer changed during the run (left for the next run). */
  readonly skipped: number;
}

export interface RotationOutcome extends RotationProgress {
  readonly activeKey: string;
  /** Key ids no stored secret uses any more, removed from the registry. */
  readonly retired: readonly string[];
  /** Rows per key id (`plain` for values without one) before the run. */
  readonly before: Readonly<Record<string, number>>;
}

const PAGE = 200;

async function* pages(client: Client, query: string, pageSize = PAGE): AsyncGenerator<Row[]> {
  let pageState: string | undefined;
  do {
    const rs = await guardStore('secrets scan', () => client.execute(query, [], { prepare: true, fetchSize: pageSize, ...(pageState ? { pageState } : {}) }));
    yield rs.rows;
    pageState = rs.pageState ?? undefined;
  } while (pageState);
}

/** Stored secrets per key id (`plain` for values without one), and the registered key ids. */
export async function secretKeyUsage(client: Client): Promise<{ rows: Record<string, number>; registered: string[] }> {
  const rows: Record<string, number> = {};
  for await (const page of pages(client, 'SELECT key_id FROM config_secrets')) {
    for (const r of page) {
      const label = (r.get('key_id') as string | null | undefined) ?? 'plain';
      rows[label] = (rows[label] ?? 0) + 1;
    }
  }
  const reg = await guardStore('secret keys read', () => client.execute('SELECT key_id FROM secret_keys', [], { prepare: true }));
  return { rows, registered: reg.rows.map((r) => String(r.get('key_id'))).sort() };
}

/**
 * Re-encrypts every stored secret that is not under the active key (plain values written before
 * encryption included). Idempotent and resumable: rows already under the active key are left
 * alone, so a run stopped half-way is finished by running it again. Each row is replaced only if
 * it still holds what was read (a lightweight transaction), so a concurrent `tdx config apply`
 * is never overwritten. Old keys leave the registry once no row uses them.
 */
export async function rotateSecrets(
  client: Client,
  ring: SecretKeyring,
  onProgress: (p: RotationProgress) => void = () => undefined,
  opts: { pageSize?: number } = {},
): Promise<RotationOutcome> {
  const activeKey = await new SecretKeyRegistry(client, ring).registerActive();
  const before = (await secretKeyUsage(client)).rows;
  const total = Object.values(before).reduce((a, b) => a + b, 0);
  let scanned = 0;
  let resealed = 0;
  let current = 0;
  let skipped = 0;
  const update = 'UPDATE config_secrets SET value = ?, key_id = ?, updated_at = ? WHERE org_id = ? AND owner_kind = ? AND owner_id = ? AND name = ? IF value = ?';
  for await (const rows of pages(client, 'SELECT org_id, owner_kind, owner_id, name, value, key_id FROM config_secrets', opts.pageSize)) {
    for (const r of rows) {
      scanned++;
      const stored = storedOf(r);
      if (ring.isCurrent(stored)) {
        current++;
        continue;
      }
      const slot: SecretSlot = { organizationId: String(r.get('org_id')), ownerKind: String(r.get('owner_kind')), ownerId: String(r.get('owner_id')), name: String(r.get('name')) };
      const sealed = ring.seal(slot, ring.open(slot, stored));
      const rs = await guardStore('secret reseal', () =>
        client.execute(update, [sealed.value, sealed.keyId, new Date(), slot.organizationId, slot.ownerKind, slot.ownerId, slot.name, stored.value], { prepare: true }),
      );
      if (rs.wasApplied()) resealed++;
      else skipped++;
    }
    onProgress({ total, scanned, resealed, current, skipped });
  }
  // retire the keys no row uses any more (checked again now, after the run)
  const after = await secretKeyUsage(client);
  const retired: string[] = [];
  for (const keyId of after.registered) {
    if (keyId !== activeKey && !(keyId in after.rows)) {
      await guardStore('secret key retire', () => client.execute('DELETE FROM secret_keys WHERE key_id = ?', [keyId], { prepare: true }));
      retired.push(keyId);
    }
  }
  return { activeKey, total, scanned, resealed, current, skipped, retired, before };
}

/**
 * Secrets for the nodes that use them (the API's read stores never select this table), opened
 * with the operator keys in this process (docs/secrets.md).
 */
export class CassandraSecretReader implements SecretReader {
  constructor(
    private readonly client: Client,
    private readonly keyring: SecretKeyring,
  ) {}

  async get(organizationId: string, ownerKind: SecretOwner, ownerId: string): Promise<Readonly<Record<string, string>>> {
    const rs = await guardStore('secrets read', () =>
      this.client.execute('SELECT name, value, key_id FROM config_secrets WHERE org_id = ? AND owner_kind = ? AND owner_id = ?', [organizationId, ownerKind, ownerId], { prepare: true }),
    );
    const out: Record<string, string> = {};
    for (const r of rs.rows) {
      const name = str(r.get('name'));
      out[name] = this.keyring.open({ organizationId, ownerKind, ownerId, name }, storedOf(r));
    }
    return out;
  }
}
