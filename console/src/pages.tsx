/** The list pages: overview, transactions, feed, errors, results, partners and connections. */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CompactResult, FeedEntry, Pagination, TransactionListQuery, TransactionRow } from './api.ts';
import { describeError } from './api.ts';
import { Badge, ErrorNote, href, Json, Show, TableBox, Time, useLoad, useSession, type Route } from './ui.tsx';

const hourMs = 3600_000;

/** `sorted`: the order the rows are in, announced on the Created column. */
function TransactionTable({ rows, label, sorted }: { rows: readonly TransactionRow[]; label: string; sorted?: 'ascending' | 'descending' }): JSX.Element {
  if (rows.length === 0) return <p class="muted">No transactions.</p>;
  return (
    <TableBox label={label}>
      <thead>
        <tr>
          <th scope="col" aria-sort={sorted}>
            Created
          </th>
          <th scope="col">Partner</th>
          <th scope="col">Set</th>
          <th scope="col">Direction</th>
          <th scope="col">Reference</th>
          <th scope="col">Status</th>
          <th scope="col">997</th>
          <th scope="col">Usage</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((t) => (
          <tr key={t.id}>
            <td>
              <a href={href(`/transactions/${t.id}`)}>
                <Time at={t.createdAt} />
              </a>
            </td>
            <td>{t.partnerKey ?? '—'}</td>
            <td>{t.transactionSetIdentifier}</td>
            <td>{t.direction}</td>
            <td>
              <a href={href(`/transactions/${t.id}`)} aria-label={`Transaction ${t.reference ?? t.id}`}>
                {t.reference ?? <span class="muted">(none)</span>}
              </a>
            </td>
            <td>
              <Badge value={t.status} />
              {t.warningCount > 0 ? <span class="muted"> {t.warningCount} warning(s)</span> : null}
            </td>
            <td>
              <Badge value={t.acknowledgmentStatus} />
            </td>
            <td>{t.usageIndicator === 'P' ? 'production' : t.usageIndicator === 'T' ? 'test' : t.usageIndicator}</td>
          </tr>
        ))}
      </tbody>
    </TableBox>
  );
}

// ---- overview ----

interface Overview {
  rows: TransactionRow[];
  complete: boolean;
  overdue: TransactionRow[];
  feed: FeedEntry[];
}

