/**
 * The time-ordered lists of the records API over the ClickHouse projections (RecordLists,
 * src/domain/records-query.ts).
 *
 * How a page stays bounded. Every table is sorted by (org_id, created_at, id) and partitioned by
 * day of created_at, and ClickHouse cannot stop early on an `ORDER BY ... LIMIT` read with FINAL
 * (it reads every part the WHERE leaves). So a page is read in time windows that walk away from
 * its starting point: first a window sized from the row density the previous page of the same
 * list and filters met (an hour when unknown), then windows 16 times longer each, until the page
 * is full; the last window is open-ended. Each window is a primary-key range, so it reads only
 * the parts and granules of those hours, and a page reads about as many rows as it returns (plus
 * the rows its filters drop) however large the table grows. Filters that name one trace read in
 * one go instead, from the trace's own creation time (its UUIDv7) on: a trace holds few rows,
 * the bloom-filter skip index on trace_guid finds their granules, and the results of one trace
 * come from `results_by_trace`, sorted by trace first.
 *
 * FINAL collapses the versions of a row (transactions and results get a row per change) and
 * repeated inserts (feed and log entries keep their sorting key). A row's versions share its
 * created_at and so its day partition, which lets FINAL merge each partition on its own
 * (`do_not_merge_across_partitions_select_final`).
 */
import type {
  FeedFilters,
  FeedReadable,
  FeedListRow,
  ListOrder,
  LogListRow,
  Position,
  RecordLists,
  ResultFilters,
  ResultScanRow,
  TransactionFilters,
  TransactionListRow,
} from '../../domain/records-query.ts';
import type { AcknowledgmentStatus, LogLevel, Micros, ResultRecord, TransactionStatus } from '../../domain/records.ts';
import { retentionCutoff } from '../../domain/retention.ts';
import { LATEST_MICROS, clampMicros } from '../../domain/records.ts';
import { qualify, type ClickHouseHandle } from './client.ts';
import { FEED_NEWEST_PREFIX, FEED_WATERMARK } from './materialize.ts';
import { classifyStoreFailure } from '../transient.ts';

/** First window of a page, in microseconds. */
const FIRST_WINDOW_US = 3_600_000_000;
/** Growth of each next window. */
const WINDOW_GROWTH = 16;
/** Lists (organization and filters) whose row density is remembered. */
const DENSITY_KEYS = 10_000;

type Params = Record<string, string | number>;

// A page reads a few granules: one thread per query does it fastest and lets concurrent pages
// share the cores instead of each fanning out.
const SETTINGS = { do_not_merge_across_partitions_select_final: 1, max_threads: 1 } as const;

const ts = (name: string): string => `fromUnixTimestamp64Micro({${name}:Int64}, 'UTC')`;

/** The later of a page's lower bound and its trace's floor (see `traceFloor`). */
function floorOf(lower: Micros | null, trace: string | undefined): Micros | null {
  const floor = trace === undefined ? null : traceFloor(trace);
  return floor === null ? lower : lower === null ? floor : Math.max(lower, floor);
}

/** A time range of one read: `from` inclusive, `to` exclusive; null is open. */
interface Window {
  readonly from: Micros | null;
  readonly to: Micros | null;
}

/**
 * The windows of a page. Backward (newest first): from `start` (exclusive; null: open above,
 * the first window then ends at `anchor`, the present) back to `end` (inclusive; null: open).
 * Forward (oldest first): from `start` (inclusive; null: one open read) up to `end`. The first
 * window is `first` long and each next one WINDOW_GROWTH times longer; the last one is
 * open-ended (the caller still applies its bounds), and none goes further than `horizon` in all.
 */
export function* windows(direction: 'backward' | 'forward', start: Micros | null, end: Micros | null, anchor: Micros, horizon: Micros, first: Micros = FIRST_WINDOW_US): Generator<Window> {
  let size = first;
  let spanned = 0;
  if (direction === 'backward') {
    let to = start;
    let edge = start ?? anchor;
    for (;;) {
      const from = edge - size;
      spanned += size;
      if ((end !== null && from <= end) || spanned >= horizon) {
        yield { from: end, to };
        return;
      }
      yield { from, to };
      to = from;
      edge = from;
      size *= WINDOW_GROWTH;
    }
  }
  if (start === null) {
    yield { from: null, to: null };
    return;
  }
  let from = start;
  for (;;) {
    const to = from + size;
    spanned += size;
    if ((end !== null && to > end) || spanned >= horizon) {
      yield { from, to: null };
      return;
    }
    yield { from, to };
    from = to;
    size *= WINDOW_GROWTH;
  }
}

