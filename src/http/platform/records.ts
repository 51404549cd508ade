/**
 * The records API (contract: "EDI transactions", "Results and artifacts", "Feed", "Logs", and
 * GET /platform/traces/:guid of DESIGN §3), independent of the transport: the HTTP routes
 * (records-routes.ts) and the MCP tools (src/http/mcp) call the same methods with the same
 * query parameters, so both check the same vocabulary, key rules and organization scope.
 *
 * - Lists read the ClickHouse projections (RecordLists), time-ordered; single records read
 *   Cassandra; both present records through the views of src/domain/views.ts.
 * - Every id-taking read is scoped to the caller's organization: an id of another organization,
 *   a malformed id and an absent id answer the same 404.
 * - Key kinds (DESIGN §3): read-only keys read everything; sandbox keys read only the results,
 *   payloads and artifacts a sandbox sink of their organization received (any other answers
 *   404) and get 403 on every other endpoint.
 */
import { mayAccess, type EndpointGroup, type KeyKind } from '../../domain/api-keys.ts';
import type { ConfigReadStore } from '../../domain/config-ports.ts';
import { isWellFormedId } from '../../domain/ids.ts';
import { parseJsonPath, resolveJsonPath, shapeOf } from '../../domain/payload.ts';
import { CONTRACT_RETENTION_SECONDS, agedOut, retentionText, visibleDeliveredAt } from '../../domain/retention.ts';
import type { ArtifactStore, ResultStore, SandboxReceiptStore, TransactionResultsReader, TransactionStore } from '../../domain/processing-ports.ts';
import type { FeedFilters, Position, RecordLists, ResultFilters, TransactionFilters } from '../../domain/records-query.ts';
import {
  type ArtifactPointer,
  type ArtifactRecord,
  type Micros,
  type ResultRecord,
} from '../../domain/records.ts';
import {
  compactResultView,
  compactTransactionListRowView,
  feedListRowView,
  logEntryView,
  resultView,
  traceView,
  type ResultView,
  transactionDetailView,
  transactionListRowView,
} from '../../domain/views.ts';
import { TdxError, errors } from '../../errors.ts';
import type { CursorCodec, CursorScope } from '../middleware/cursor.ts';
import { timestampMicros, type Query } from './operation.ts';
import { recordOperations as ops } from './records-operations.ts';

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

export type { Query } from './operation.ts';

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
const posKey = (p: Position): string => `${p.createdAt}:${p.id}`;

function posOf(key: string): Position | null {
  const i = key.indexOf(':');
  if (i <= 0) return null;
  const createdAt = Number(key.slice(0, i));
  return Number.isSafeInteger(createdAt) ? { createdAt, id: key.slice(i + 1) } : null;
}

/** A timestamp parameter (already checked against its schema) in microseconds. */
function micros(v: string | undefined): Micros | undefined {
  // a bound before 1900 or after 2254 selects what the span's edge selects (domain/records.ts)
  return v === undefined ? undefined : timestampMicros(v);
}

/** Canonical text of filters for a cursor's scope. */
const filtersText = (f: Record<string, unknown>): string => JSON.stringify(Object.entries(f).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)));

/** The contract's retention, or the configured one, in words. */
const kept = (retentionSeconds: number | undefined): string => retentionText(retentionSeconds ?? CONTRACT_RETENTION_SECONDS);

export class RecordsReader {
  private readonly now: () => Micros;

  constructor(
    private readonly deps: RecordsDeps,
    private readonly cursors: CursorCodec,
  ) {
    this.now = deps.now ?? ((): Micros => Date.now() * 1000);
  }

  private notFound(reason: string, what: string, id: string): TdxError {
    return errors.notFound(reason, `No ${what} with id "${id}" in this organization (it may never have existed, or aged out after ${kept(this.deps.retentionSeconds)}).`);
  }

  private gone(reason: 'payload' | 'artifact', text: string): TdxError {
    return errors.notFound(reason, `${text} (document bytes are kept ${kept(this.deps.retentionSeconds)}).`);
  }

  /** Whether a record created at `createdAt` is past the retention (docs/retention.md). */
  private aged(createdAt: Micros, now: Micros = this.now()): boolean {
    const r = this.deps.retentionSeconds;
    return r !== undefined && agedOut(createdAt, now, r);
  }

