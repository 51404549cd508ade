/**
 * Recovery at operations scale (an extension beyond the contract; docs/transports.md,
 * "Recovering failed deliveries"): every failed delivery matching a filter is redelivered
 * (inbound) or resent (outbound) through the contract's replay command path, at a throttle, once.
 *
 * Pure: what a filter is, which failures it selects, the code a failure is filtered by, what a
 * run reports, and the ports of the two records a run keeps (the run itself and one mark per
 * recovered failure). The runner lives in src/http/platform/recovery.ts.
 *
 * Idempotence: a failure is recovered under a mark keyed by (transaction, failed delivery
 * result), claimed with a lightweight transaction, and its replay command id derives from the
 * same pair. A second run, or two runs at once, find the mark and issue nothing; a document
 * whose latest delivery succeeded is skipped; a recovery that failed again leaves a newer failed
 * delivery result, which a later run recovers.
 */
import { TdxError } from '../errors.ts';
import { deterministicId } from './ids.ts';
import type { Direction } from './configuration.ts';
import type { Micros, ResultRecord, StoredTransaction } from './records.ts';

/** Services whose results are deliveries to the partner or the organization. */
export const DELIVERY_SERVICES: ReadonlySet<string> = new Set(['webhook', 'sftp_upload', 'as2_send', 'sandbox_sink', 'feed']);

/** What a recovery selects. */
export interface RecoveryFilter {
  /** Partner key (any case); absent: every partner. */
  readonly partner?: string;
  /** Absent: both directions. */
  readonly direction?: Direction;
  /** Transactions created at or after (micros). */
  readonly since?: Micros;
  /** Transactions created before (micros). */
  readonly until?: Micros;
  /** Failure codes (`failureCode`), or classes such as `http_5xx`; absent: every failure. */
  readonly errorCodes?: readonly string[];
}

export interface RecoveryRequest {
  readonly filter: RecoveryFilter;
  /** Replays started per second at most. */
  readonly ratePerSecond: number;
  /** Count what would be recovered, start nothing. */
  readonly dryRun: boolean;
}

export const RECOVERY_STATUSES = ['running', 'done', 'failed', 'abandoned'] as const;
export type RecoveryStatus = (typeof RECOVERY_STATUSES)[number];