export function OverviewPage(): JSX.Element {
  const { api } = useSession();
  const [data] = useLoad<Overview>(async () => {
    const since = new Date(Date.now() - 24 * hourMs).toISOString();
    const rows: TransactionRow[] = [];
    let cursor: string | null = null;
    let complete = false;
    for (let page = 0; page < 5; page++) {
      const r: { ediTransactions: TransactionRow[]; pagination: Pagination } = await api.get('/platform/edi_transactions', { since, compact: true, limit: 100, cursor });
      rows.push(...r.ediTransactions);
      cursor = r.pagination.nextCursor;
      if (!r.pagination.hasMore || !cursor) {
        complete = true;
        break;
      }
    }
    const overdue = await api.get<{ ediTransactions: TransactionRow[] }>('/platform/edi_transactions', { ack_status: 'unacknowledged', until: new Date(Date.now() - hourMs).toISOString(), compact: true, limit: 20 });
    const feed = await api.get<{ feedEntries: FeedEntry[] }>('/platform/feed_entries', { since: new Date(Date.now() - hourMs).toISOString(), limit: 100 });
    return { rows, complete, overdue: overdue.ediTransactions, feed: feed.feedEntries.slice(-10).reverse() };
  }, []);
  return (
    <section aria-labelledby="h-overview">
      <h1 id="h-overview">Overview: the last 24 hours</h1>
      <Show value={data}>
        {(o) => {
          const groups = new Map<string, Record<string, number>>();
          for (const t of o.rows) {
            const k = `${t.partnerKey ?? '(no partner)'}\u0000${t.direction}`;
            const g = groups.get(k) ?? {};
            g[t.status] = (g[t.status] ?? 0) + 1;
            groups.set(k, g);
          }
          const errors = o.rows.filter((t) => t.status === 'error').length;
          const unacked = o.rows.filter((t) => t.acknowledgmentStatus === 'unacknowledged').length;
          return (
            <>
              <ul class="tiles">
                <li>
                  <span class="tile-n">{o.rows.length}{o.complete ? '' : '+'}</span> documents
                </li>
                <li>
                  <a href={href('/transactions', { status: 'error', since: new Date(Date.now() - 24 * hourMs).toISOString() })}>
                    <span class="tile-n">{errors}</span> errors
                  </a>
                </li>
                <li>
                  <a href={href('/transactions', { ack_status: 'unacknowledged' })}>
                    <span class="tile-n">{unacked}</span> awaiting a 997
                  </a>
                </li>
                <li>
                  <span class="tile-n">{o.overdue.length}</span> overdue (over an hour)
                </li>
              </ul>
              <h2>By partner and status</h2>
              {groups.size === 0 ? (
                <p class="muted">No documents in the last 24 hours.</p>
              ) : (
                <TableBox label="Documents by partner and status">
                  <thead>
                    <tr>
                      <th scope="col">Partner</th>
                      <th scope="col">Direction</th>
                      <th scope="col">Delivered</th>
                      <th scope="col">Error</th>
                      <th scope="col">Processing</th>
                    </tr>
                  </thead>
                  <tbody>
                    {[...groups.entries()].sort().map(([k, g]) => {
                      const [partner, direction] = k.split('\u0000');
                      return (
                        <tr key={k}>
                          <th scope="row">{partner}</th>
                          <td>{direction}</td>
                          <td>{g['delivered'] ?? 0}</td>
                          <td>{g['error'] ?? 0}</td>
                          <td>{g['processing'] ?? 0}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </TableBox>
              )}
              <h2>Unacknowledged for over an hour</h2>
              <TransactionTable rows={o.overdue} label="Overdue acknowledgments" />
              <h2>Newest feed entries</h2>
              <FeedTable entries={o.feed} label="Newest feed entries" />
            </>
          );
        }}
      </Show>
    </section>
  );
}

// ---- transactions ----

// only parameters the API's list takes
const FILTERS = ['partner', 'transaction_set_identifier', 'direction', 'status', 'ack_status', 'reference', 'warnings', 'since', 'until'] as const satisfies readonly (keyof TransactionListQuery)[];

/**
 * The list's order: `desc` (newest first) is the contract's and sends no parameter; `asc`
 * (oldest first) sends the API's `order` extension. In the address as `order=asc`.
 */
type Order = NonNullable<TransactionListQuery['order']>;
const orderOf = (q: URLSearchParams): Order => (q.get('order') === 'asc' ? 'asc' : 'desc');
const orderParam = (o: Order): { order?: Order } => (o === 'asc' ? { order: 'asc' } : {});

export function TransactionsPage({ route }: { route: Route }): JSX.Element {
  const { api } = useSession();
  const filters: Record<string, string | undefined> = {};
  for (const f of FILTERS) filters[f] = route.query.get(f) ?? undefined;
  const order = orderOf(route.query);
  // the state every link of the page keeps: the filters and the order (a cursor is of one order)
  const kept = { ...filters, ...orderParam(order) };
  const cursor = route.query.get('cursor') ?? undefined;
  const key = JSON.stringify([filters, order, cursor]);
  const [data] = useLoad(() => api.get<{ ediTransactions: TransactionRow[]; pagination: Pagination }>('/platform/edi_transactions', { ...kept, cursor, limit: 50 }), [key]);
  const submit = (e: Event): void => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const q: Record<string, string> = { ...orderParam(order) };
    for (const f of FILTERS) {
      const raw = form.get(f);
      const v = typeof raw === 'string' ? raw.trim() : '';
      if (!v) continue;
      q[f] = f === 'since' || f === 'until' ? new Date(v).toISOString() : v;
    }
    location.hash = href('/transactions', q);
  };
  const local = (iso: string | undefined): string => (iso ? new Date(new Date(iso).getTime() - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '');
  const select = (name: string, label: string, options: readonly string[]): JSX.Element => (
    <label>
      {label}
      <select name={name} defaultValue={filters[name] ?? ''}>
        <option value="">any</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section aria-labelledby="h-tx">
      <h1 id="h-tx">Transactions</h1>
      <form key={JSON.stringify(filters)} class="filters" onSubmit={submit} role="search" aria-label="Filter transactions">
        <label>
          Reference
          <input name="reference" defaultValue={filters['reference'] ?? ''} placeholder="prefix, such as PO-4711" />
        </label>
        <label>
          Partner
          <input name="partner" defaultValue={filters['partner'] ?? ''} />
        </label>
        <label>
          Set
          <input name="transaction_set_identifier" defaultValue={filters['transaction_set_identifier'] ?? ''} inputMode="numeric" placeholder="850" />
        </label>
        {select('direction', 'Direction', ['inbound', 'outbound'])}
        {select('status', 'Status', ['processing', 'error', 'delivered'])}
        {select('ack_status', '997', ['unacknowledged', 'acknowledged', 'accepted', 'rejected'])}
        {select('warnings', 'Warnings', ['true', 'false'])}
        <label>
          From
          <input type="datetime-local" name="since" defaultValue={local(filters['since'])} />
        </label>
        <label>
          Before
          <input type="datetime-local" name="until" defaultValue={local(filters['until'])} />
        </label>
        <div class="actions">
          <button type="submit">Search</button>
          <a class="button secondary" href={href('/transactions', orderParam(order))}>
            Clear
          </a>
        </div>
      </form>
      <div class="order" role="group" aria-label="Order">
        {(
          [
            ['desc', 'Newest first'],
            ['asc', 'Oldest first'],
          ] as const
        ).map(([o, label]) => (
          <button
            key={o}
            type="button"
            class={o === order ? undefined : 'secondary'}
            aria-pressed={o === order}
            onClick={() => {
              // a new order starts at its first page: a cursor pages on only in its own order
              location.hash = href('/transactions', { ...filters, ...orderParam(o) });
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <p class="muted">
        {order === 'asc' ? 'Oldest first' : 'Newest first'} over the whole list (the API orders it), 50 a page; pages follow the API's cursors.
      </p>
      <Show value={data}>
        {(r) => (
          <>
            <TransactionTable rows={r.ediTransactions} label="Transaction list" sorted={order === 'asc' ? 'ascending' : 'descending'} />
            <nav class="pager" aria-label="Pages">
              {cursor ? (
                <a class="button secondary" href={href('/transactions', kept)}>
                  First page
                </a>
              ) : null}
              {r.pagination.hasMore && r.pagination.nextCursor ? (
                <a class="button" href={href('/transactions', { ...kept, cursor: r.pagination.nextCursor })}>
                  {order === 'asc' ? 'Newer' : 'Older'}
                </a>
              ) : null}
            </nav>
          </>
        )}
      </Show>
    </section>
  );
}

// ---- feed ----

function FeedTable({ entries, label }: { entries: readonly FeedEntry[]; label: string }): JSX.Element {
  if (entries.length === 0) return <p class="muted">No feed entries.</p>;
  return (
    <TableBox label={label}>
      <thead>
        <tr>
          <th scope="col">Created</th>
          <th scope="col">Partner</th>
          <th scope="col">Direction</th>
          <th scope="col">Status</th>
          <th scope="col">Step</th>
          <th scope="col">Trace</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={e.id}>
            <td>
              <Time at={e.createdAt} />
            </td>
            <td>{e.partnerKey}</td>
            <td>{e.direction}</td>
            <td>
              <Badge value={e.status} />
              {e.detail.detail.resend ? <span class="muted"> (replay)</span> : null}
            </td>
            <td>{e.detail.nodeName}</td>
            <td>
              <a href={href(`/traces/${e.traceGuid}`)}>{e.traceGuid.slice(0, 8)}…</a>
            </td>
          </tr>
        ))}
      </tbody>
    </TableBox>
  );
}

export function FeedPage(): JSX.Element {
  const { api } = useSession();
  const [entries, setEntries] = useState<FeedEntry[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [live, setLive] = useState(true);
  const [polls, setPolls] = useState(0);
  const cursor = useRef<string | null>(null);
  useEffect(() => {
    if (!live) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (): Promise<void> => {
      try {
        for (;;) {
          const r: { feedEntries: FeedEntry[]; pagination: Pagination } = await api.get('/platform/feed_entries', cursor.current ? { cursor: cursor.current, limit: 100 } : { since: new Date(Date.now() - hourMs).toISOString(), limit: 100 });
          if (stopped) return;
          if (r.pagination.nextCursor) cursor.current = r.pagination.nextCursor;
          if (r.feedEntries.length > 0) setEntries((old) => [...r.feedEntries.slice().reverse(), ...old].slice(0, 500));
          if (!r.pagination.hasMore) break;
        }
        setError(null);
      } catch (e) {
        setError(e);
      }
      setPolls((n) => n + 1);
      if (!stopped) timer = setTimeout(() => void poll(), 3000);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [live, api]);
  return (
    <section aria-labelledby="h-feed">
      <h1 id="h-feed">Feed</h1>
      <p>
        Live tail of the feed from the last hour, newest on top, following <code>nextCursor</code> every 3 s.{' '}
        <button type="button" class="secondary" onClick={() => setLive(!live)} aria-pressed={live}>
          {live ? 'Pause' : 'Resume'}
        </button>{' '}
        <span class="muted" role="status">
          {live ? `following (${polls} polls)` : 'paused'}
        </span>
      </p>
      {error ? <ErrorNote error={error} /> : null}
      <FeedTable entries={entries} label="Feed entries" />
    </section>
  );
}

// ---- errors and results ----

function ResultTable({ rows, label }: { rows: readonly CompactResult[]; label: string }): JSX.Element {
  if (rows.length === 0) return <p class="muted">No results.</p>;
  return (
    <TableBox label={label}>
      <thead>
        <tr>
          <th scope="col">Created</th>
          <th scope="col">Partner</th>
          <th scope="col">Step</th>
          <th scope="col">Status</th>
          <th scope="col">Message</th>
          <th scope="col">Trace</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>
              <Time at={r.createdAt} />
            </td>
            <td>{r.partnerKey ?? '—'}</td>
            <td>{r.nodeName}</td>
            <td>
              <Badge value={r.status} />
            </td>
            <td class="wrap">{r.errorMessage ?? ''}</td>
            <td>
              <a href={href(`/traces/${r.traceGuid}`)} aria-label={`Trace of ${r.nodeName} at ${r.createdAt}`}>
                trace
              </a>
            </td>
          </tr>
        ))}
      </tbody>
    </TableBox>
  );
}

/** Pages of results until `want` rows (a status filter may give sparse pages). */
async function results(api: ReturnType<typeof useSession>['api'], query: Record<string, string>, want: number): Promise<CompactResult[]> {
  const rows: CompactResult[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 6 && rows.length < want; page++) {
    const r: { results: CompactResult[]; pagination: Pagination } = await api.get('/platform/results', { ...query, compact: true, limit: 100, cursor });
    rows.push(...r.results);
    if (!r.pagination.hasMore || !r.pagination.nextCursor) break;
    cursor = r.pagination.nextCursor;
  }
  return rows.slice(0, want);
}

export function ErrorsPage(): JSX.Element {
  const { api } = useSession();
  const [data] = useLoad(() => results(api, { status: 'error' }, 50), []);
  return (
    <section aria-labelledby="h-errors">
      <h1 id="h-errors">Errors</h1>
      <p class="muted">The newest failed steps, with their messages; a trace shows what happened before and after.</p>
      <Show value={data}>{(rows) => <ResultTable rows={rows} label="Error results" />}</Show>
    </section>
  );
}

export function ResultsPage(): JSX.Element {
  const { api, scope } = useSession();
  const [data] = useLoad(() => results(api, {}, 50), []);
  return (
    <section aria-labelledby="h-results">
      <h1 id="h-results">Results</h1>
      {scope === 'sandbox' ? (
        <p class="note">This is a sandbox key: it sees only the results its sandbox received, and nothing else of the organization.</p>
      ) : (
        <p class="muted">The newest step results of the organization.</p>
      )}
      <Show value={data}>{(rows) => <ResultTable rows={rows} label="Result list" />}</Show>
    </section>
  );
}

// ---- partners and connections ----

interface ConfigRow {
  readonly id: string;
  readonly name?: string;
  readonly key?: string;
  readonly kind?: string;
  readonly [k: string]: unknown;
}

function firstArray(body: Record<string, unknown>): ConfigRow[] {
  for (const [k, v] of Object.entries(body)) if (k !== 'pagination' && Array.isArray(v)) return v as ConfigRow[];
  return [];
}

export function PartnersPage(): JSX.Element {
  const { api } = useSession();
  const [data] = useLoad(async () => {
    const [partners, connections] = await Promise.all([api.get<Record<string, unknown>>('/platform/partners', { limit: 100 }), api.get<Record<string, unknown>>('/platform/connections', { limit: 100 })]);
    return { partners: firstArray(partners), connections: firstArray(connections) };
  }, []);
  return (
    <section aria-labelledby="h-partners">
      <h1 id="h-partners">Partners and connections</h1>
      <p class="muted">The configuration as the API shows it; secrets are never part of it.</p>
      <Show value={data}>
        {(d) => (
          <>
            <h2>Partners</h2>
            {d.partners.map((p) => (
              <details key={p.id} class="card">
                <summary>
                  <strong>{p.key ?? p.id}</strong> {p.name ? <span class="muted">{p.name}</span> : null}
                </summary>
                <p>
                  <a href={href('/transactions', { partner: p.key })}>Transactions of {p.key ?? p.id}</a>
                </p>
                <Json value={p} label={`Partner ${p.key ?? p.id}`} />
              </details>
            ))}
            <h2>Connections</h2>
            {d.connections.map((c) => (
              <details key={c.id} class="card">
                <summary>
                  <strong>{c.name ?? c.id}</strong> <Badge value={c.kind} /> <ConnectionState row={c} />
                </summary>
                <Json value={c} label={`Connection ${c.name ?? c.id}`} />
              </details>
            ))}
          </>
        )}
      </Show>
    </section>
  );
}

function ConnectionState({ row }: { row: ConfigRow }): JSX.Element | null {
  const parts: string[] = [];
  for (const k of ['setupStatus', 'pollingStatus', 'lastPolledAt', 'lastPollError', 'as2Id', 'url']) {
    const v = row[k];
    if (typeof v === 'string' && v) parts.push(`${k}: ${v}`);
  }
  const poll = row['polling'];
  if (poll && typeof poll === 'object') parts.push(`polling: ${JSON.stringify(poll)}`);
  return parts.length ? <span class="muted">{parts.join(' · ')}</span> : null;
}

export function describe(e: unknown): string {
  return describeError(e);
}