  /** `deliveredAt` as shown: null once the feed entry that set it aged out. */
  private delivered<T extends { deliveredAt: Micros | null }>(t: T, now: Micros = this.now()): T {
    const r = this.deps.retentionSeconds;
    if (r === undefined || t.deliveredAt === null) return t;
    const shown = visibleDeliveredAt(t.deliveredAt, now, r);
    return shown === t.deliveredAt ? t : { ...t, deliveredAt: shown };
  }

  private access(caller: Caller, group: EndpointGroup): void {
    if (!mayAccess(caller.kind, group)) throw new TdxError('forbidden', `A ${caller.kind} key may not call this endpoint.`);
  }

  private decode(scope: CursorScope, cursor: string | undefined): Position | null {
    if (cursor === undefined) return null;
    const p = posOf(this.cursors.decode(scope, cursor));
    if (!p) throw errors.invalidParameter('cursor', 'Query parameter "cursor" is not valid for this request.');
    return p;
  }

  // --- transactions -------------------------------------------------------------------------

  /** GET /platform/edi_transactions: newest first. */
  async listTransactions(caller: Caller, query: Query): Promise<Record<string, unknown>> {
    this.access(caller, 'transactions');
    const q = ops.listTransactions.parseQuery(query);
    const { direction, incoming, compact, limit, cursor } = q;
    if (direction !== undefined && incoming !== undefined && (direction === 'inbound') !== (incoming === 'true')) {
      throw errors.invalidParameter('incoming', `Query parameters "direction" (${direction}) and "incoming" (${incoming}) disagree: incoming=true is direction=inbound.`);
    }
    const filters: TransactionFilters = {
      direction: direction ?? (incoming === undefined ? undefined : incoming === 'true' ? 'inbound' : 'outbound'),
      transactionSetIdentifier: q.transaction_set_identifier,
      partner: q.partner,
      referencePrefix: q.reference,
      trace: q.trace,
      status: q.status,
      warnings: q.warnings === undefined ? undefined : q.warnings === 'true',
      ackStatus: q.ack_status,
      since: micros(q.since),
      until: micros(q.until),
    };
    const scope: CursorScope = { endpoint: 'edi_transactions', organizationId: caller.organizationId, filters: filtersText({ ...filters, partner: filters.partner?.toLowerCase() }) };
    const before = this.decode(scope, cursor);
    if (filters.since !== undefined && filters.until !== undefined && filters.until <= filters.since) {
      return { ediTransactions: [], pagination: { hasMore: false, nextCursor: null } };
    }
    const page = await this.deps.lists.transactions(caller.organizationId, filters, before, limit);
    const last = page.rows[page.rows.length - 1];
    const now = this.now();
    return {
      ediTransactions: page.rows.map((row) => this.delivered(row, now)).map(compact === 'true' ? compactTransactionListRowView : transactionListRowView),
      pagination: { hasMore: page.more, nextCursor: page.more && last ? this.cursors.encode(scope, posKey(last)) : null },
    };
  }

  /** GET /platform/edi_transactions/:id. */
  async transaction(caller: Caller, id: string): Promise<Record<string, unknown>> {
    this.access(caller, 'transactions');
    const now = this.now();
    const stored = isWellFormedId(id) ? await this.deps.transactions.get(caller.organizationId, id) : null;
    if (!stored || this.aged(stored.createdAt, now)) throw this.notFound('transaction', 'EDI transaction', id);
    const t = this.delivered(stored, now);
    // one read for the transaction's own results and the trace's failures; the whole trace
    // only when none is attributed to it, or to name the earliest of several failures elsewhere
    const own = await this.deps.results.transactionResults(t.organizationId, t.traceGuid, t.id);
    let results = (own?.results ?? []).filter((r) => !this.aged(r.createdAt, now));
    const traceErrors = own?.traceErrors ?? (await this.deps.transactions.traceErrors(t.organizationId, t.traceGuid));
    let traceHasResults = own !== null;
    const elsewhere = t.failed ? [] : traceErrors.filter((e) => e.transactionId !== t.id);
    let whole: ResultRecord[] | null = null;
    if (own === null || elsewhere.length > 1) whole = (await this.deps.results.byTrace(t.organizationId, t.traceGuid)).filter((r) => !this.aged(r.createdAt, now));
    if (own === null && whole) {
      // the whole trace's results when none of them is attributed to any transaction
      traceHasResults = whole.length > 0;
      if (whole.every((r) => r.transactionId === null)) results = whole;
    }
    let errors = traceErrors;
    if (whole && elsewhere.length > 1) {
      const at = new Map(whole.map((r) => [r.id, r.createdAt]));
      const first = [...elsewhere].sort((a, b) => (at.get(a.resultId) ?? Infinity) - (at.get(b.resultId) ?? Infinity) || (a.resultId < b.resultId ? -1 : 1))[0]!;
      errors = [first, ...traceErrors.filter((e) => e !== first)];
    }
    return transactionDetailView({ transaction: t, results, traceHasResults, traceErrors: errors });
  }

