/**
 * Organizations and API keys in Cassandra (migrations/0100). A key is found by its SHA-256
 * (`api_keys_by_hash`); the plain key is never stored.
 */
import type { Client } from 'cassandra-driver';
import type { ApiKeyRecord, KeyKind } from '../../domain/api-keys.ts';
import type { OrganizationStore } from '../../domain/config-ports.ts';
import type { Organization } from '../../domain/configuration.ts';
import { guardStore } from './guard.ts';

const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : null);

export class CassandraOrganizationStore implements OrganizationStore {
  constructor(private readonly client: Client) {}

  createOrganization(org: Organization): Promise<void> {
    return guardStore('create organization', async () => {
      await this.client.execute('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', [org.id, org.name, new Date(org.createdAt)], { prepare: true });
    });
  }

  getOrganization(id: string): Promise<Organization | null> {
    return guardStore('read organization', async () => {
      const row = (await this.client.execute('SELECT id, name, created_at FROM organizations WHERE id = ?', [id], { prepare: true })).first();
      return row ? { id: String(row.get('id')), name: String(row.get('name')), createdAt: iso(row.get('created_at')) ?? '' } : null;
    });
  }

  createKey(key: ApiKeyRecord, keyHash: string): Promise<void> {
    return guardStore('create key', async () => {
      await this.client.batch(
        [
          {
            query: 'INSERT INTO api_keys (org_id, key_id, kind, name, key_prefix, key_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
            params: [key.organizationId, key.id, key.kind, key.name, key.prefix, keyHash, new Date(key.createdAt)],
          },
          { query: 'INSERT INTO api_keys_by_hash (key_hash, org_id, key_id, kind) VALUES (?, ?, ?, ?)', params: [keyHash, key.organizationId, key.id, key.kind] },
        ],
        { prepare: true, logged: true },
      );
    });
  }

  listKeys(organizationId: string): Promise<ApiKeyRecord[]> {
    return guardStore('list keys', async () => {
      const rs = await this.client.execute('SELECT key_id, kind, name, key_prefix, created_at, revoked_at, last_used_at FROM api_keys WHERE org_id = ?', [organizationId], { prepare: true });
      return rs.rows.map((r) => ({
        id: String(r.get('key_id')),
        organizationId,
        kind: r.get('kind') as KeyKind,
        name: (r.get('name') as string | null) ?? null,
        prefix: String(r.get('key_prefix')),
        createdAt: iso(r.get('created_at')) ?? '',
        revokedAt: iso(r.get('revoked_at')),
        lastUsedAt: iso(r.get('last_used_at')),
      }));
    });
  }

  revokeKey(organizationId: string, keyId: string, at: string): Promise<boolean> {
    return guardStore('revoke key', async () => {
      const row = (await this.client.execute('SELECT key_hash FROM api_keys WHERE org_id = ? AND key_id = ?', [organizationId, keyId], { prepare: true })).first();
      if (!row) return false;
      const when = new Date(at);
      await this.client.batch(
        [
          { query: 'UPDATE api_keys SET revoked_at = ? WHERE org_id = ? AND key_id = ?', params: [when, organizationId, keyId] },
          { query: 'UPDATE api_keys_by_hash SET revoked_at = ? WHERE key_hash = ?', params: [when, row.get('key_hash')] },
        ],
        { prepare: true, logged: true },
      );
      return true;
    });
  }

  findKeyByHash(keyHash: string): Promise<Pick<ApiKeyRecord, 'id' | 'organizationId' | 'kind' | 'revokedAt'> | null> {
    return guardStore('key lookup', async () => {
      const row = (await this.client.execute('SELECT org_id, key_id, kind, revoked_at FROM api_keys_by_hash WHERE key_hash = ?', [keyHash], { prepare: true })).first();
      if (!row) return null;
      return { id: String(row.get('key_id')), organizationId: String(row.get('org_id')), kind: row.get('kind') as KeyKind, revokedAt: iso(row.get('revoked_at')) };
    });
  }

  touchKey(organizationId: string, keyId: string, at: string): Promise<void> {
    return guardStore('touch key', async () => {
      await this.client.execute('UPDATE api_keys SET last_used_at = ? WHERE org_id = ? AND key_id = ?', [new Date(at), organizationId, keyId], { prepare: true });
    });
  }
}
