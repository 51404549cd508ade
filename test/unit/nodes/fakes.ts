/**
 * In-memory stand-ins for the ports node adapters are built with (no services): what was
 * written and produced is kept for the test to read.
 */
import { createHash } from 'node:crypto';
import type { ArtifactRecord, ResultRecord } from '../../../src/domain/records.ts';
import type { ArtifactStore, StoredBytes } from '../../../src/domain/processing-ports.ts';
import type { ConfigView, NodeDeps, OutgoingMessage } from '../../../src/nodes/ports.ts';
import { createLogger } from '../../../src/logger.ts';
import { loadConfig } from '../../../src/config.ts';

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
  put(record: ArtifactRecord, bytes: Uint8Array): Promise<StoredBytes> {
    this.blobs.set(record.blobId, Buffer.from(bytes));
    this.rows.set(record.id, { ...record, size: bytes.length });
    return Promise.resolve({ blobId: record.blobId, size: bytes.length, sha256: record.sha256 });
  }
  async putStream(record: ArtifactRecord, chunks: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }> {
    const parts: Buffer[] = [];
    for await (const c of chunks) parts.push(Buffer.from(c));
    const all = Buffer.concat(parts);
    const sha256 = createHash('sha256').update(all).digest('hex');
    this.blobs.set(record.blobId, all);
    this.rows.set(record.id, { ...record, size: all.length, sha256 });
    return { size: all.length, sha256 };
  }
  alias(record: ArtifactRecord, _source?: StoredBytes): Promise<void> {
    this.rows.set(record.id, record);
    return Promise.resolve();
  }
  get(_org: string, id: string): Promise<ArtifactRecord | null> {
    return Promise.resolve(this.rows.get(id) ?? null);
  }
  chunks(record: ArtifactRecord): AsyncIterable<Buffer> {
    const blob = this.blobs.get(record.blobId) ?? Buffer.alloc(0);
    return (async function* () {
      yield await Promise.resolve(blob);
    })();
  }
  read(record: ArtifactRecord): Promise<Buffer> {
    return Promise.resolve(this.blobs.get(record.blobId) ?? Buffer.alloc(0));
  }
}

export interface Recorded {
  readonly deps: NodeDeps;
  readonly artifacts: MemoryArtifacts;
  readonly results: ResultRecord[];
  readonly produced: OutgoingMessage[];
  /** Makes the next `n` result writes fail (a store outage). */
  failResultWrites(n: number): void;
}

const noConfig: ConfigView = {
  partner: () => Promise.resolve(null),
  partnerByKey: () => Promise.resolve(null),
  flow: () => Promise.resolve(null),
  activeFlow: () => Promise.resolve(null),
  currentFlow: () => Promise.resolve(null),
  envelope: () => Promise.resolve(null),
  connection: () => Promise.resolve(null),
  webhook: () => Promise.resolve(null),
  implementation: () => Promise.resolve(null),
  implementationModel: () => Promise.resolve(null),
  mapping: () => Promise.resolve(null),
  mappingVersion: () => Promise.resolve(null),
  source: () => Promise.resolve(null),
  secrets: () => Promise.resolve({}),
};

export function recordingDeps(config: Partial<ConfigView> = {}, now: () => number = () => Date.now() * 1000): Recorded {
  const artifacts = new MemoryArtifacts();
  const results: ResultRecord[] = [];
  const produced: OutgoingMessage[] = [];
  const clocks = new Map<string, number>();
  let failing = 0;
  const deps: NodeDeps = {
    stores: {
      artifacts,
      results: {
        put: (rs) => {
          if (failing > 0) {
            failing--;
            return Promise.reject(new Error('store unavailable'));
          }
          results.push(...rs);
          return Promise.resolve();
        },
        get: (_o, id) => Promise.resolve(results.find((r) => r.id === id) ?? null),
        byTrace: (_o, t) => Promise.resolve(results.filter((r) => r.traceGuid === t)),
        byTransaction: () => Promise.resolve([]),
      },
      transactions: {
        record: () => Promise.resolve(),
        update: () => Promise.resolve(),
        get: () => Promise.resolve(null),
        addResend: () => Promise.resolve(),
        byTrace: () => Promise.resolve([]),
        recordTraceError: () => Promise.resolve(),
        traceErrors: () => Promise.resolve([]),
        recordSightings: () => Promise.resolve(),
        sightings: () => Promise.resolve([]),
        outboundSet: () => Promise.resolve(),
        outboundSets: () => Promise.resolve([]),
      },
      controlNumbers: { take: () => Promise.resolve(1), takeMany: (_o, _s, owners) => Promise.resolve(new Map(owners.map((o, i) => [o, i + 1]))) },
      feed: { get: () => Promise.resolve(new Map()), put: () => Promise.resolve() },
    },
    config: { ...noConfig, ...config },
    ledger: {
      clocks: (items, at) => {
        for (const { id } of items) if (!clocks.has(id)) clocks.set(id, at);
        return Promise.resolve(new Map(items.map(({ id }) => [id, clocks.get(id)!])));
      },
      record: (entries) => {
        for (const e of entries) if (!clocks.has(e.item.id)) clocks.set(e.item.id, e.at);
        return Promise.resolve();
      },
    },
    emitter: {
      produce: (ms) => {
        produced.push(...ms);
        return Promise.resolve();
      },
      encode: (_t, v) => Buffer.from(JSON.stringify(v)),
    },
    logger: createLogger({ ...loadConfig({}), logLevel: 'silent' }),
    wallClock: now,
  };
  return { deps, artifacts, results, produced, failResultWrites: (n) => void (failing = n) };
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
