/**
 * What every resource of the records API shares (./transactions.ts, ./results.ts,
 * ./artifacts.ts, ./feed.ts, ./logs.ts, ./traces.ts): who is asking and what the reader reads
 * from, the cursor position and the canonical filters a cursor is scoped to, and the
 * `RecordsContext` every resource's reads go through for authorisation by key kind, retention
 * (an aged record answers as an absent one, `deliveredAt` hidden once its feed entry aged out),
 * the answer of an absent record, cursor decoding and the read-ahead of stored bytes.
 */
import { mayAccess, type EndpointGroup, type KeyKind } from '../../../domain/api-keys.ts';
import type { ConfigReadStore } from '../../../domain/config-ports.ts';
import { CONTRACT_RETENTION_SECONDS, agedOut, retentionText, visibleDeliveredAt } from '../../../domain/retention.ts';
import type { ArtifactStore, ResultStore, SandboxReceiptStore, TransactionResultsReader, TransactionStore } from '../../../domain/processing-ports.ts';
import type { Position, RecordLists } from '../../../domain/records-query.ts';
import type { ArtifactRecord, Micros } from '../../../domain/records.ts';
import { TdxError, errors } from '../../../errors.ts';
import type { CursorCodec, CursorScope } from '../../middleware/cursor.ts';
import { timestampMicros } from '../operation.ts';

/** Who is asking: the key's organization and kind. */
export interface Caller {
  readonly organizationId: string;
  readonly kind: KeyKind;
}

export interface RecordsSettings {
  /** Feed entries younger than this are withheld (config.api.feedVisibilityLagMs). */
  readonly feedVisibilityLagMs: number;
  /** Log entries younger than this are withheld (config.api.logVisibilityLagMs). */
  readonly logVisibilityLagMs: number;
  /** Rows a results page examines when it sifts (config.api.resultsStatusScanLimit). */
  readonly resultsStatusScanLimit: number;
}

export interface RecordsDeps {
  readonly transactions: Pick<TransactionStore, 'get' | 'byTrace' | 'traceErrors'>;
  readonly results: Pick<ResultStore, 'get' | 'byTrace'> & TransactionResultsReader;
  readonly artifacts: Pick<ArtifactStore, 'get' | 'chunks'>;
  readonly lists: RecordLists;
  readonly receipts: Pick<SandboxReceiptStore, 'receivedResults' | 'receivedArtifact'>;
  readonly config: Pick<ConfigReadStore, 'get'>;
  readonly settings: RecordsSettings;
  /** Clock in microseconds (injectable for tests). */
  readonly now?: () => Micros;
  /**
   * Retention of the records in seconds (config.cassandra.retentionSeconds): a record older
   * answers as an absent one even before the stores removed it, and `deliveredAt` reads null
   * once its feed entry aged out (docs/retention.md). Absent: no cut-off.
   */
  readonly retentionSeconds?: number;
}

export type { Query } from '../operation.ts';

/** A payload answer: a value to render, or the stored document to stream. */
export type PayloadAnswer =
  | { readonly kind: 'value'; readonly body: Record<string, unknown> }
  | { readonly kind: 'stream'; readonly format: 'json' | 'edi'; readonly size: number; readonly chunks: AsyncIterable<Buffer> };

/** An artifact to stream: its record and its bytes (the first chunk already read, so a missing file answers 404). */
export interface ArtifactAnswer {
  readonly record: ArtifactRecord;
  readonly chunks: AsyncIterable<Buffer>;
}


/** `<createdAt>:<id>` of a cursor. */
export const posKey = (p: Position): string => `${p.createdAt}:${p.id}`;

function posOf(key: string): Position | null {
  const i = key.indexOf(':');
  if (i <= 0) return null;
  const createdAt = Number(key.slice(0, i));
  return Number.isSafeInteger(createdAt) ? { createdAt, id: key.slice(i + 1) } : null;
}

/** A timestamp parameter (already checked against its schema) in microseconds. */
export function micros(v: string | undefined): Micros | undefined {
  // a bound before 1900 or after 2254 selects what the span's edge selects (domain/records.ts)
  return v === undefined ? undefined : timestampMicros(v);
}

/** Canonical text of filters for a cursor's scope. */
export const filtersText = (f: Record<string, unknown>): string => JSON.stringify(Object.entries(f).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)));

/** The contract's retention, or the configured one, in words. */
const kept = (retentionSeconds: number | undefined): string => retentionText(retentionSeconds ?? CONTRACT_RETENTION_SECONDS);

export class RecordsContext {
  readonly now: () => Micros;

  constructor(
    readonly deps: RecordsDeps,
    readonly cursors: CursorCodec,
  ) {
    this.now = deps.now ?? ((): Micros => Date.now() * 1000);
  }

  notFound(reason: string, what: string, id: string): TdxError {
    return errors.notFound(reason, `No ${what} with id "${id}" in this organization (it may never have existed, or aged out after ${kept(this.deps.retentionSeconds)}).`);
  }

  gone(reason: 'payload' | 'artifact', text: string): TdxError {
    return errors.notFound(reason, `${text} (document bytes are kept ${kept(this.deps.retentionSeconds)}).`);
  }

  /** Whether a record created at `createdAt` is past the retention (docs/retention.md). */
  aged(createdAt: Micros, now: Micros = this.now()): boolean {
    const r = this.deps.retentionSeconds;
    return r !== undefined && agedOut(createdAt, now, r);
  }

  /** `deliveredAt` as shown: null once the feed entry that set it aged out. */
  delivered<T extends { deliveredAt: Micros | null }>(t: T, now: Micros = this.now()): T {
    const r = this.deps.retentionSeconds;
    if (r === undefined || t.deliveredAt === null) return t;
    const shown = visibleDeliveredAt(t.deliveredAt, now, r);
    return shown === t.deliveredAt ? t : { ...t, deliveredAt: shown };
  }

  access(caller: Caller, group: EndpointGroup): void {
    if (!mayAccess(caller.kind, group)) throw new TdxError('forbidden', `A ${caller.kind} key may not call this endpoint.`);
  }

  decode(scope: CursorScope, cursor: string | undefined): Position | null {
    if (cursor === undefined) return null;
    const p = posOf(this.cursors.decode(scope, cursor));
    if (!p) throw errors.invalidParameter('cursor', 'Query parameter "cursor" is not valid for this request.');
    return p;
  }

  /**
   * The chunks of an artifact with the first one read ahead, so an artifact whose bytes are
   * gone answers 404 (`missing`) before anything is sent.
   */
  async firstChunk(a: ArtifactRecord, missing: () => TdxError): Promise<AsyncIterable<Buffer>> {
    const it = this.deps.artifacts.chunks(a)[Symbol.asyncIterator]();
    let first: IteratorResult<Buffer>;
    try {
      first = await it.next();
    } catch (err) {
      if (err instanceof TdxError && err.code === 'not_found') throw missing();
      throw err;
    }
    return {
      [Symbol.asyncIterator]: (): AsyncIterator<Buffer> => {
        let started = false;
        return {
          next: async (): Promise<IteratorResult<Buffer>> => {
            if (!started) {
              started = true;
              return first;
            }
            return it.next();
          },
          return: async (): Promise<IteratorResult<Buffer>> => (it.return ? it.return() : { done: true, value: undefined }),
        };
      },
    };
  }
}
