/**
 * `ConfigView` over the configuration read store and the secret reader, with a short-lived
 * cache per record: a busy node reads each partner, flow or implementation once every few
 * seconds instead of once per document. Implementation models are built once per stored
 * version (`updatedAt`).
 */
import type { ConfigReadStore } from '../domain/config-ports.ts';
import type { RecordByKind, RecordKind } from '../domain/config-plan.ts';
import type { Direction, FlowRecord, ImplementationRecord, MappingVersionRecord, PartnerRecord, SecretOwner } from '../domain/configuration.ts';
import type { SecretReader } from '../domain/processing-ports.ts';
import { implementationModel } from '../domain/x12-implementation-engine.ts';
import type { Implementation } from '../x12/impl/index.ts';
import type { ConfigView } from './ports.ts';

interface Entry<T> {
  readonly at: number;
  readonly value: Promise<T>;
}

export interface CachedConfigOptions {
  /** How long a record is reused. @default 5000 */
  readonly ttlMs?: number;
  /** Clock in milliseconds (tests). */
  readonly now?: () => number;
}

export class CachedConfigView implements ConfigView {
  private readonly cache = new Map<string, Entry<unknown>>();
  private readonly models = new Map<string, Implementation | null>();
  private readonly ttl: number;
  private readonly now: () => number;

  constructor(
    private readonly store: ConfigReadStore,
    private readonly secretReader: SecretReader,
    opts: CachedConfigOptions = {},
  ) {
    this.ttl = opts.ttlMs ?? 5000;
    this.now = opts.now ?? Date.now;
  }

  private cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.cache.get(key) as Entry<T> | undefined;
    const t = this.now();
    if (hit && t - hit.at < this.ttl) return hit.value;
    const value = load();
    this.cache.set(key, { at: t, value });
    value.catch(() => this.cache.delete(key));
    if (this.cache.size > 10_000) {
      for (const [k, e] of this.cache) if (t - e.at >= this.ttl) this.cache.delete(k);
    }
    return value;
  }

  private record<K extends RecordKind>(organizationId: string, kind: K, id: string): Promise<RecordByKind[K] | null> {
    return this.cached(`${organizationId}|${kind}|${id}`, () => this.store.get(organizationId, kind, id));
  }

  partner(organizationId: string, id: string): Promise<PartnerRecord | null> {
    return this.record(organizationId, 'partner', id);
  }

  async partnerByKey(organizationId: string, key: string): Promise<PartnerRecord | null> {
    const id = await this.cached(`${organizationId}|partnerKey|${key.toLowerCase()}`, () => this.store.partnerIdByKey(organizationId, key));
    return id === null ? null : this.partner(organizationId, id);
  }

  flow(organizationId: string, id: string): Promise<FlowRecord | null> {
    return this.record(organizationId, 'flow', id);
  }

  private flowsOf(organizationId: string): Promise<FlowRecord[]> {
    return this.cached(`${organizationId}|flows`, () => this.store.list(organizationId, 'flow'));
  }

  async currentFlow(organizationId: string, partnerId: string, direction: Direction): Promise<FlowRecord | null> {
    const flows = await this.flowsOf(organizationId);
    return flows.find((f) => f.partnerId === partnerId && f.direction === direction && f.current) ?? null;
  }

  async activeFlow(organizationId: string, partnerId: string, direction: Direction): Promise<FlowRecord | null> {
    const f = await this.currentFlow(organizationId, partnerId, direction);
    return f && f.status === 'active' ? f : null;
  }

  envelope(organizationId: string, id: string): ReturnType<ConfigView['envelope']> {
    return this.record(organizationId, 'envelope', id);
  }

  connection(organizationId: string, id: string): ReturnType<ConfigView['connection']> {
    return this.record(organizationId, 'connection', id);
  }

  webhook(organizationId: string, id: string): ReturnType<ConfigView['webhook']> {
    return this.record(organizationId, 'webhook', id);
  }

  implementation(organizationId: string, id: string): Promise<ImplementationRecord | null> {
    return this.record(organizationId, 'implementation', id);
  }

  async implementationModel(organizationId: string, id: string): Promise<Implementation | null> {
    const rec = await this.implementation(organizationId, id);
    if (!rec) return null;
    const key = `${organizationId}|${id}|${rec.updatedAt}`;
    if (!this.models.has(key)) {
      let model: Implementation | null;
      try {
        model = implementationModel({ ...rec, id: rec.id });
      } catch {
        model = null;
      }
      if (this.models.size > 1000) this.models.clear();
      this.models.set(key, model);
    }
    return this.models.get(key) ?? null;
  }

  mapping(organizationId: string, id: string): ReturnType<ConfigView['mapping']> {
    return this.record(organizationId, 'mapping', id);
  }

  mappingVersion(organizationId: string, mappingId: string, versionNumber: number): Promise<MappingVersionRecord | null> {
    return this.cached(`${organizationId}|mappingVersion|${mappingId}|${versionNumber}`, () => this.store.mappingVersion(organizationId, mappingId, versionNumber));
  }

  source(organizationId: string, id: string): ReturnType<ConfigView['source']> {
    return this.record(organizationId, 'source', id);
  }

  secrets(organizationId: string, ownerKind: SecretOwner, ownerId: string): Promise<Readonly<Record<string, string>>> {
    return this.cached(`${organizationId}|secret|${ownerKind}|${ownerId}`, () => this.secretReader.get(organizationId, ownerKind, ownerId));
  }
}