/** Slack below a trace's own creation time for the rows of the trace (clock skew between replicas). */
const TRACE_SLACK_US = 3_600_000_000;

/**
 * The earliest time a row of `trace` can carry: trace GUIDs are UUIDv7, made when the document
 * entered, whose first 48 bits are that time in milliseconds; every row of the trace comes after
 * (an hour of slack for clocks). Null for any other id.
 */
export function traceFloor(trace: string): Micros | null {
  const m = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.exec(trace);
  if (!m) return null;
  // any GUID is accepted as a filter: one dated past the span of stored records finds none
  return clampMicros(parseInt(`${m[1]}${m[2]}`, 16) * 1000 - TRACE_SLACK_US);
}

export interface ClickHouseRecordListsOptions {
  /**
   * Retention of the rows (config.cassandra.retentionSeconds): rows created longer ago are left
   * out of every read, whether or not a TTL merge has removed them yet; windows past it go
   * open-ended.
   */
  readonly retentionSeconds: number;
  /** How long a read feed watermark is reused (it only grows, so an older value only withholds more). @default 200 */
  readonly watermarkReuseMs?: number;
  /** Clock in microseconds. */
  readonly now?: () => Micros;
}

/** One read of feed_watermark: the watermark and every organization's newest entry, and when it was read. */
interface ReadableState {
  readonly watermark: Micros;
  readonly newest: ReadonlyMap<string, Position>;
  readonly readAt: number;
}

export class ClickHouseRecordLists implements RecordLists {
  private readonly horizon: Micros;
  private readonly now: () => Micros;
  private readable: ReadableState | null = null;
  private readableRead: Promise<ReadableState> | null = null;
  /** Microseconds per row of recent pages, by list and filters (least recently used dropped). */
  private readonly density = new Map<string, number>();

  constructor(
    private readonly ch: ClickHouseHandle,
    private readonly opts: ClickHouseRecordListsOptions,
  ) {
    this.horizon = (opts.retentionSeconds + 86_400) * 1_000_000;
    this.now = opts.now ?? ((): Micros => Date.now() * 1000);
  }

  private table(name: string): string {
    return qualify(this.ch.database, name);
  }

  /** The condition that leaves out aged-out rows (created at or before now - R), with its parameter. */
  private kept(params: Params): string {
    params['kept'] = retentionCutoff(this.now(), this.opts.retentionSeconds);
    return `created_at > ${ts('kept')}`;
  }

  private async rows<T>(query: string, params: Params): Promise<T[]> {
    try {
      const rs = await this.ch.client.query({ query, query_params: params, format: 'JSONEachRow', clickhouse_settings: SETTINGS });
      return await rs.json<T>();
    } catch (err) {
      // an outage (refused, reset, timed out, overloaded) is a passing store failure: 503
      throw classifyStoreFailure('ClickHouse', 'read', err);
    }
  }

  /**
   * Length of the first window of a page, from the density the last page of the same list and
   * filters met (so a page is usually one read); an hour when unknown.
   */
  private firstWindow(key: string, need: number): Micros {
    const usPerRow = this.density.get(key);
    if (usPerRow === undefined) return FIRST_WINDOW_US;
    return Math.min(Math.max(Math.ceil(usPerRow * need * 2), 1_000_000), this.horizon);
  }

  private learn(key: string, span: Micros, rows: number): void {
    if (rows < 2 || span <= 0) return;
    this.density.delete(key);
    this.density.set(key, span / rows);
    if (this.density.size > DENSITY_KEYS) this.density.delete(this.density.keys().next().value!);
  }