/** Why a matching failed transaction was not recovered. */
export const SKIP_REASONS = ['delivered_since', 'already_recovered', 'not_a_delivery_failure', 'other_error_code', 'not_replayable'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** A run's counters. */
export interface RecoveryCounts {
  /** Failed transactions the filter selected. */
  matched: number;
  /** Examined so far. */
  examined: number;
  /** Replays started (or, in a dry run, that would start). */
  started: number;
  skipped: Record<SkipReason, number>;
  /** Replays that could not be started (a store or the broker failed); a later run takes them. */
  errors: number;
}

export interface RecoveryRun {
  readonly organizationId: string;
  readonly id: string;
  readonly request: RecoveryRequest;
  readonly status: RecoveryStatus;
  readonly counts: RecoveryCounts;
  /** Why the run failed (status failed). */
  readonly error: string | null;
  readonly requestedBy: string | null;
  readonly createdAt: Micros;
  /** Last progress written; a running run not updated for a while was abandoned (its process stopped). */
  readonly updatedAt: Micros;
  readonly finishedAt: Micros | null;
}

export function emptyCounts(): RecoveryCounts {
  return { matched: 0, examined: 0, started: 0, skipped: { delivered_since: 0, already_recovered: 0, not_a_delivery_failure: 0, other_error_code: 0, not_replayable: 0 }, errors: 0 };
}

/** A running run whose progress is older than this was abandoned (the process running it stopped). */
export const RECOVERY_HEARTBEAT_LAPSE_US = 30_000_000;

/** The status a reader sees: a running run without progress for a while is abandoned. */
export function visibleStatus(run: Pick<RecoveryRun, 'status' | 'updatedAt'>, now: Micros): RecoveryStatus {
  return run.status === 'running' && now - run.updatedAt > RECOVERY_HEARTBEAT_LAPSE_US ? 'abandoned' : run.status;
}

/** The mark of one recovered failure. */
export interface RecoveryMark {
  readonly organizationId: string;
  readonly transactionId: string;
  /** The failed delivery result the replay answers. */
  readonly failureResultId: string;
  readonly commandId: string;
  /** The replay's attempt on the trace (its result ids derive from it). */
  readonly attempt: number;
  readonly recoveryId: string;
  /** True once the replay command was produced. */
  readonly issued: boolean;
  readonly createdAt: Micros;
}

/** Runs and marks (Cassandra: src/adapters/cassandra/recovery-store.ts). */
export interface RecoveryStore {
  putRun(run: RecoveryRun): Promise<void>;
  getRun(organizationId: string, id: string): Promise<RecoveryRun | null>;
  /** Claims a mark (lightweight transaction); the existing mark when another run claimed it first. */
  claim(mark: RecoveryMark): Promise<{ claimed: true } | { claimed: false; existing: RecoveryMark }>;
  /** Notes that the mark's command was produced. */
  issued(mark: RecoveryMark): Promise<void>;
}

/** The replay command id of a recovery of `failureResultId`: the same in every run. */
export function recoveryCommandId(organizationId: string, transactionId: string, failureResultId: string): string {
  return deterministicId('recovery-command', organizationId, transactionId, failureResultId);
}

/** A mark not issued this long after its claim belongs to a run that stopped: another run issues it. */
export const STALE_CLAIM_US = 60_000_000;

/** Whether a result is a delivery (not a notification about one, which has a node of its own). */
export function isDeliveryResult(r: Pick<ResultRecord, 'service' | 'nodeId'>): boolean {
  return DELIVERY_SERVICES.has(r.service) && !r.nodeId.includes('.notify.');
}

/** The latest delivery result of a transaction (results oldest first), or null. */
export function latestDelivery(results: readonly ResultRecord[]): ResultRecord | null {
  let last: ResultRecord | null = null;
  for (const r of results) {
    if (!isDeliveryResult(r)) continue;
    if (last === null || r.createdAt > last.createdAt || (r.createdAt === last.createdAt && r.resend && !last.resend)) last = r;
  }
  return last;
}

const NETWORK: ReadonlyArray<readonly [RegExp, string]> = [
  [/time(d)? ?out/i, 'timeout'],
  [/refused/i, 'connection_refused'],
  [/reset/i, 'connection_reset'],
  [/unreachable|not resolved/i, 'unreachable'],
];

/**
 * The code a failed delivery is filtered by: `http_<status>` when the receiver answered (a
 * webhook), an error code of the catalog named in the message (`sftp_unreachable` ...), `no_mdn`
 * for an AS2 message without receipt, `timeout`, `connection_refused`, `connection_reset` or
 * `unreachable` when nothing answered, otherwise `<service>_failed`.
 */
export function failureCode(r: Pick<ResultRecord, 'service' | 'detail'>): string {
  const webhook = r.detail.webhook;
  const status = webhook?.['statusCode'];
  if (typeof status === 'number') return `http_${status}`;
  const message = r.detail.errorMessage ?? '';
  const named = /\b(sftp_[a-z_]+)\b/.exec(message)?.[1];
  if (named) return named;
  if (r.service === 'as2_send' && /no MDN/i.test(message)) return 'no_mdn';
  for (const [pattern, code] of NETWORK) if (pattern.test(message)) return code;
  return `${r.service}_failed`;
}

/** Whether a failure code matches one of the filter's codes (`http_5xx` matches `http_503`). */
export function codeMatches(code: string, wanted: readonly string[] | undefined): boolean {
  if (!wanted || wanted.length === 0) return true;
  return wanted.some((w) => {
    const cls = /^http_([1-5])xx$/.exec(w);
    return cls ? code.startsWith(`http_${cls[1]}`) && code.length === 8 : w === code;
  });
}

/** What a run does with one failed transaction. */
export type RecoveryDecision = { readonly recover: true; readonly failure: ResultRecord; readonly kind: 'resend' | 'redeliver' } | { readonly recover: false; readonly reason: SkipReason };

/** The decision for a transaction from its results (oldest first). */
export function decide(t: Pick<StoredTransaction, 'direction'>, results: readonly ResultRecord[], filter: RecoveryFilter): RecoveryDecision {
  const last = latestDelivery(results);
  if (!last) return { recover: false, reason: 'not_a_delivery_failure' };
  if (last.status === 'success') return { recover: false, reason: 'delivered_since' };
  if (!codeMatches(failureCode(last), filter.errorCodes)) return { recover: false, reason: 'other_error_code' };
  return { recover: true, failure: last, kind: t.direction === 'inbound' ? 'redeliver' : 'resend' };
}

/** Limits of a request. */
export interface RecoveryLimits {
  readonly defaultRatePerSecond: number;
  readonly maxRatePerSecond: number;
}

const CODE = /^[a-z0-9_]{1,64}$/;

/** The slowest throttle a run takes (one replay every 100 s). */
export const MIN_RATE = 0.01;

/**
 * Reads a recovery request (JSON body of `POST /platform/recoveries`): `{partner?, direction?,
 * since?, until?, errorCodes?, ratePerSecond?, dryRun?}`; throws `invalid_body` naming the field.
 */
export function readRecoveryRequest(body: unknown, limits: RecoveryLimits, parseTime: (text: string) => Micros | null = isoMicros): RecoveryRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new TdxError('invalid_body', 'The request body must be a JSON object: {"partner"?, "direction"?, "since"?, "until"?, "errorCodes"?, "ratePerSecond"?, "dryRun"?}.');
  const b = body as Record<string, unknown>;
  const bad = (field: string, rule: string): TdxError => new TdxError('invalid_body', `Field "${field}" ${rule}.`, { reason: field, details: { field } });
  const known = new Set(['partner', 'direction', 'since', 'until', 'errorCodes', 'ratePerSecond', 'dryRun']);
  for (const k of Object.keys(b)) if (!known.has(k)) throw bad(k, `is not a field of a recovery (fields: ${[...known].join(', ')})`);
  const filter: { -readonly [K in keyof RecoveryFilter]: RecoveryFilter[K] } = {};
  if (b['partner'] !== undefined) {
    if (typeof b['partner'] !== 'string' || b['partner'] === '') throw bad('partner', 'must be a partner key');
    filter.partner = b['partner'];
  }
  if (b['direction'] !== undefined) {
    if (b['direction'] !== 'inbound' && b['direction'] !== 'outbound') throw bad('direction', 'must be "inbound" or "outbound"');
    filter.direction = b['direction'];
  }
  for (const f of ['since', 'until'] as const) {
    const v = b[f];
    if (v === undefined) continue;
    const us = typeof v === 'string' ? parseTime(v) : null;
    if (us === null) throw bad(f, 'must be an ISO 8601 timestamp with a time zone, such as "2026-11-26T10:00:00Z"');
    filter[f] = us;
  }
  // an `until` at or before `since` is an empty window: the run matches nothing
  if (b['errorCodes'] !== undefined) {
    const v = b['errorCodes'];
    if (!Array.isArray(v) || v.length === 0 || !v.every((c) => typeof c === 'string' && CODE.test(c))) throw bad('errorCodes', 'must be a non-empty array of failure codes such as "http_503", "http_5xx" or "connection_refused"');
    filter.errorCodes = v as string[];
  }
  let rate = limits.defaultRatePerSecond;
  if (b['ratePerSecond'] !== undefined) {
    const v = b['ratePerSecond'];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < MIN_RATE) throw bad('ratePerSecond', `must be a number of at least ${MIN_RATE}`);
    // above the service's highest rate, the run goes at that rate (the answer shows it)
    rate = Math.min(v, limits.maxRatePerSecond);
  }
  if (b['dryRun'] !== undefined && typeof b['dryRun'] !== 'boolean') throw bad('dryRun', 'must be true or false');
  return { filter, ratePerSecond: rate, dryRun: b['dryRun'] === true };
}

