/**
 * Store ports of organizations, keys, configuration and rate limits. Implementations live in
 * src/adapters/cassandra; unit tests use in-memory fakes.
 */
import type { ApiKeyRecord, KeyKind } from './api-keys.ts';
import type { ConfigChange, RecordByKind, RecordKind } from './config-plan.ts';
import type { Direction, FlowRecord, MappingVersionRecord, OrgConfigState, Organization } from './configuration.ts';

export interface OrganizationStore {
  createOrganization(org: Organization): Promise<void>;
  getOrganization(id: string): Promise<Organization | null>;
  createKey(key: ApiKeyRecord, keyHash: string): Promise<void>;
  listKeys(organizationId: string): Promise<ApiKeyRecord[]>;
  /** Revokes a key of the organization; false when it has no such key. */
  revokeKey(organizationId: string, keyId: string, at: string): Promise<boolean>;
  /** The key with this hash, revoked or not; null when unknown. */
  findKeyByHash(keyHash: string): Promise<Pick<ApiKeyRecord, 'id' | 'organizationId' | 'kind' | 'revokedAt'> | null>;
  touchKey(organizationId: string, keyId: string, at: string): Promise<void>;
}

/** The API's read path. It never reads a secret. */
export interface ConfigReadStore {
  /** Every record of a kind in the organization, ordered by id (flows: every version). */
  list<K extends RecordKind>(organizationId: string, kind: K): Promise<RecordByKind[K][]>;
  get<K extends RecordKind>(organizationId: string, kind: K, id: string): Promise<RecordByKind[K] | null>;
  partnerIdByKey(organizationId: string, key: string): Promise<string | null>;
  /**
   * The partner's current flow in `direction` when it is active, else null: found from the
   * flows' lookup fields, so only that flow's record is decoded (an organization with many
   * partners holds many flows).
   */
  activeFlow(organizationId: string, partnerId: string, direction: Direction): Promise<FlowRecord | null>;
  /** Versions of a mapping, oldest first. */
  mappingVersions(organizationId: string, mappingId: string): Promise<MappingVersionRecord[]>;
  mappingVersion(organizationId: string, mappingId: string, versionNumber: number): Promise<MappingVersionRecord | null>;
}

/** The administration command line's store: whole state in, changes out. */
export interface ConfigAdminStore {
  loadState(organizationId: string): Promise<OrgConfigState>;
  applyChanges(organizationId: string, changes: readonly ConfigChange[]): Promise<void>;
}

/** Per-key request counts over aligned one-minute windows, shared by every API replica. */
export interface RateLimitStore {
  /**
   * Writes `tally`, the number of requests replica `replicaId` has counted for the key in the
   * window (it only grows), and returns the window's total over every replica, including it.
   */
  tally(scope: string, keyId: string, windowStart: number, replicaId: string, tally: number): Promise<number>;
}

export type { KeyKind };
