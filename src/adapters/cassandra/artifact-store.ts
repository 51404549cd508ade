/**
 * Cassandra implementation of the ArtifactStore port (src/domain/processing-ports.ts): document
 * bytes in chunks (`proc_artifact_chunks`) and the artifact rows that name them
 * (`proc_artifacts`), tables of migrations/0008_processing.cql. Statements are prepared.
 */
import { createHash } from 'node:crypto';
import type { Client } from 'cassandra-driver';
import { TdxError } from '../../errors.ts';
import type { ArtifactStore, StoredBytes } from '../../domain/processing-ports.ts';
import type { ArtifactRecord } from '../../domain/records.ts';
import { guardStore } from './guard.ts';
import { coalescedReads, readIn, writeGrouped, type GroupedStatement } from './grouped.ts';
import { long, num, str, strOrNull, Ttl, type StoreRetention, type Row } from './cells.ts';

/** Largest chunk of document bytes in one row. */
export const CHUNK_BYTES = 512 * 1024;

/** Chunks of `size` bytes as put and putStream write them: one (empty) for no bytes. */
function chunkCountOf(size: number): number {
  return Math.max(1, Math.ceil(size / CHUNK_BYTES));
}

const ARTIFACT_COLUMNS = 'org_id, artifact_id, trace_guid, result_id, node_name, usage, content_type, filename, size, sha256, blob_id, chunk_count, created_at';

function artifactOf(r: Row): ArtifactRecord {
  return {
    organizationId: str(r.get('org_id')),
    id: str(r.get('artifact_id')),
    traceGuid: str(r.get('trace_guid')),
    resultId: str(r.get('result_id')),
    nodeName: str(r.get('node_name')),
    usage: str(r.get('usage')),
    contentType: strOrNull(r.get('content_type')),
    filename: strOrNull(r.get('filename')),
    size: num(r.get('size')),
    sha256: str(r.get('sha256')),
    blobId: str(r.get('blob_id')),
    createdAt: num(r.get('created_at')),
  };
}

export class CassandraArtifactStore implements ArtifactStore {
  private readonly ttl: Ttl;
  /** Records by id, the reads of one turn of the event loop together (grouped.ts). */
  private readonly records: (organizationId: string, id: string) => Promise<ArtifactRecord | undefined>;
  /** The one chunk of small artifacts by blob, likewise. */
  private readonly firstChunks: (group: string, blobId: string) => Promise<Buffer | undefined>;

  constructor(
    private readonly client: Client,
    retention?: StoreRetention,
  ) {
    this.ttl = new Ttl(retention);
    this.records = coalescedReads(async (org, ids) => {
      const out = new Map<string, ArtifactRecord>();
      for (const row of await readIn(this.client, `SELECT ${ARTIFACT_COLUMNS} FROM proc_artifacts WHERE org_id = ? AND artifact_id IN ?`, [org], ids)) {
        const a = artifactOf(row);
        out.set(a.id, a);
      }
      return out;
    });
    this.firstChunks = coalescedReads(async (_group, blobIds) => {
      const out = new Map<string, Buffer>();
      for (const row of await readIn(this.client, 'SELECT blob_id, data FROM proc_artifact_chunks WHERE blob_id IN ? AND chunk_index = 0', [], blobIds)) {
        out.set(str(row.get('blob_id')), row.get('data') as Buffer);
      }
      return out;
    });
  }

  private rowStatement(record: ArtifactRecord, size: number, sha256: string, chunkCount: number): GroupedStatement {
    return {
      query: `INSERT INTO proc_artifacts (${ARTIFACT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${this.ttl.clause}`,
      params: [record.organizationId, record.id, record.traceGuid, record.resultId, record.nodeName, record.usage, record.contentType, record.filename, long(size), sha256, record.blobId, chunkCount, long(record.createdAt), ...this.ttl.params(record.createdAt)],
      partition: `${record.organizationId}|${record.id}`,
    };
  }

  private async writeRow(record: ArtifactRecord, size: number, sha256: string, chunkCount: number): Promise<void> {
    const st = this.rowStatement(record, size, sha256, chunkCount);
    await this.client.execute(st.query, st.params as unknown[], { prepare: true });
  }

  /** The chunk statements of `bytes` under `record.blobId`. */
  private chunkStatements(record: ArtifactRecord, buf: Buffer): GroupedStatement[] {
    const out: GroupedStatement[] = [];
    const query = `INSERT INTO proc_artifact_chunks (blob_id, chunk_index, data) VALUES (?, ?, ?)${this.ttl.clause}`;
    for (let i = 0, n = 0; i < buf.length || n === 0; i += CHUNK_BYTES, n++) {
      out.push({ query, params: [record.blobId, n, buf.subarray(i, Math.min(buf.length, i + CHUNK_BYTES)), ...this.ttl.params(record.createdAt)], partition: record.blobId });
      if (buf.length === 0) break;
    }
    return out;
  }

  putAll(items: readonly { readonly record: ArtifactRecord; readonly bytes: Uint8Array }[]): Promise<StoredBytes[]> {
    if (items.length === 0) return Promise.resolve([]);
    return guardStore('artifact write', async () => {
      const chunks: GroupedStatement[] = [];
      const rows: GroupedStatement[] = [];
      const stored: StoredBytes[] = [];
      for (const { record, bytes } of items) {
        const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const mine = this.chunkStatements(record, buf);
        chunks.push(...mine);
        const sha256 = record.sha256 !== '' ? record.sha256 : createHash('sha256').update(buf).digest('hex');
        rows.push(this.rowStatement(record, buf.length, sha256, mine.length));
        stored.push({ blobId: record.blobId, size: buf.length, sha256 });
      }
      // every chunk before any row: a visible row is complete
      await writeGrouped(this.client, chunks);
      await writeGrouped(this.client, rows);
      return stored;
    });
  }