/** An ISO 8601 timestamp with a time zone, in microseconds; null when it is not one. */
function isoMicros(text: string): Micros | null {
  const ms = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})$/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isFinite(ms) ? ms * 1000 : null;
}

/** Microseconds as ISO 8601 (milliseconds). */
const iso = (us: Micros | null | undefined): string | null => (us === null || us === undefined ? null : new Date(Math.floor(us / 1000)).toISOString());

/** A run as the API shows it. */
export function recoveryView(run: RecoveryRun, now: Micros): Record<string, unknown> {
  const f = run.request.filter;
  return {
    id: run.id,
    status: visibleStatus(run, now),
    filter: {
      partner: f.partner ?? null,
      direction: f.direction ?? null,
      since: iso(f.since),
      until: iso(f.until),
      errorCodes: f.errorCodes ? [...f.errorCodes] : null,
    },
    ratePerSecond: run.request.ratePerSecond,
    dryRun: run.request.dryRun,
    matched: run.counts.matched,
    examined: run.counts.examined,
    started: run.counts.started,
    skipped: { ...run.counts.skipped },
    errors: run.counts.errors,
    error: run.error,
    createdAt: iso(run.createdAt),
    updatedAt: iso(run.updatedAt),
    finishedAt: iso(run.finishedAt),
  };
}