  // --- results ------------------------------------------------------------------------------

  /** A result the caller may read, or 404. */
  private async readableResult(caller: Caller, id: string): Promise<ResultRecord> {
    this.access(caller, 'results');
    let r = isWellFormedId(id) ? await this.deps.results.get(caller.organizationId, id) : null;
    if (r && caller.kind === 'sandbox' && !(await this.deps.receipts.receivedResults(caller.organizationId, [r.id])).has(r.id)) r = null;
    if (!r || this.aged(r.createdAt)) throw this.notFound('result', 'result', id);
    return r;
  }

  /**
   * GET /platform/results: newest first. A `status` filter (and a sandbox key's restriction to
   * what its sink received) is sifted over at most `resultsStatusScanLimit` rows per page, in
   * page order; the cursor then points at the last row examined, so a page may hold few or no
   * rows while `hasMore` is true.
   */
  async listResults(caller: Caller, query: Query): Promise<Record<string, unknown>> {
    this.access(caller, 'results');
    const q = ops.listResults.parseQuery(query);
    const filters: ResultFilters = { trace: q.trace, node: q.node };
    const { status, limit, cursor } = q;
    const compact = q.compact === 'true';
    const scope: CursorScope = { endpoint: 'results', organizationId: caller.organizationId, filters: filtersText({ ...filters, status }) };
    const before = this.decode(scope, cursor);
    const sift = status !== undefined || caller.kind === 'sandbox';
    const view = (r: ResultRecord): unknown => (compact ? compactResultView(r) : resultView(r));
    if (!sift) {
      const page = await this.deps.lists.resultsPage(caller.organizationId, filters, before, limit);
      const lastRow = page.rows[page.rows.length - 1];
      return { results: page.rows.map(view), pagination: { hasMore: page.more, nextCursor: page.more && lastRow ? this.cursors.encode(scope, posKey(lastRow)) : null } };
    }
    const scan = Math.max(limit, this.deps.settings.resultsStatusScanLimit);
    const rows = await this.deps.lists.scanResults(caller.organizationId, filters, before, scan + 1);
    const received = caller.kind === 'sandbox' ? await this.deps.receipts.receivedResults(caller.organizationId, rows.slice(0, scan).map((r) => r.id)) : null;
    const kept: Position[] = [];
    let last = -1;
    for (let i = 0; i < Math.min(scan, rows.length) && kept.length < limit; i++) {
      const r = rows[i]!;
      last = i;
      if ((status === undefined || r.status === status) && (received === null || received.has(r.id))) kept.push(r);
    }
    const hasMore = last >= 0 && last < rows.length - 1;
    const records = await this.deps.lists.results(caller.organizationId, kept);
    return {
      results: records.map(view),
      pagination: { hasMore, nextCursor: hasMore ? this.cursors.encode(scope, posKey(rows[last]!)) : null },
    };
  }

  /** GET /platform/results/:id. */
  async result(caller: Caller, id: string): Promise<ResultView> {
    return resultView(await this.readableResult(caller, id));
  }

