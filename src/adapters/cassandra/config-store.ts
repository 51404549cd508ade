/**
 * Cassandra stores of an organization's configuration (tables in migrations/0101). Each record
 * is kept as JSON in `body` next to the columns lookups use. `CassandraConfigReadStore` is the
 * API's read path and never selects `config_secrets`; `CassandraConfigAdminStore` is the
 * administration command line's, the only one that reads or writes secrets: it seals each
 * secret under the operator key before writing it and opens what it reads (secret-store.ts).
 */
import type { Client } from 'cassandra-driver';
import type { ConfigChange, RecordByKind, RecordKind } from '../../domain/config-plan.ts';
import type { ConfigAdminStore, ConfigReadStore } from '../../domain/config-ports.ts';
import type { Direction, FlowRecord, ImplementationRecord, MappingVersionRecord, OrgConfigState, SecretRecord } from '../../domain/configuration.ts';
import type { SecretKeyring } from '../../domain/secret-envelope.ts';
import { guardStore } from './guard.ts';
import { coalescedReads, readIn } from './grouped.ts';
import { SecretKeyRegistry, storedOf } from './secret-store.ts';
import type { Row } from './cells.ts';

const TABLE: Record<RecordKind, string> = {
  connection: 'config_connections',
  envelope: 'config_envelopes',
  webhook: 'config_webhooks',
  partner: 'config_partners',
  flow: 'config_flows',
  mapping: 'config_mappings',
  implementation: 'config_implementations',
  source: 'config_sources',
};

function decode<K extends RecordKind>(kind: K, row: Row): RecordByKind[K] {
  const body = JSON.parse(row.get('body') as string) as Record<string, unknown>;
  if (kind === 'implementation') body['definition'] = JSON.parse((row.get('definition') as string | null) ?? 'null');
  return body as unknown as RecordByKind[K];
}

function selectOf(kind: RecordKind): string {
  // flows also carry the lookup columns a current flow is found by (activeFlow)
  return kind === 'implementation' ? 'SELECT body, definition FROM' : kind === 'flow' ? 'SELECT partner_id, direction, status, is_current, body FROM' : 'SELECT body FROM';
}

export class CassandraConfigReadStore implements ConfigReadStore {
  // The lookups of requests and items handled side by side go together (grouped.ts): one read
  // per organization and kind for the records asked for in one turn of the event loop. Rows are
  // shared; each caller decodes its own records.
  private readonly rowsById = coalescedReads<Row>(async (group, ids) => {
    const { org, kind } = JSON.parse(group) as { org: string; kind: RecordKind };
    const out = new Map<string, Row>();
    for (const r of await readIn(this.client, `${selectOf(kind).replace('SELECT ', 'SELECT id, ')} ${TABLE[kind]} WHERE org_id = ? AND id IN ?`, [org], ids)) out.set(String(r.get('id')), r);
    return out;
  });
  private readonly allRows = coalescedReads<Row[]>(async (group) => {
    const { org, kind } = JSON.parse(group) as { org: string; kind: RecordKind };
    const rs = await this.client.execute(`${selectOf(kind)} ${TABLE[kind]} WHERE org_id = ?`, [org], { prepare: true, fetchSize: 5000 });
    return new Map([['', rs.rows]]);
  });
  private readonly partnerIds = coalescedReads<string>(async (org, keys) => {
    const out = new Map<string, string>();
    for (const r of await readIn(this.client, 'SELECT key_lower, partner_id FROM config_partner_keys WHERE org_id = ? AND key_lower IN ?', [org], keys)) out.set(String(r.get('key_lower')), String(r.get('partner_id')));
    return out;
  });

  constructor(private readonly client: Client) {}

  activeFlow(organizationId: string, partnerId: string, direction: Direction): Promise<FlowRecord | null> {
    return guardStore('current flow lookup', async () => {
      // the organization's flows as `list` reads them, only the one taken decoded
      const rows = (await this.allRows(JSON.stringify({ org: organizationId, kind: 'flow' }), '')) ?? [];
      const row = rows.find((r) => r.get('partner_id') === partnerId && r.get('direction') === direction && r.get('is_current') === true && r.get('status') === 'active');
      return row ? decode('flow', row) : null;
    });
  }

  list<K extends RecordKind>(organizationId: string, kind: K): Promise<RecordByKind[K][]> {
    return guardStore(`list ${kind}`, async () => ((await this.allRows(JSON.stringify({ org: organizationId, kind }), '')) ?? []).map((r) => decode(kind, r)));
  }

