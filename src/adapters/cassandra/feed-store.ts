/**
 * The feed sequencer's record of each entry's createdAt (FeedStore), so a repeated request keeps
 * its first position. The entries of a trace share a partition (`proc_trace_feed_entries`,
 * migrations/0160): a batch of the sequencer reads and writes a partition per trace, not one
 * per entry.
 *
 * Entries sequenced before that table existed are in `proc_feed_entries` (a partition per
 * entry). The ids a trace's partition lacks are looked up there while it holds any row, checked
 * on first use and every ten minutes after: an upgraded installation keeps the createdAt of
 * every entry it sequenced before, and a new one never reads the old table.
 */
import type { Client } from 'cassandra-driver';
import type { FeedEntryKey, FeedStore } from '../../domain/processing-ports.ts';
import type { FeedEntryRecord } from '../../domain/records.ts';
import { long, num, str, Ttl, type StoreRetention } from './cells.ts';
import { guardStore } from './guard.ts';
import { readIn, writeGrouped } from './grouped.ts';

const FIELDS = 'id, created_at, direction, status, partner_key, trace_guid, result_id, detail';

/** How long an answer that the old table still holds rows is trusted. */
const LEGACY_RECHECK_MS = 10 * 60_000;

export class CassandraFeedStore implements FeedStore {
  private readonly ttl: Ttl;
  private legacy: { holdsRows: boolean; checkedAt: number } | undefined;

  constructor(
    private readonly client: Client,
    retention?: StoreRetention,
  ) {
    this.ttl = new Ttl(retention);
  }

  get(organizationId: string, keys: readonly FeedEntryKey[]): Promise<Map<string, FeedEntryRecord>> {
    return guardStore('feed entries read', async () => {
      const out = new Map<string, FeedEntryRecord>();
      if (keys.length === 0) return out;
      const byTrace = new Map<string, string[]>();
      for (const k of keys) {
        let ids = byTrace.get(k.traceGuid);
        if (!ids) byTrace.set(k.traceGuid, (ids = []));
        ids.push(k.id);
      }
      const reads = await Promise.all(
        [...byTrace].map(([trace, ids]) => readIn(this.client, `SELECT ${FIELDS} FROM proc_trace_feed_entries WHERE org_id = ? AND trace_guid = ? AND id IN ?`, [organizationId, trace], ids)),
      );
      for (const rows of reads) for (const row of rows) out.set(str(row.get('id')), entryOf(organizationId, row));
      const missing = keys.filter((k) => !out.has(k.id)).map((k) => k.id);
      if (missing.length > 0 && (await this.legacyHoldsRows())) {
        const rows = await readIn(this.client, `SELECT ${FIELDS} FROM proc_feed_entries WHERE org_id = ? AND id IN ?`, [organizationId], missing);
        for (const row of rows) out.set(str(row.get('id')), entryOf(organizationId, row));
      }
      return out;
    });
  }

  put(entries: readonly FeedEntryRecord[]): Promise<void> {
    const query = `INSERT INTO proc_trace_feed_entries (org_id, trace_guid, id, created_at, direction, status, partner_key, result_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)${this.ttl.clause}`;
    return guardStore('feed entries write', () =>
      writeGrouped(
        this.client,
        entries.map((e) => ({
          query,
          params: [e.organizationId, e.traceGuid, e.id, long(e.createdAt), e.direction, e.status, e.partnerKey, e.resultId, e.detail, ...this.ttl.params(e.createdAt)],
          partition: `${e.organizationId}|${e.traceGuid}`,
        })),
      ),
    );
  }

  /** Whether proc_feed_entries (entries sequenced before proc_trace_feed_entries) holds any row. */
  private async legacyHoldsRows(): Promise<boolean> {
    const now = Date.now();
    // once empty it stays empty: nothing writes it any more
    if (this.legacy && (!this.legacy.holdsRows || now - this.legacy.checkedAt < LEGACY_RECHECK_MS)) return this.legacy.holdsRows;
    const rs = await this.client.execute('SELECT id FROM proc_feed_entries LIMIT 1', [], { prepare: true });
    this.legacy = { holdsRows: rs.rowLength > 0, checkedAt: now };
    return this.legacy.holdsRows;
  }
}

function entryOf(organizationId: string, row: { get(name: string): unknown }): FeedEntryRecord {
  return {
    id: str(row.get('id')),
    organizationId,
    createdAt: num(row.get('created_at')),
    direction: str(row.get('direction')) === 'outbound' ? 'outbound' : 'inbound',
    status: str(row.get('status')) === 'error' ? 'error' : 'success',
    partnerKey: str(row.get('partner_key')),
    traceGuid: str(row.get('trace_guid')),
    resultId: str(row.get('result_id')),
    detail: str(row.get('detail')),
  };
}
