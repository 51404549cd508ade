/**
 * The EDI transactions of the records API: GET /platform/edi_transactions (newest first; oldest
 * first with the `order` extension) and GET /platform/edi_transactions/:id with its results and
 * the trace's failures.
 */
import { isWellFormedId } from '../../../domain/ids.ts';
import type { TransactionFilters } from '../../../domain/records-query.ts';
import type { ResultRecord } from '../../../domain/records.ts';
import { compactTransactionListRowView, transactionDetailView, transactionListRowView } from '../../../domain/views.ts';
import { errors } from '../../../errors.ts';
import type { CursorScope } from '../../middleware/cursor.ts';
import { recordOperations as ops } from '../records-operations.ts';
import { filtersText, micros, posKey, type Caller, type Query, type RecordsContext } from './common.ts';

/**
 * GET /platform/edi_transactions: newest first, or oldest first with `order=asc` (an extension,
 * docs/api.md "Extensions"). Absent or `desc`, the answer is the contract's, cursors included:
 * only `asc` enters a cursor's scope, so a cursor pages on in the order that returned it and
 * one of the other order is refused as a cursor of other filters.
 */
export async function listTransactions(rc: RecordsContext, caller: Caller, query: Query): Promise<Record<string, unknown>> {
  rc.access(caller, 'transactions');
  const q = ops.listTransactions.parseQuery(query);
  const { direction, incoming, compact, limit, cursor } = q;
  const order = q.order ?? 'desc';
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
  const scope: CursorScope = { endpoint: 'edi_transactions', organizationId: caller.organizationId, filters: filtersText({ ...filters, partner: filters.partner?.toLowerCase(), order: order === 'asc' ? order : undefined }) };
  const from = rc.decode(scope, cursor);
  if (filters.since !== undefined && filters.until !== undefined && filters.until <= filters.since) {
    return { ediTransactions: [], pagination: { hasMore: false, nextCursor: null } };
  }
  const page = await rc.deps.lists.transactions(caller.organizationId, filters, from, limit, order);
  const last = page.rows[page.rows.length - 1];
  const now = rc.now();
  return {
    ediTransactions: page.rows.map((row) => rc.delivered(row, now)).map(compact === 'true' ? compactTransactionListRowView : transactionListRowView),
    pagination: { hasMore: page.more, nextCursor: page.more && last ? rc.cursors.encode(scope, posKey(last)) : null },
  };
}

/** GET /platform/edi_transactions/:id. */
export async function transaction(rc: RecordsContext, caller: Caller, id: string): Promise<Record<string, unknown>> {
  rc.access(caller, 'transactions');
  const now = rc.now();
  const stored = isWellFormedId(id) ? await rc.deps.transactions.get(caller.organizationId, id) : null;
  if (!stored || rc.aged(stored.createdAt, now)) throw rc.notFound('transaction', 'EDI transaction', id);
  const t = rc.delivered(stored, now);
  // one read for the transaction's own results and the trace's failures; the whole trace
  // only when none is attributed to it, or to name the earliest of several failures elsewhere
  const own = await rc.deps.results.transactionResults(t.organizationId, t.traceGuid, t.id);
  let results = (own?.results ?? []).filter((r) => !rc.aged(r.createdAt, now));
  const traceErrors = own?.traceErrors ?? (await rc.deps.transactions.traceErrors(t.organizationId, t.traceGuid));
  let traceHasResults = own !== null;
  const elsewhere = t.failed ? [] : traceErrors.filter((e) => e.transactionId !== t.id);
  let whole: ResultRecord[] | null = null;
  if (own === null || elsewhere.length > 1) whole = (await rc.deps.results.byTrace(t.organizationId, t.traceGuid)).filter((r) => !rc.aged(r.createdAt, now));
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