  /**
   * Reads a newest-first page in windows: `where` and `params` are the filters, `before` the
   * exclusive upper position, `until`/`since` the time bounds; returns up to `need` rows.
   */
  private async backward<T extends { created_us: number | string }>(
    list: string,
    select: (where: string, params: Params, need: number) => Promise<T[]>,
    where: string[],
    params: Params,
    before: Position | null,
    until: Micros | null,
    since: Micros | null,
    need: number,
    trace: string | undefined,
  ): Promise<T[]> {
    const out: T[] = [];
    // aged-out rows are left out (not part of the density key, which must not change by the clock)
    const cut: Params = {};
    const keptCond = this.kept(cut);
    const oneGo = trace !== undefined;
    const upper = before ? before.createdAt : until;
    const key = `${list}|${JSON.stringify(params)}`;
    const anchor = this.now();
    const ws = oneGo ? [{ from: floorOf(since, trace), to: upper }] : windows('backward', upper, since, anchor, this.horizon, this.firstWindow(key, need));
    let firstWindow = true;
    for (const w of ws) {
      const cond = [...where, keptCond];
      const p: Params = { ...params, ...cut };
      if (firstWindow && before) {
        cond.push(`created_at <= ${ts('bc')} AND (created_at < ${ts('bc')} OR id < {bid:String})`);
        p['bc'] = before.createdAt;
        p['bid'] = before.id;
      } else if (w.to !== null) {
        cond.push(`created_at < ${ts('wto')}`);
        p['wto'] = w.to;
      }
      if (until !== null && firstWindow && before) {
        cond.push(`created_at < ${ts('until')}`);
        p['until'] = until;
      }
      if (w.from !== null) {
        cond.push(`created_at >= ${ts('wfrom')}`);
        p['wfrom'] = w.from;
      }
      firstWindow = false;
      out.push(...(await select(cond.join(' AND '), p, need - out.length)));
      if (out.length >= need) break;
    }
    const last = out[out.length - 1];
    if (!oneGo && last) this.learn(key, (upper ?? anchor) - Number(last.created_us), out.length);
    return out;
  }

  /** Oldest-first counterpart of `backward`: strictly after `after`, or from `since` inclusive, up to `bound` inclusive. */
  private async forward<T extends { created_us: number | string }>(
    list: string,
    select: (where: string, params: Params, need: number) => Promise<T[]>,
    where: string[],
    params: Params,
    after: Position | null,
    since: Micros | null,
    bound: Micros,
    need: number,
    trace: string | undefined,
  ): Promise<T[]> {
    const out: T[] = [];
    // aged-out rows are left out (not part of the density key, which must not change by the clock)
    const cut: Params = {};
    const keptCond = this.kept(cut);
    const oneGo = trace !== undefined;
    const lower = after ? after.createdAt : since;
    const key = `${list}|${JSON.stringify(params)}`;
    const ws = oneGo ? [{ from: floorOf(lower, trace), to: null }] : windows('forward', lower, bound, this.now(), this.horizon, this.firstWindow(key, need));
    let firstWindow = true;
    for (const w of ws) {
      const cond = [...where, keptCond, `created_at <= ${ts('bound')}`];
      const p: Params = { ...params, ...cut, bound };
      if (firstWindow && after) {
        cond.push(`created_at >= ${ts('ac')} AND (created_at > ${ts('ac')} OR id > {aid:String})`);
        p['ac'] = after.createdAt;
        p['aid'] = after.id;
      } else if (w.from !== null) {
        cond.push(`created_at >= ${ts('wfrom')}`);
        p['wfrom'] = w.from;
      }
      if (w.to !== null) {
        cond.push(`created_at < ${ts('wto')}`);
        p['wto'] = w.to;
      }
      firstWindow = false;
      out.push(...(await select(cond.join(' AND '), p, need - out.length)));
      if (out.length >= need) break;
    }
    const last = out[out.length - 1];
    if (!oneGo && last && lower !== null) this.learn(key, Number(last.created_us) - lower, out.length);
    return out;
  }

