/**
 * Feed entry, version 1 (topic `feed`, PUBLIC: docs/topics.md documents it for outside
 * consumers). One message per feed entry (contract: Feed entry); the materializer also writes
 * it to the ClickHouse `feed_entries` table that GET /platform/feed_entries reads.
 *
 *   FeedEntry = {
 *     id             string           ; entry id, deterministic from the result it reports
 *     organizationId string
 *     direction      "inbound" | "outbound"   ; the document's direction
 *     status         "success" | "error"
 *     partnerKey     string
 *     traceGuid      string
 *     resultId       string           ; the result to fetch
 *     detail         string           ; the full result object as JSON text (identifiers, never bytes)
 *     createdAt      timestamp-micros ; deterministic: a republished entry keeps id and createdAt
 *   }
 *
 * Delivery is at least once: a consumer deduplicates on `id`.
 */
import { defineCodec, oneOf, timestampMicros, type Codec, type WriterTypes } from './codec.ts';
import { DIRECTIONS, type Direction } from './stage.v1.ts';
import { RESULT_STATUSES, type ResultStatus } from './result-event.v1.ts';

export interface FeedEntry {
  readonly id: string;
  readonly organizationId: string;
  readonly direction: Direction;
  readonly status: ResultStatus;
  readonly partnerKey: string;
  readonly traceGuid: string;
  readonly resultId: string;
  /** JSON text of the embedded result object. */
  readonly detail: string;
  readonly createdAt: number;
}

export const schema = {
  type: 'record',
  name: 'FeedEntry',
  namespace: 'tdx.feed',
  doc: 'One feed entry: a deliverable document or an error of a partner flow. Key = trace GUID. Entries are append-only; deduplicate on id.',
  fields: [
    { name: 'id', type: 'string', doc: 'entry id' },
    { name: 'organizationId', type: 'string', doc: 'organization the entry belongs to' },
    { name: 'direction', type: 'string', doc: 'inbound or outbound (the document direction)' },
    { name: 'status', type: 'string', doc: 'success or error' },
    { name: 'partnerKey', type: 'string' },
    { name: 'traceGuid', type: 'string' },
    { name: 'resultId', type: 'string', doc: 'the result to fetch with GET /platform/results/:id' },
    { name: 'detail', type: 'string', doc: 'the full result object as JSON text' },
    { name: 'createdAt', type: timestampMicros, doc: 'microseconds since the Unix epoch, UTC' },
  ],
} as const;

export const codec: Codec<FeedEntry> = defineCodec<FeedEntry>('feed-entry.v1', schema, (m) =>
  oneOf('direction', m.direction, DIRECTIONS) ?? oneOf('status', m.status, RESULT_STATUSES),
);

export const encode = (m: FeedEntry, schemaId: number): Buffer => codec.encode(m, schemaId);
export const decode = (buf: Uint8Array, writers?: WriterTypes): FeedEntry => codec.decode(buf, writers);
