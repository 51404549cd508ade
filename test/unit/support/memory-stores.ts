/* eslint-disable @typescript-eslint/require-await -- fakes implement async ports synchronously */
/**
 * In-memory fakes of the processing ports (src/domain/processing-ports.ts, src/nodes/ports.ts),
 * for unit tests of node adapters and steps: same contracts as the Cassandra stores, no server.
 */
import { createHash } from 'node:crypto';
import { TdxError } from '../../../src/errors.ts';
import type {
  ArtifactStore,
  StoredBytes,
  ControlNumberStore,
  FeedEntryKey,
  FeedStore,
  InterchangeKey,
  InterchangeSighting,
  OutboundSetEntry,
  OutboundSetKey,
  ResultStore,
  TraceError,
  TransactionStore,
} from '../../../src/domain/processing-ports.ts';
import type { ArtifactRecord, FeedEntryRecord, Micros, ResultRecord, StoredTransaction, TransactionUpdate } from '../../../src/domain/records.ts';
import type { ConfigView, Emitter, NodeDeps, OutgoingMessage, StepLedger, WorkRef } from '../../../src/nodes/ports.ts';
import type { ConnectionRecord, Direction, EnvelopeRecord, FlowRecord, ImplementationRecord, MappingRecord, MappingVersionRecord, PartnerRecord, SourceRecord, WebhookRecord } from '../../../src/domain/configuration.ts';
import { implementationModel } from '../../../src/domain/x12-implementation-engine.ts';
import type { Implementation } from '../../../src/x12/impl/index.ts';
import { createLogger } from '../../../src/logger.ts';

export class MemoryArtifacts implements ArtifactStore {
  async putAll(items: readonly { readonly record: ArtifactRecord; readonly bytes: Uint8Array }[]): Promise<StoredBytes[]> {
    const out: StoredBytes[] = [];
    for (const { record, bytes } of items) out.push(await this.put(record, bytes));
    return out;
  }
  async aliasAll(items: readonly { readonly record: ArtifactRecord; readonly source?: StoredBytes | undefined }[]): Promise<void> {
    for (const { record, source } of items) await this.alias(record, source);
  }
  readonly rows = new Map<string, ArtifactRecord>();
  readonly blobs = new Map<string, Buffer>();
  /** Aliases written without a read of their source (the caller gave it). */
  aliasesGivenTheirSource = 0;
  async put(record: ArtifactRecord, bytes: Uint8Array): Promise<StoredBytes> {
    const b = Buffer.from(bytes);
    this.blobs.set(record.blobId, b);
    const sha256 = createHash('sha256').update(b).digest('hex');
    this.rows.set(`${record.organizationId}|${record.id}`, { ...record, size: b.length, sha256 });
    return { blobId: record.blobId, size: b.length, sha256 };
  }
  async putStream(record: ArtifactRecord, chunks: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }> {
    const parts: Buffer[] = [];
    for await (const c of chunks) parts.push(Buffer.from(c));
    await this.put(record, Buffer.concat(parts));
    const r = this.rows.get(`${record.organizationId}|${record.id}`)!;
    return { size: r.size, sha256: r.sha256 };
  }
  async alias(record: ArtifactRecord, source?: StoredBytes): Promise<void> {
    if (source) {
      this.aliasesGivenTheirSource++;
      this.rows.set(`${record.organizationId}|${record.id}`, { ...record, blobId: source.blobId, size: source.size, sha256: source.sha256 });
      return;
    }
    const src = this.rows.get(`${record.organizationId}|${record.blobId}`);
    if (!src) throw new TdxError('not_found', `Artifact ${record.blobId} to share bytes with is not stored.`);
    this.rows.set(`${record.organizationId}|${record.id}`, { ...record, blobId: src.blobId, size: src.size, sha256: src.sha256 });
  }
  async get(organizationId: string, id: string): Promise<ArtifactRecord | null> {
    return this.rows.get(`${organizationId}|${id}`) ?? null;
  }
  async *chunks(record: ArtifactRecord): AsyncIterable<Buffer> {
    const b = this.blobs.get(record.blobId);
    if (!b) throw new TdxError('not_found', `The bytes of artifact ${record.id} are no longer available.`);
    // small chunks, to exercise readers that must join them
    for (let i = 0; i < b.length; i += 64) yield b.subarray(i, i + 64);
  }
  async read(record: ArtifactRecord): Promise<Buffer> {
    const b = this.blobs.get(record.blobId);
    if (!b) throw new TdxError('not_found', 'gone');
    return b;
  }
  /** The text of a stored artifact. */
  text(organizationId: string, id: string): string {
    const r = this.rows.get(`${organizationId}|${id}`);
    return r ? (this.blobs.get(r.blobId) ?? Buffer.alloc(0)).toString('utf8') : '';
  }
}