  get<K extends RecordKind>(organizationId: string, kind: K, id: string): Promise<RecordByKind[K] | null> {
    return guardStore(`get ${kind}`, async () => {
      const row = await this.rowsById(JSON.stringify({ org: organizationId, kind }), id);
      return row ? decode(kind, row) : null;
    });
  }

  partnerIdByKey(organizationId: string, key: string): Promise<string | null> {
    return guardStore('partner key lookup', async () => (await this.partnerIds(organizationId, key.toLowerCase())) ?? null);
  }

  mappingVersions(organizationId: string, mappingId: string): Promise<MappingVersionRecord[]> {
    return guardStore('list mapping versions', async () => {
      const rs = await this.client.execute('SELECT body FROM config_mapping_versions WHERE org_id = ? AND mapping_id = ?', [organizationId, mappingId], { prepare: true, fetchSize: 5000 });
      return rs.rows.map((r) => JSON.parse(String(r.get('body'))) as MappingVersionRecord);
    });
  }

  mappingVersion(organizationId: string, mappingId: string, versionNumber: number): Promise<MappingVersionRecord | null> {
    return guardStore('get mapping version', async () => {
      const rs = await this.client.execute(
        'SELECT body FROM config_mapping_versions WHERE org_id = ? AND mapping_id = ? AND version_number = ?',
        [organizationId, mappingId, versionNumber],
        { prepare: true },
      );
      const row = rs.first();
      return row ? (JSON.parse(String(row.get('body'))) as MappingVersionRecord) : null;
    });
  }
}

export class CassandraConfigAdminStore implements ConfigAdminStore {
  private readonly reader: CassandraConfigReadStore;
  private readonly registry: SecretKeyRegistry;
  constructor(
    private readonly client: Client,
    private readonly keyring: SecretKeyring,
  ) {
    this.reader = new CassandraConfigReadStore(client);
    this.registry = new SecretKeyRegistry(client, keyring);
  }

  async loadState(organizationId: string): Promise<OrgConfigState> {
    const r = this.reader;
    const [connections, envelopes, webhooks, partners, flows, mappings, implementations, sources, secrets] = await Promise.all([
      r.list(organizationId, 'connection'),
      r.list(organizationId, 'envelope'),
      r.list(organizationId, 'webhook'),
      r.list(organizationId, 'partner'),
      r.list(organizationId, 'flow'),
      r.list(organizationId, 'mapping'),
      r.list(organizationId, 'implementation'),
      r.list(organizationId, 'source'),
      this.secrets(organizationId),
    ]);
    const mappingVersions = (await Promise.all(mappings.map((m) => r.mappingVersions(organizationId, m.id)))).flat();
    return { connections, envelopes, webhooks, partners, flows, mappings, mappingVersions, implementations, sources, secrets };
  }

  private secrets(organizationId: string): Promise<SecretRecord[]> {
    return guardStore('read secrets', async () => {
      const rs = await this.client.execute('SELECT owner_kind, owner_id, name, value, key_id FROM config_secrets WHERE org_id = ?', [organizationId], { prepare: true, fetchSize: 5000 });
      return rs.rows.map((row) => {
        const ownerKind = row.get('owner_kind') as SecretRecord['ownerKind'];
        const ownerId = String(row.get('owner_id'));
        const name = String(row.get('name'));
        return { ownerKind, ownerId, name, value: this.keyring.open({ organizationId, ownerKind, ownerId, name }, storedOf(row)) };
      });
    });
  }

  async applyChanges(organizationId: string, changes: readonly ConfigChange[]): Promise<void> {
    for (const c of changes) await guardStore(`apply ${c.op}`, () => this.applyOne(organizationId, c));
  }

  private async put(query: string, params: unknown[]): Promise<void> {
    await this.client.execute(query, params, { prepare: true });
  }

