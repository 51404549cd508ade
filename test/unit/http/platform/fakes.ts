/* eslint-disable @typescript-eslint/require-await -- fakes implement async ports synchronously */
// In-memory fakes of the store ports, for unit tests only.
import type { ApiKeyRecord } from '../../../../src/domain/api-keys.ts';
import { generateApiKey, hashApiKey, keyPrefix, type KeyKind } from '../../../../src/domain/api-keys.ts';
import type { ConfigReadStore, OrganizationStore, RateLimitStore } from '../../../../src/domain/config-ports.ts';
import type { RecordByKind, RecordKind } from '../../../../src/domain/config-plan.ts';
import type { Direction, OrgConfigState, Organization } from '../../../../src/domain/configuration.ts';
import { newId } from '../../../../src/domain/ids.ts';

export class FakeOrgs implements OrganizationStore {
  orgs = new Map<string, Organization>();
  keys = new Map<string, { rec: ApiKeyRecord; hash: string }>();
  async createOrganization(org: Organization) {
    this.orgs.set(org.id, org);
  }
  async getOrganization(id: string) {
    return this.orgs.get(id) ?? null;
  }
  async createKey(key: ApiKeyRecord, hash: string) {
    this.keys.set(key.id, { rec: key, hash });
  }
  async listKeys(org: string) {
    return [...this.keys.values()].filter((k) => k.rec.organizationId === org).map((k) => k.rec);
  }
  async revokeKey(org: string, id: string, at: string) {
    const k = this.keys.get(id);
    if (!k || k.rec.organizationId !== org) return false;
    k.rec = { ...k.rec, revokedAt: at };
    return true;
  }
  async findKeyByHash(hash: string) {
    const k = [...this.keys.values()].find((x) => x.hash === hash);
    return k ? { id: k.rec.id, organizationId: k.rec.organizationId, kind: k.rec.kind, revokedAt: k.rec.revokedAt } : null;
  }
  async touchKey(_org: string, id: string, at: string) {
    const k = this.keys.get(id);
    if (k) k.rec = { ...k.rec, lastUsedAt: at };
  }
  /** Adds a key and returns the plain key. */
  add(org: string, kind: KeyKind): string {
    const key = generateApiKey();
    const id = newId();
    this.keys.set(id, { rec: { id, organizationId: org, kind, name: null, prefix: keyPrefix(key), createdAt: new Date().toISOString(), revokedAt: null, lastUsedAt: null }, hash: hashApiKey(key) });
    return key;
  }
}

const KIND_FIELD: Record<RecordKind, keyof OrgConfigState> = {
  connection: 'connections',
  envelope: 'envelopes',
  webhook: 'webhooks',
  partner: 'partners',
  flow: 'flows',
  mapping: 'mappings',
  implementation: 'implementations',
  source: 'sources',
};

export class FakeConfig implements ConfigReadStore {
  states = new Map<string, OrgConfigState>();
  async list<K extends RecordKind>(org: string, kind: K) {
    const s = this.states.get(org);
    return s ? ([...(s[KIND_FIELD[kind]] as unknown[])] as RecordByKind[K][]) : [];
  }
  async get<K extends RecordKind>(org: string, kind: K, id: string) {
    return (await this.list(org, kind)).find((r) => r.id === id) ?? null;
  }
  async activeFlow(org: string, partnerId: string, direction: Direction) {
    return (await this.list(org, 'flow')).find((f) => f.partnerId === partnerId && f.direction === direction && f.current && f.status === 'active') ?? null;
  }
  async partnerIdByKey(org: string, key: string) {
    return this.states.get(org)?.partners.find((p) => p.key.toLowerCase() === key.toLowerCase())?.id ?? null;
  }
  async mappingVersions(org: string, mappingId: string) {
    return (this.states.get(org)?.mappingVersions ?? []).filter((v) => v.mappingId === mappingId);
  }
  async mappingVersion(org: string, mappingId: string, n: number) {
    return (await this.mappingVersions(org, mappingId)).find((v) => v.versionNumber === n) ?? null;
  }
}

export class FakeRateLimits implements RateLimitStore {
  /** Window total by `scope/keyId/windowStart`. */
  counts = new Map<string, number>();
  tallies = new Map<string, Map<string, number>>();
  calls = 0;
  async tally(scope: string, keyId: string, windowStart: number, replicaId: string, tally: number) {
    this.calls += 1;
    const k = `${scope}/${keyId}/${windowStart}`;
    let rows = this.tallies.get(k);
    if (!rows) this.tallies.set(k, (rows = new Map<string, number>()));
    rows.set(replicaId, tally);
    const total = [...rows.values()].reduce((a, b) => a + b, 0);
    this.counts.set(k, total);
    return total;
  }
}