export class MemoryResults implements ResultStore {
  readonly rows = new Map<string, ResultRecord>();
  async put(results: readonly ResultRecord[]): Promise<void> {
    for (const r of results) this.rows.set(`${r.organizationId}|${r.id}`, r);
  }
  async get(organizationId: string, id: string): Promise<ResultRecord | null> {
    return this.rows.get(`${organizationId}|${id}`) ?? null;
  }
  async byTrace(organizationId: string, traceGuid: string): Promise<ResultRecord[]> {
    return [...this.rows.values()].filter((r) => r.organizationId === organizationId && r.traceGuid === traceGuid).sort((a, b) => a.createdAt - b.createdAt);
  }
  async byTransaction(organizationId: string, traceGuid: string, transactionId: string): Promise<ResultRecord[]> {
    return (await this.byTrace(organizationId, traceGuid)).filter((r) => r.transactionId === transactionId);
  }
  all(): ResultRecord[] {
    return [...this.rows.values()].sort((a, b) => a.createdAt - b.createdAt);
  }
}

export class MemoryTransactions implements TransactionStore {
  readonly rows = new Map<string, StoredTransaction>();
  readonly errors = new Map<string, TraceError[]>();
  readonly seen = new Map<string, InterchangeSighting[]>();
  readonly outbound = new Map<string, OutboundSetEntry[]>();
  async record(transactions: readonly StoredTransaction[]): Promise<void> {
    for (const t of transactions) this.rows.set(`${t.organizationId}|${t.id}`, t);
  }
  async update(updates: readonly TransactionUpdate[]): Promise<void> {
    for (const u of updates) {
      const k = `${u.organizationId}|${u.id}`;
      const t = this.rows.get(k);
      if (!t) continue;
      const { roles, organizationId: _o, id: _i, traceGuid: _t, at: _at, ...rest } = u;
      this.rows.set(k, { ...t, ...rest, roles: { ...t.roles, ...(roles ?? {}) } });
    }
  }
  async get(organizationId: string, id: string): Promise<StoredTransaction | null> {
    return this.rows.get(`${organizationId}|${id}`) ?? null;
  }
  readonly resends = new Map<string, Set<string>>();
  async addResend(organizationId: string, id: string, commandId: string, at: Micros): Promise<void> {
    const k = `${organizationId}|${id}`;
    const set = this.resends.get(k) ?? new Set<string>();
    set.add(commandId);
    this.resends.set(k, set);
    const t = this.rows.get(k);
    if (t) this.rows.set(k, { ...t, resendCount: set.size, lastResentAt: at });
  }
  async byTrace(organizationId: string, traceGuid: string): Promise<StoredTransaction[]> {
    return [...this.rows.values()].filter((t) => t.organizationId === organizationId && t.traceGuid === traceGuid).sort((a, b) => a.createdAt - b.createdAt);
  }
  async recordTraceError(organizationId: string, traceGuid: string, error: TraceError): Promise<void> {
    const k = `${organizationId}|${traceGuid}`;
    this.errors.set(k, [...(this.errors.get(k) ?? []).filter((e) => e.resultId !== error.resultId), error]);
  }
  async traceErrors(organizationId: string, traceGuid: string): Promise<TraceError[]> {
    return this.errors.get(`${organizationId}|${traceGuid}`) ?? [];
  }
  private key(k: InterchangeKey): string {
    return [k.organizationId, k.senderQualifier, k.senderExtid, k.interchangeControlNumber, k.usageClass].join('|');
  }
  async recordSightings(sightings: readonly { readonly key: InterchangeKey; readonly sighting: InterchangeSighting }[]): Promise<void> {
    for (const { key, sighting: s } of sightings) {
      const k = this.key(key);
      this.seen.set(k, [...(this.seen.get(k) ?? []).filter((x) => !(x.traceGuid === s.traceGuid && x.interchangeIndex === s.interchangeIndex)), s]);
    }
  }
  async sightings(key: InterchangeKey): Promise<InterchangeSighting[]> {
    return [...(this.seen.get(this.key(key)) ?? [])].sort((a, b) => a.createdAt - b.createdAt);
  }
  async outboundSet(key: OutboundSetKey, setControlNumber: string, transactionId: string, _createdAt: Micros, tracked = false): Promise<void> {
    const k = [key.organizationId, key.sender, key.receiver, key.groupControlNumber].join('|');
    this.outbound.set(k, [...(this.outbound.get(k) ?? []).filter((x) => x.transactionId !== transactionId), { setControlNumber, transactionId, tracked }]);
  }
  async outboundSets(key: OutboundSetKey): Promise<OutboundSetEntry[]> {
    return this.outbound.get([key.organizationId, key.sender, key.receiver, key.groupControlNumber].join('|')) ?? [];
  }
  all(): StoredTransaction[] {
    return [...this.rows.values()].sort((a, b) => a.createdAt - b.createdAt);
  }
}