  private async applyOne(org: string, c: ConfigChange): Promise<void> {
    if (c.op === 'putSecret') {
      const s = c.secret;
      await this.registry.registerActive();
      const sealed = this.keyring.seal({ organizationId: org, ownerKind: s.ownerKind, ownerId: s.ownerId, name: s.name }, s.value);
      await this.put('INSERT INTO config_secrets (org_id, owner_kind, owner_id, name, value, key_id, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [org, s.ownerKind, s.ownerId, s.name, sealed.value, sealed.keyId, new Date()]);
      return;
    }
    if (c.op === 'deleteSecret') {
      await this.put('DELETE FROM config_secrets WHERE org_id = ? AND owner_kind = ? AND owner_id = ? AND name = ?', [org, c.ownerKind, c.ownerId, c.name]);
      return;
    }
    if (c.op === 'putMappingVersion') {
      const v = c.version;
      await this.put('INSERT INTO config_mapping_versions (org_id, mapping_id, version_number, body, created_at) VALUES (?, ?, ?, ?, ?)', [org, v.mappingId, v.versionNumber, JSON.stringify(v), new Date(v.createdAt)]);
      return;
    }
    if (c.op === 'delete') {
      if (c.kind === 'partner') {
        const rs = await this.client.execute('SELECT key_lower, partner_id FROM config_partner_keys WHERE org_id = ?', [org], { prepare: true });
        for (const row of rs.rows) {
          if (row.get('partner_id') === c.id) await this.put('DELETE FROM config_partner_keys WHERE org_id = ? AND key_lower = ?', [org, row.get('key_lower')]);
        }
      }
      if (c.kind === 'mapping') await this.put('DELETE FROM config_mapping_versions WHERE org_id = ? AND mapping_id = ?', [org, c.id]);
      if (c.kind === 'connection') await this.put('DELETE FROM as2_connections WHERE connection_id = ?', [c.id]);
      await this.put(`DELETE FROM ${TABLE[c.kind]} WHERE org_id = ? AND id = ?`, [org, c.id]);
      return;
    }
    const r = c.record;
    const stamps = [new Date(r.createdAt), new Date(r.updatedAt)];
    switch (c.kind) {
      case 'connection':
        await this.put('INSERT INTO config_connections (org_id, id, name, kind, provisioned, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [org, r.id, r.name, c.record.kind, c.record.provisioned, JSON.stringify(r), ...stamps]);
        // `POST /as2/:connectionId` carries no API key: it finds the organization by connection id
        if (c.record.kind === 'as2') await this.put('INSERT INTO as2_connections (connection_id, org_id) VALUES (?, ?)', [r.id, org]);
        return;
      case 'envelope':
        await this.put('INSERT INTO config_envelopes (org_id, id, name, external, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [org, r.id, r.name, c.record.external, JSON.stringify(r), ...stamps]);
        return;
      case 'webhook':
        await this.put('INSERT INTO config_webhooks (org_id, id, name, kind, url, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [org, r.id, r.name, c.record.kind, c.record.url, JSON.stringify(r), ...stamps]);
        return;
      case 'partner': {
        const p = c.record;
        const rs = await this.client.execute('SELECT key_lower, partner_id FROM config_partner_keys WHERE org_id = ?', [org], { prepare: true });
        for (const row of rs.rows) {
          if (row.get('partner_id') === p.id && row.get('key_lower') !== p.key.toLowerCase()) {
            await this.put('DELETE FROM config_partner_keys WHERE org_id = ? AND key_lower = ?', [org, row.get('key_lower')]);
          }
        }
        await this.put('INSERT INTO config_partners (org_id, id, name, partner_key, key_lower, delivery_method, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [org, p.id, p.name, p.key, p.key.toLowerCase(), p.deliveryMethod, JSON.stringify(p), ...stamps]);
        await this.put('INSERT INTO config_partner_keys (org_id, key_lower, partner_id) VALUES (?, ?, ?)', [org, p.key.toLowerCase(), p.id]);
        return;
      }
      case 'flow': {
        const f = c.record;
        await this.put('INSERT INTO config_flows (org_id, id, name, partner_id, direction, status, version_number, is_current, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [org, f.id, f.name, f.partnerId, f.direction, f.status, f.versionNumber, f.current, JSON.stringify(f), ...stamps]);
        return;
      }
      case 'mapping':
        await this.put('INSERT INTO config_mappings (org_id, id, name, direction, current_version, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [org, r.id, r.name, c.record.direction, c.record.currentVersion, JSON.stringify(r), ...stamps]);
        return;
      case 'implementation': {
        const { definition, ...rest }: ImplementationRecord = c.record;
        await this.put('INSERT INTO config_implementations (org_id, id, name, transaction_set, status, body, definition, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [org, r.id, r.name, `${rest.transactionSet.identifier}/${rest.transactionSet.release}`, rest.status, JSON.stringify(rest), JSON.stringify(definition ?? null), ...stamps]);
        return;
      }
      case 'source':
        await this.put('INSERT INTO config_sources (org_id, id, name, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [org, r.id, r.name, JSON.stringify(r), ...stamps]);
        return;
    }
  }
}