  /**
   * GET /platform/results/:id/payload. Without `jsonPath` or `keysOnly` the stored document is
   * streamed as it is (`stream`); otherwise it is read and parsed, and the selection answered
   * as a value. `maxBytes` (the MCP tool's limit) refuses a payload larger than it.
   */
  async payload(caller: Caller, id: string, query: Query, maxBytes?: number): Promise<PayloadAnswer> {
    const q = ops.payload.parseQuery(query);
    const jsonPath = q.jsonPath;
    const keysOnly = q.keysOnly === 'true';
    // the schema's pattern and parseJsonPath agree: a path of one or more non-empty keys
    const segments = jsonPath === undefined ? null : parseJsonPath(jsonPath);
    if (jsonPath !== undefined && segments === null) throw ops.payload.parameters[1].refuse(jsonPath);
    const r = await this.readableResult(caller, id);
    let format: 'json' | 'edi' | 'error';
    let whole: unknown;
    if (r.status === 'error') {
      format = 'error';
      whole = typeof r.detail.errorMessage === 'string' ? r.detail.errorMessage : '';
    } else {
      if (!r.payload) throw errors.notFound('payload', `Result "${id}" kept no payload: its step only moved the document on.`);
      const artifact = await this.deps.artifacts.get(caller.organizationId, r.payload.artifactId);
      const payloadGone = (): TdxError => this.gone('payload', `The payload of result "${id}" is no longer stored`);
      if (!artifact || this.aged(artifact.createdAt)) throw payloadGone();
      format = r.payload.format;
      const chunks = await this.firstChunk(artifact, payloadGone);
      if (segments === null && !keysOnly) {
        if (maxBytes !== undefined && artifact.size > maxBytes) throw tooLarge(id, artifact.size, maxBytes);
        return { kind: 'stream', format, size: artifact.size, chunks };
      }
      const parts: Buffer[] = [];
      for await (const c of chunks) parts.push(c);
      const text = Buffer.concat(parts).toString('utf8');
      if (format === 'edi') whole = text;
      else {
        try {
          whole = JSON.parse(text) as unknown;
        } catch {
          throw new TdxError('internal_error', `The stored payload of result ${id} is not JSON.`);
        }
      }
    }
    let contents = whole;
    if (segments !== null) {
      contents = resolveJsonPath(whole, segments);
      if (contents === undefined) throw errors.notFound('payload', `jsonPath "${jsonPath}" does not resolve in the payload of result "${id}".`);
    }
    if (keysOnly) contents = shapeOf(contents);
    const body: Record<string, unknown> = { format, contents };
    if (jsonPath !== undefined) body['jsonPath'] = jsonPath;
    if (maxBytes !== undefined) {
      const size = Buffer.byteLength(JSON.stringify(contents) ?? '');
      if (size > maxBytes) throw tooLarge(id, size, maxBytes);
    }
    return { kind: 'value', body };
  }