  /**
   * Newest first (the contract's order) reads backward from `from`; oldest first (`asc`, an
   * extension) reads forward from `from`, or from `since`, or from the retention's cut-off
   * (the oldest a kept row can be), so its first page too is read in windows.
   */
  async transactions(organizationId: string, f: TransactionFilters, from: Position | null, limit: number, order: ListOrder = 'desc'): Promise<{ rows: TransactionListRow[]; more: boolean }> {
    const where = ['org_id = {org:String}'];
    const params: Params = { org: organizationId };
    if (f.direction) {
      where.push('direction = {direction:String}');
      params['direction'] = f.direction;
    }
    if (f.transactionSetIdentifier !== undefined) {
      where.push('transaction_set_identifier = {tsi:String}');
      params['tsi'] = f.transactionSetIdentifier;
    }
    if (f.partner !== undefined) {
      where.push('partner_key_lower = {partner:String}');
      params['partner'] = f.partner.toLowerCase();
    }
    if (f.referencePrefix !== undefined) {
      where.push('startsWith(reference, {ref:String})');
      params['ref'] = f.referencePrefix;
    }
    if (f.trace !== undefined) {
      where.push('trace_guid = {trace:String}');
      params['trace'] = f.trace;
    }
    if (f.status) {
      where.push('status = {status:String}');
      params['status'] = f.status;
    }
    if (f.warnings !== undefined) where.push(f.warnings ? 'warning_count > 0' : 'warning_count = 0');
    if (f.ackStatus === 'acknowledged') where.push("acknowledgment_status IN ('accepted', 'rejected')");
    else if (f.ackStatus) {
      where.push('acknowledgment_status = {ack:String}');
      params['ack'] = f.ackStatus;
    }
    const dir = order === 'asc' ? 'ASC' : 'DESC';
    const select = (w: string, p: Params, need: number): Promise<TxRow[]> =>
      this.rows<TxRow>(
        `SELECT id, trace_guid, direction, usage_indicator, partner_key, transaction_set_identifier, reference, sender_qualifier, sender_extid, receiver_qualifier, receiver_extid, interchange_control_number, group_control_number, transaction_set_control_number, status, toUnixTimestamp64Micro(delivered_at) AS delivered_us, warning_count, acknowledgment_status, resend_count, toUnixTimestamp64Micro(last_resent_at) AS last_resent_us, duplicate_of, toUnixTimestamp64Micro(created_at) AS created_us, toUnixTimestamp64Micro(updated_at) AS updated_us FROM ${this.table('transactions')} FINAL WHERE ${w} ORDER BY created_at ${dir}, id ${dir} LIMIT ${need}`,
        p,
      );
    const got =
      order === 'asc'
        ? // `until` is exclusive and forward's bound inclusive: created_at is in whole microseconds
          await this.forward('transactions-asc', select, where, params, from, f.since ?? retentionCutoff(this.now(), this.opts.retentionSeconds), f.until === undefined ? LATEST_MICROS : f.until - 1, limit + 1, f.trace)
        : await this.backward('transactions', select, where, params, from, f.until ?? null, f.since ?? null, limit + 1, f.trace);
    return { rows: got.slice(0, limit).map(txOf), more: got.length > limit };
  }

  private resultFilters(organizationId: string, f: ResultFilters): { where: string[]; params: Params } {
    const where = ['org_id = {org:String}'];
    const params: Params = { org: organizationId };
    if (f.trace !== undefined) {
      where.push('trace_guid = {trace:String}');
      params['trace'] = f.trace;
    }
    if (f.node !== undefined) {
      where.push('(node_name_lower = {nodeLower:String} OR node_id = {node:String})');
      params['nodeLower'] = f.node.toLowerCase();
      params['node'] = f.node;
    }
    return { where, params };
  }

  /** The results of one trace are read from `results_by_trace` (sorted by trace first). */
  private resultsTable(f: ResultFilters): string {
    return this.table(f.trace !== undefined ? 'results_by_trace' : 'results');
  }

  async scanResults(organizationId: string, f: ResultFilters, before: Position | null, scan: number): Promise<ResultScanRow[]> {
    const { where, params } = this.resultFilters(organizationId, f);
    const select = (w: string, p: Params, need: number): Promise<{ id: string; created_us: number; status: string }[]> =>
      this.rows(`SELECT id, toUnixTimestamp64Micro(created_at) AS created_us, status FROM ${this.resultsTable(f)} FINAL WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ${need}`, p);
    const got = await this.backward('results', select, where, params, before, null, null, scan, f.trace);
    return got.map((r) => ({ id: r.id, createdAt: Number(r.created_us), status: r.status === 'error' ? 'error' : 'success' }));
  }

  async resultsPage(organizationId: string, f: ResultFilters, before: Position | null, limit: number): Promise<{ rows: ResultRecord[]; more: boolean }> {
    const { where, params } = this.resultFilters(organizationId, f);
    const select = (w: string, p: Params, need: number): Promise<ResultRow[]> => this.rows<ResultRow>(`SELECT ${RESULT_COLUMNS} FROM ${this.resultsTable(f)} FINAL WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ${need}`, p);
    const got = await this.backward('results-page', select, where, params, before, null, null, limit + 1, f.trace);
    return { rows: got.slice(0, limit).map((r) => resultOf(organizationId, r)), more: got.length > limit };
  }