export class MemoryControlNumbers implements ControlNumberStore {
  readonly counters = new Map<string, number>();
  readonly taken = new Map<string, number>();
  async take(organizationId: string, scope: string, owner: string): Promise<number> {
    const own = `${organizationId}|${owner}|${scope}`;
    const had = this.taken.get(own);
    if (had !== undefined) return had;
    const k = `${organizationId}|${scope}`;
    const v = (this.counters.get(k) ?? 0) + 1;
    this.counters.set(k, v);
    this.taken.set(own, v);
    return v;
  }
  async takeMany(organizationId: string, scope: string, owners: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const o of owners) out.set(o, await this.take(organizationId, scope, o));
    return out;
  }
}

export class MemoryFeed implements FeedStore {
  readonly rows = new Map<string, FeedEntryRecord>();
  async get(organizationId: string, keys: readonly FeedEntryKey[]): Promise<Map<string, FeedEntryRecord>> {
    const out = new Map<string, FeedEntryRecord>();
    for (const { id, traceGuid } of keys) {
      const e = this.rows.get(`${organizationId}|${id}`);
      if (e && e.traceGuid === traceGuid) out.set(id, e);
    }
    return out;
  }
  async put(entries: readonly FeedEntryRecord[]): Promise<void> {
    for (const e of entries) this.rows.set(`${e.organizationId}|${e.id}`, e);
  }
}

export class MemoryLedger implements StepLedger {
  readonly clocksById = new Map<string, Micros>();
  async clocks(items: readonly WorkRef[], now: Micros): Promise<Map<string, Micros>> {
    const out = new Map<string, Micros>();
    for (const { id } of items) {
      if (!this.clocksById.has(id)) this.clocksById.set(id, now);
      out.set(id, this.clocksById.get(id)!);
    }
    return out;
  }
  async record(entries: readonly { readonly item: WorkRef; readonly at: Micros }[]): Promise<void> {
    for (const e of entries) if (!this.clocksById.has(e.item.id)) this.clocksById.set(e.item.id, e.at);
  }
}

/** Collects produced messages, encodes nothing (values kept as given). */
export class MemoryEmitter implements Emitter {
  readonly sent: OutgoingMessage[] = [];
  async produce(messages: readonly OutgoingMessage[]): Promise<void> {
    this.sent.push(...messages);
  }
  encode(topic: string, value: unknown): Buffer {
    return Buffer.from(JSON.stringify({ topic, value }));
  }
  /**
   * The values produced on `topic`; for `events.results`, `events.logs` and
   * `events.transactions`, also the results, log entries and changes carried in
   * `events.records` messages, in the order produced.
   */
  on<T = unknown>(topic: string): T[] {
    const carried = { 'events.results': 'results', 'events.logs': 'logs', 'events.transactions': 'changes' } as const;
    const field = carried[topic as keyof typeof carried] as 'results' | 'logs' | 'changes' | undefined;
    return this.sent.flatMap((m) => (m.topic === topic ? [m.value as T] : field && m.topic === 'events.records' ? ((m.value as Record<typeof field, T[]>)[field] ?? []) : []));
  }
}