  /**
   * The chunks of an artifact with the first one read ahead, so an artifact whose bytes are
   * gone answers 404 (`missing`) before anything is sent.
   */
  private async firstChunk(a: ArtifactRecord, missing: () => TdxError): Promise<AsyncIterable<Buffer>> {
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

  // --- artifacts ----------------------------------------------------------------------------

  /** GET /platform/artifacts/:id: the record and its bytes. */
  async artifact(caller: Caller, id: string): Promise<ArtifactAnswer> {
    this.access(caller, 'artifacts');
    let a = isWellFormedId(id) ? await this.deps.artifacts.get(caller.organizationId, id) : null;
    if (a && caller.kind === 'sandbox' && !(await this.deps.receipts.receivedArtifact(caller.organizationId, a.id))) a = null;
    if (!a || this.aged(a.createdAt)) throw this.notFound('artifact', 'artifact', id);
    const chunks = await this.firstChunk(a, () => this.gone('artifact', `The file of artifact "${id}" is no longer available`));
    return { record: a, chunks };
  }

  // --- feed ---------------------------------------------------------------------------------

  /**
   * GET /platform/feed_entries: oldest first, withholding every entry created after
   * min(now - feedVisibilityLagMs, watermark). The watermark is how far the feed sequencer has
   * inserted (every entry at or before it is readable, since entries get their createdAt in
   * insertion order), so a reader following nextCursor never passes an entry that is not
   * readable yet, however far the materializer falls behind.
   */
  async feed(caller: Caller, query: Query): Promise<Record<string, unknown>> {
    this.access(caller, 'feed');
    const q = ops.feed.parseQuery(query);
    const filters: FeedFilters = { partner: q.partner, direction: q.direction, status: q.status, trace: q.trace };
    const since = micros(q.since) ?? null;
    const { limit, cursor } = q;
    // `since` only places the start: a cursor carries on from its position whatever `since` says
    const scope: CursorScope = { endpoint: 'feed_entries', organizationId: caller.organizationId, filters: filtersText({ ...filters, partner: filters.partner?.toLowerCase() }) };
    const after = this.decode(scope, cursor);
    const watermark = await this.deps.lists.feedWatermark();
    const bound = Math.min(this.now() - this.deps.settings.feedVisibilityLagMs * 1000, watermark);
    const page = await this.deps.lists.feed(caller.organizationId, filters, after, after ? null : since, bound, limit);
    const last = page.rows[page.rows.length - 1];
    const position: Position | null = last ?? after ?? (since !== null ? { createdAt: since, id: '' } : null);
    return {
      feedEntries: page.rows.map(feedListRowView),
      pagination: { hasMore: page.more, nextCursor: position ? this.cursors.encode(scope, posKey(position)) : null },
    };
  }

  // --- logs ---------------------------------------------------------------------------------

  /** GET /platform/logs: one trace, oldest first, entries younger than logVisibilityLagMs withheld. */
  async logs(caller: Caller, query: Query): Promise<Record<string, unknown>> {
    this.access(caller, 'logs');
    const { trace, level, since: sinceText, limit, cursor } = ops.logs.parseQuery(query);
    const since = micros(sinceText) ?? null;
    const scope: CursorScope = { endpoint: 'logs', organizationId: caller.organizationId, filters: filtersText({ trace, level }) };
    const after = this.decode(scope, cursor);
    const bound = this.now() - this.deps.settings.logVisibilityLagMs * 1000;
    const page = await this.deps.lists.logs(caller.organizationId, trace, level ?? null, after, after ? null : since, bound, limit);
    const last = page.rows[page.rows.length - 1];
    return {
      logs: page.rows.map(logEntryView),
      pagination: { hasMore: page.more, nextCursor: page.more && last ? this.cursors.encode(scope, posKey(last)) : null },
    };
  }

  // --- traces -------------------------------------------------------------------------------

  /** GET /platform/traces/:guid (DESIGN §3). */
  async trace(caller: Caller, guid: string): Promise<Record<string, unknown>> {
    this.access(caller, 'traces');
    if (!isWellFormedId(guid)) throw this.notFound('trace', 'trace', guid);
    const org = caller.organizationId;
    const now = this.now();
    const [allTransactions, allResults] = await Promise.all([this.deps.transactions.byTrace(org, guid), this.deps.results.byTrace(org, guid)]);
    const transactions = allTransactions.filter((t) => !this.aged(t.createdAt, now)).map((t) => this.delivered(t, now));
    const results = allResults.filter((r) => !this.aged(r.createdAt, now));
    if (transactions.length === 0 && results.length === 0) throw this.notFound('trace', 'trace', guid);
    // each artifact once, with the result and node that produced it (its record names them)
    const pointers = new Map<string, ArtifactPointer>();
    for (const r of results) for (const a of r.detail.artifacts ?? []) if (!pointers.has(a.id)) pointers.set(a.id, a);
    const records = await Promise.all([...pointers.keys()].map(async (id) => ((a) => (a && !this.aged(a.createdAt, now) ? a : null))(await this.deps.artifacts.get(org, id))));
    const producedAt = new Map(results.map((r) => [r.id, r.createdAt]));
    const artifacts = [...pointers.values()]
      .map((p, i) => {
        const rec = records[i];
        // an artifact whose record aged out is named with the first result that points to it
        const first = results.find((x) => (x.detail.artifacts ?? []).some((a) => a.id === p.id))!;
        const resultId = rec?.resultId ?? first.id;
        return { id: p.id, usage: p.usage, contentType: p.contentType, filename: p.filename, resultId, nodeName: rec?.nodeName ?? first.nodeName, at: rec?.createdAt ?? producedAt.get(resultId) ?? 0 };
      })
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
      .map(({ at: _at, ...a }) => a);
    const flowId = transactions.find((t) => t.flowId !== null)?.flowId ?? results.find((r) => r.flowId !== null)?.flowId ?? null;
    const flow = flowId ? await this.deps.config.get(org, 'flow', flowId) : null;
    return traceView({
      traceGuid: guid,
      transactions,
      results,
      artifacts,
      flow: flow ? { id: flow.id, name: flow.name, versionNumber: flow.versionNumber, direction: flow.direction } : null,
    });
  }
}

function tooLarge(id: string, size: number, max: number): TdxError {
  return new TdxError(
    'payload_too_large',
    `The payload of result "${id}" is ${size} bytes, over the ${Math.floor(max / 1024)} KB this tool returns: ask for part of it with jsonPath (a dot-separated path, such as "heading.0"), or for its shape with keysOnly=true.`,
  );
}