  aliasAll(items: readonly { readonly record: ArtifactRecord; readonly source?: StoredBytes | undefined }[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return guardStore('artifact alias', async () => {
      const unknown = new Map<string, string[]>();
      for (const { record, source } of items) {
        if (source) continue;
        let ids = unknown.get(record.organizationId);
        if (!ids) unknown.set(record.organizationId, (ids = []));
        ids.push(record.blobId);
      }
      const read = new Map<string, StoredBytes & { chunkCount: number }>();
      for (const [org, ids] of unknown) {
        for (const row of await readIn(this.client, 'SELECT artifact_id, size, sha256, chunk_count, blob_id FROM proc_artifacts WHERE org_id = ? AND artifact_id IN ?', [org], ids)) {
          read.set(`${org}|${str(row.get('artifact_id'))}`, { blobId: str(row.get('blob_id')), size: num(row.get('size')), sha256: str(row.get('sha256')), chunkCount: num(row.get('chunk_count')) });
        }
      }
      const rows = items.map(({ record, source }) => {
        if (source) return this.rowStatement({ ...record, blobId: source.blobId }, source.size, source.sha256, chunkCountOf(source.size));
        const src = read.get(`${record.organizationId}|${record.blobId}`);
        if (!src) throw new TdxError('not_found', `Artifact ${record.blobId} to share bytes with is not stored.`, { reason: 'artifact' });
        return this.rowStatement({ ...record, blobId: src.blobId || record.blobId }, src.size, src.sha256, src.chunkCount);
      });
      await writeGrouped(this.client, rows);
    });
  }

  async put(record: ArtifactRecord, bytes: Uint8Array): Promise<StoredBytes> {
    return (await this.putAll([{ record, bytes }]))[0]!;
  }

  putStream(record: ArtifactRecord, chunks: AsyncIterable<Uint8Array>): Promise<{ size: number; sha256: string }> {
    return guardStore('artifact stream write', async () => {
      const hash = createHash('sha256');
      let size = 0;
      let index = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const inFlight = new Set<Promise<unknown>>();
      const write = async (data: Buffer): Promise<void> => {
        const p = this.client.execute(`INSERT INTO proc_artifact_chunks (blob_id, chunk_index, data) VALUES (?, ?, ?)${this.ttl.clause}`, [record.blobId, index++, data, ...this.ttl.params(record.createdAt)], {
          prepare: true,
        });
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p)).catch(() => undefined);
        if (inFlight.size >= 4) await Promise.race(inFlight);
      };
      for await (const c of chunks) {
        const b = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
        hash.update(b);
        size += b.length;
        pending.push(b);
        pendingBytes += b.length;
        while (pendingBytes >= CHUNK_BYTES) {
          const all = Buffer.concat(pending, pendingBytes);
          await write(Buffer.from(all.subarray(0, CHUNK_BYTES)));
          pending = [all.subarray(CHUNK_BYTES)];
          pendingBytes = all.length - CHUNK_BYTES;
        }
      }
      if (pendingBytes > 0 || index === 0) await write(Buffer.concat(pending, pendingBytes));
      await Promise.all(inFlight);
      const sha256 = hash.digest('hex');
      await this.writeRow(record, size, sha256, index);
      return { size, sha256 };
    });
  }

  alias(record: ArtifactRecord, source?: StoredBytes): Promise<void> {
    return this.aliasAll([{ record, source }]);
  }

  get(organizationId: string, id: string): Promise<ArtifactRecord | null> {
    return guardStore('artifact read', async () => (await this.records(organizationId, id)) ?? null);
  }

  async *chunks(record: ArtifactRecord): AsyncIterable<Buffer> {
    // a record read from the store knows its size, so its chunk count; one built without it
    // (size 0) asks the row
    const count =
      record.size > 0
        ? chunkCountOf(record.size)
        : num(
            (
              await guardStore('artifact chunk count', () =>
                this.client.execute('SELECT chunk_count FROM proc_artifacts WHERE org_id = ? AND artifact_id = ?', [record.organizationId, record.id], { prepare: true }),
              )
            ).first()?.get('chunk_count'),
          );
    if (count === 1) {
      // one chunk (most documents): read with the other small artifacts read at the same time
      const data = await guardStore('artifact chunks read', () => this.firstChunks('', record.blobId));
      if (data === undefined) throw new TdxError('not_found', `The bytes of artifact ${record.id} are no longer available.`, { reason: 'artifact' });
      yield data;
      return;
    }
    let seen = 0;
    // Pages of a few chunks, so a large document never sits whole in memory.
    let pageState: string | undefined;
    do {
      const page = await guardStore('artifact chunks read', () =>
        this.client.execute('SELECT chunk_index, data FROM proc_artifact_chunks WHERE blob_id = ?', [record.blobId], { prepare: true, fetchSize: 4, ...(pageState ? { pageState } : {}) }),
      );
      for (const row of page.rows) {
        if (num(row.get('chunk_index')) !== seen) break;
        seen++;
        yield row.get('data') as Buffer;
      }
      pageState = page.pageState ?? undefined;
    } while (pageState);
    if (seen < count || (count === 0 && seen === 0)) {
      if (count === 0 && seen === 0) return;
      throw new TdxError('not_found', `The bytes of artifact ${record.id} are no longer available.`, { reason: 'artifact' });
    }
  }

  async read(record: ArtifactRecord): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const c of this.chunks(record)) parts.push(c);
    return Buffer.concat(parts);
  }
}