  async results(organizationId: string, positions: readonly Position[]): Promise<ResultRecord[]> {
    if (positions.length === 0) return [];
    const times = positions.map((p) => p.createdAt);
    const params: Params = { org: organizationId, lo: Math.min(...times), hi: Math.max(...times), ...Object.fromEntries(positions.map((p, i) => [`id${i}`, p.id])) };
    const kept = this.kept(params);
    const rows = await this.rows<ResultRow>(
      `SELECT ${RESULT_COLUMNS} FROM ${this.table('results')} FINAL WHERE org_id = {org:String} AND ${kept} AND created_at >= ${ts('lo')} AND created_at <= ${ts('hi')} AND id IN (${positions.map((_, i) => `{id${i}:String}`).join(', ')})`,
      params,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const out: ResultRecord[] = [];
    for (const p of positions) {
      const r = byId.get(p.id);
      if (r) out.push(resultOf(organizationId, r));
    }
    return out;
  }

  async feed(organizationId: string, f: FeedFilters, after: Position | null, since: Micros | null, bound: Micros, limit: number): Promise<{ rows: FeedListRow[]; more: boolean }> {
    const where = ['org_id = {org:String}'];
    const params: Params = { org: organizationId };
    if (f.partner !== undefined) {
      where.push('partner_key_lower = {partner:String}');
      params['partner'] = f.partner.toLowerCase();
    }
    if (f.direction) {
      where.push('direction = {direction:String}');
      params['direction'] = f.direction;
    }
    if (f.status) {
      where.push('status = {status:String}');
      params['status'] = f.status;
    }
    if (f.trace !== undefined) {
      where.push('trace_guid = {trace:String}');
      params['trace'] = f.trace;
    }
    const select = (w: string, p: Params, need: number): Promise<FeedRow[]> =>
      this.rows<FeedRow>(
        `SELECT id, direction, status, toUnixTimestamp64Micro(created_at) AS created_us, partner_key, trace_guid, result_id, detail FROM ${this.table('feed_entries')} FINAL WHERE ${w} ORDER BY created_at, id LIMIT ${need}`,
        p,
      );
    const got = await this.forward('feed', select, where, params, after, since, bound, limit + 1, f.trace);
    return {
      rows: got.slice(0, limit).map((r) => ({
        id: r.id,
        direction: r.direction === 'outbound' ? 'outbound' : 'inbound',
        status: r.status === 'error' ? 'error' : 'success',
        createdAt: Number(r.created_us),
        partnerKey: r.partner_key,
        traceGuid: r.trace_guid,
        resultId: r.result_id,
        detail: r.detail,
      })),
      more: got.length > limit,
    };
  }

  feedReadable(organizationId: string): Promise<FeedReadable> {
    const answer = (r: ReadableState): FeedReadable => ({ watermark: r.watermark, newest: r.newest.get(organizationId) ?? null });
    const reuse = this.opts.watermarkReuseMs ?? 200;
    if (this.readable && Date.now() - this.readable.readAt < reuse) return Promise.resolve(answer(this.readable));
    if (!this.readableRead) {
      const readAt = Date.now();
      // one read for every organization: the watermark and the newest entries of one state of the table
      this.readableRead = this.rows<{ name: string; p: number | string; id: string }>(
        `SELECT name, toUnixTimestamp64Micro(max(position)) AS p, argMax(entry_id, position) AS id FROM ${this.table('feed_watermark')} GROUP BY name`,
        {},
      )
        .then((rows) => {
          let watermark = 0;
          const newest = new Map<string, Position>();
          for (const r of rows) {
            if (r.name === FEED_WATERMARK) watermark = Number(r.p);
            else if (r.name.startsWith(FEED_NEWEST_PREFIX) && r.id !== '') newest.set(r.name.slice(FEED_NEWEST_PREFIX.length), { createdAt: Number(r.p), id: r.id });
          }
          this.readable = { watermark, newest, readAt };
          return this.readable;
        })
        .finally(() => {
          this.readableRead = null;
        });
    }
    return this.readableRead.then(answer);
  }

  async logs(organizationId: string, traceGuid: string, level: LogLevel | null, after: Position | null, since: Micros | null, bound: Micros, limit: number): Promise<{ rows: LogListRow[]; more: boolean }> {
    const where = ['org_id = {org:String}', 'trace_guid = {trace:String}'];
    const params: Params = { org: organizationId, trace: traceGuid };
    if (level) {
      where.push('level = {level:String}');
      params['level'] = level;
    }
    const select = (w: string, p: Params, need: number): Promise<LogRow[]> =>
      this.rows<LogRow>(`SELECT id, level, message, node_name, trace_guid, toUnixTimestamp64Micro(created_at) AS created_us FROM ${this.table('logs')} FINAL WHERE ${w} ORDER BY created_at, id LIMIT ${need}`, p);
    const got = await this.forward('logs', select, where, params, after, since, bound, limit + 1, traceGuid);
    return {
      rows: got.slice(0, limit).map((r) => ({ id: r.id, level: r.level as LogLevel, message: r.message, nodeName: r.node_name, traceGuid: r.trace_guid, createdAt: Number(r.created_us) })),
      more: got.length > limit,
    };
  }
}

interface TxRow {
  id: string;
  trace_guid: string;
  direction: string;
  usage_indicator: string;
  partner_key: string | null;
  transaction_set_identifier: string;
  reference: string | null;
  sender_qualifier: string;
  sender_extid: string;
  receiver_qualifier: string;
  receiver_extid: string;
  interchange_control_number: string;
  group_control_number: string;
  transaction_set_control_number: string;
  status: string;
  delivered_us: number | string | null;
  warning_count: number;
  acknowledgment_status: string | null;
  resend_count: number;
  last_resent_us: number | string | null;
  duplicate_of: string | null;
  created_us: number | string;
  updated_us: number | string;
}

const numOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

function txOf(r: TxRow): TransactionListRow {
  return {
    id: r.id,
    traceGuid: r.trace_guid,
    direction: r.direction === 'outbound' ? 'outbound' : 'inbound',
    usageIndicator: r.usage_indicator,
    partnerKey: r.partner_key,
    transactionSetIdentifier: r.transaction_set_identifier,
    reference: r.reference,
    senderQualifier: r.sender_qualifier,
    senderExtid: r.sender_extid,
    receiverQualifier: r.receiver_qualifier,
    receiverExtid: r.receiver_extid,
    interchangeControlNumber: r.interchange_control_number,
    groupControlNumber: r.group_control_number,
    transactionSetControlNumber: r.transaction_set_control_number,
    status: r.status as TransactionStatus,
    deliveredAt: numOrNull(r.delivered_us),
    warningCount: Number(r.warning_count),
    acknowledgmentStatus: r.acknowledgment_status as AcknowledgmentStatus | null,
    resendCount: Number(r.resend_count),
    lastResentAt: numOrNull(r.last_resent_us),
    duplicateOf: r.duplicate_of,
    createdAt: Number(r.created_us),
    updatedAt: Number(r.updated_us),
  };
}

const RESULT_COLUMNS =
  'id, trace_guid, transaction_id, flow_id, node_id, node_name, service, status, direction, partner_key, resend, detail, toUnixTimestamp64Micro(created_at) AS created_us, toUnixTimestamp64Micro(updated_at) AS updated_us';

interface ResultRow {
  id: string;
  trace_guid: string;
  transaction_id: string | null;
  flow_id: string | null;
  node_id: string;
  node_name: string;
  service: string;
  status: string;
  direction: string | null;
  partner_key: string | null;
  resend: boolean | number;
  detail: string;
  created_us: number | string;
  updated_us: number | string;
}

/** A result as the projection holds it; the payload reference is not projected (null). */
function resultOf(organizationId: string, r: ResultRow): ResultRecord {
  return {
    id: r.id,
    organizationId,
    traceGuid: r.trace_guid,
    transactionId: r.transaction_id,
    flowId: r.flow_id,
    nodeId: r.node_id,
    nodeName: r.node_name,
    service: r.service,
    status: r.status === 'error' ? 'error' : 'success',
    direction: r.direction === 'inbound' || r.direction === 'outbound' ? r.direction : null,
    partnerKey: r.partner_key,
    resend: r.resend === true || r.resend === 1,
    detail: JSON.parse(r.detail || '{}') as ResultRecord['detail'],
    payload: null,
    createdAt: Number(r.created_us),
    updatedAt: Number(r.updated_us),
  };
}

interface FeedRow {
  id: string;
  direction: string;
  status: string;
  created_us: number | string;
  partner_key: string;
  trace_guid: string;
  result_id: string;
  detail: string;
}

interface LogRow {
  id: string;
  level: string;
  message: string;
  node_name: string | null;
  trace_guid: string;
  created_us: number | string;
}