export interface MemoryConfig {
  partners?: PartnerRecord[];
  flows?: FlowRecord[];
  envelopes?: EnvelopeRecord[];
  connections?: ConnectionRecord[];
  webhooks?: WebhookRecord[];
  implementations?: ImplementationRecord[];
  mappings?: MappingRecord[];
  mappingVersions?: MappingVersionRecord[];
  sources?: SourceRecord[];
  secrets?: Record<string, Record<string, string>>;
}

export class MemoryConfigView implements ConfigView {
  constructor(private readonly c: MemoryConfig) {}
  async partner(_o: string, id: string) {
    return this.c.partners?.find((p) => p.id === id) ?? null;
  }
  async partnerByKey(_o: string, key: string) {
    return this.c.partners?.find((p) => p.key.toLowerCase() === key.toLowerCase()) ?? null;
  }
  async flow(_o: string, id: string) {
    return this.c.flows?.find((f) => f.id === id) ?? null;
  }
  async currentFlow(_o: string, partnerId: string, direction: Direction) {
    return this.c.flows?.find((f) => f.partnerId === partnerId && f.direction === direction && f.current) ?? null;
  }
  async activeFlow(o: string, partnerId: string, direction: Direction) {
    const f = await this.currentFlow(o, partnerId, direction);
    return f?.status === 'active' ? f : null;
  }
  async envelope(_o: string, id: string) {
    return this.c.envelopes?.find((e) => e.id === id) ?? null;
  }
  async connection(_o: string, id: string) {
    return this.c.connections?.find((e) => e.id === id) ?? null;
  }
  async webhook(_o: string, id: string) {
    return this.c.webhooks?.find((e) => e.id === id) ?? null;
  }
  async implementation(_o: string, id: string) {
    return this.c.implementations?.find((e) => e.id === id) ?? null;
  }
  async implementationModel(o: string, id: string): Promise<Implementation | null> {
    const r = await this.implementation(o, id);
    return r ? implementationModel(r) : null;
  }
  async mapping(_o: string, id: string) {
    return this.c.mappings?.find((e) => e.id === id) ?? null;
  }
  async mappingVersion(_o: string, mappingId: string, n: number) {
    return this.c.mappingVersions?.find((v) => v.mappingId === mappingId && v.versionNumber === n) ?? null;
  }
  async source(_o: string, id: string) {
    return this.c.sources?.find((e) => e.id === id) ?? null;
  }
  async secrets(_o: string, kind: string, id: string) {
    return this.c.secrets?.[`${kind}:${id}`] ?? {};
  }
}

export interface MemoryNodeDeps extends NodeDeps {
  readonly memory: {
    artifacts: MemoryArtifacts;
    results: MemoryResults;
    transactions: MemoryTransactions;
    controlNumbers: MemoryControlNumbers;
    feed: MemoryFeed;
    ledger: MemoryLedger;
    emitter: MemoryEmitter;
    /** Sets the wall clock (microseconds); it moves on by 1 ms per reading. */
    setClock(us: number): void;
  };
}

/** Node deps over in-memory stores, a fixed-step wall clock and the given configuration. */
export function memoryDeps(config: MemoryConfig, extra: Partial<NodeDeps> = {}): MemoryNodeDeps {
  const memory = {
    artifacts: new MemoryArtifacts(),
    results: new MemoryResults(),
    transactions: new MemoryTransactions(),
    controlNumbers: new MemoryControlNumbers(),
    feed: new MemoryFeed(),
    ledger: new MemoryLedger(),
    emitter: new MemoryEmitter(),
  };
  let clock = 1_767_225_600_000_000; // 2026-01-01T00:00:00Z
  const setClock = (us: number): void => {
    clock = us;
  };
  return {
    stores: { artifacts: memory.artifacts, results: memory.results, transactions: memory.transactions, controlNumbers: memory.controlNumbers, feed: memory.feed },
    config: new MemoryConfigView(config),
    ledger: memory.ledger,
    emitter: memory.emitter,
    logger: createLogger({ serviceName: 'test', logLevel: 'silent' }),
    wallClock: () => (clock += 1000),
    memory: { ...memory, setClock },
    ...extra,
  };
}
