/** One transaction: its facts, replay buttons, the EDI read as a person would, the JSON, and its trace. */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, describeError, type ArtifactPointer, type LogEntry, type Pagination, type Payload, type Result, type Trace, type TransactionDetail, type TransactionRow, type Warning } from './api.ts';
import { onlySet, renderX12, type RenderedElement, type RenderedSegment } from './edi.ts';
import { Badge, ErrorNote, href, Json, Show, TableBox, Time, useLoad, useSession } from './ui.tsx';

function Fact({ name, children }: { name: string; children: JSX.Element | string | number | null }): JSX.Element {
  return (
    <>
      <dt>{name}</dt>
      <dd>{children ?? <span class="muted">—</span>}</dd>
    </>
  );
}

const txLink = (id: string | null | undefined): JSX.Element | null => (id ? <a href={href(`/transactions/${id}`)}>{id}</a> : null);

export function TransactionPage({ id }: { id: string }): JSX.Element {
  const { api } = useSession();
  const [data, reload] = useLoad(() => api.get<TransactionDetail>(`/platform/edi_transactions/${encodeURIComponent(id)}`), [id]);
  return (
    <Show value={data}>
      {(t) => (
        <article aria-labelledby="h-detail">
          <h1 id="h-detail">
            {t.transactionSetIdentifier} {t.direction} {t.reference ? <span>“{t.reference}”</span> : null}
          </h1>
          <dl class="facts">
            <Fact name="Status">
              <Badge value={t.status} />
            </Fact>
            <Fact name="Partner">{t.partnerKey ? <a href={href('/transactions', { partner: t.partnerKey })}>{t.partnerKey}</a> : null}</Fact>
            <Fact name="Acknowledgment">
              <Badge value={t.acknowledgmentStatus} />
            </Fact>
            <Fact name="Answered by (997)">{txLink(t.acknowledgedBy)}</Fact>
            <Fact name="Acknowledges">{txLink(t.acknowledges)}</Fact>
            <Fact name="Duplicate of">{txLink(t.duplicateOf)}</Fact>
            <Fact name="Resend count">
              <span data-testid="resend-count">{t.resendCount}</span>
            </Fact>
            <Fact name="Last resent">{t.lastResentAt ? <Time at={t.lastResentAt} /> : null}</Fact>
            <Fact name="Created">
              <Time at={t.createdAt} />
            </Fact>
            <Fact name="Delivered">{t.deliveredAt ? <Time at={t.deliveredAt} /> : null}</Fact>
            <Fact name="Usage">{t.usageIndicator}</Fact>
            <Fact name="Sender">{`${t.senderQualifier}/${t.senderExtid}`}</Fact>
            <Fact name="Receiver">{`${t.receiverQualifier}/${t.receiverExtid}`}</Fact>
            <Fact name="Control numbers">{`ISA ${t.interchangeControlNumber} · GS ${t.groupControlNumber} · ST ${t.transactionSetControlNumber}`}</Fact>
            <Fact name="Flow">{t.flowName}</Fact>
            <Fact name="Trace">
              <a href={href(`/traces/${t.traceGuid}`)}>{t.traceGuid}</a>
            </Fact>
          </dl>
          {t.traceErroredElsewhere ? <p class="note">Another document on this trace failed (at {t.traceErroredElsewhereNodeName ?? 'a step'}).</p> : null}
          <Replay t={t} onDone={reload} />
          <h2>Warnings</h2>
          {t.warnings.length === 0 ? <p class="muted">No warnings.</p> : <WarningList warnings={t.warnings} />}
          <h2>Artifacts</h2>
          <Artifacts t={t} />
          <Documents t={t} />
          <h2>Trace</h2>
          <Timeline results={t.results} traceGuid={t.traceGuid} />
        </article>
      )}
    </Show>
  );
}

function WarningList({ warnings }: { warnings: readonly Warning[] }): JSX.Element {
  return (
    <ul class="warnings">
      {warnings.map((w, i) => (
        <li key={i}>
          <code>{w.code}</code> {w.message}
        </li>
      ))}
    </ul>
  );
}

function Replay({ t, onDone }: { t: TransactionDetail; onDone: () => void }): JSX.Element {
  const { api } = useSession();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const kind = t.direction === 'outbound' ? 'resend' : 'redeliver';
  const run = async (): Promise<void> => {
    setBusy(true);
    setMessage(null);
    try {
      const r = await api.answer<{ message: string }>('POST', `/platform/edi_transactions/${encodeURIComponent(t.id)}/${kind}`);
      const budget = r.remaining === undefined ? '' : ` ${r.remaining} of ${r.limit ?? '?'} replays left this minute.`;
      setMessage({ ok: true, text: `${r.body.message}${budget}` });
      onDone();
    } catch (e) {
      const prefix = e instanceof ApiError ? `Refused (${e.status} ${e.code}): ` : 'Failed: ';
      setMessage({ ok: false, text: prefix + describeError(e) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="replay">
      <button type="button" onClick={() => void run()} disabled={busy}>
        {kind === 'resend' ? 'Resend to the partner' : 'Redeliver to us'}
      </button>
      {message ? (
        <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'} data-testid="replay-message">
          {message.text}
        </p>
      ) : null}
    </div>
  );
}

function pointers(t: TransactionDetail): ArtifactPointer[] {
  const seen = new Map<string, ArtifactPointer>();
  for (const r of t.results) for (const a of r.detail.artifacts ?? []) if (!seen.has(a.id)) seen.set(a.id, a);
  for (const role of Object.values(t.artifacts)) if (role && 'id' in role && !seen.has(role.id)) seen.set(role.id, { id: role.id, usage: role.usage, contentType: role.contentType, filename: role.filename });
  return [...seen.values()];
}

function Artifacts({ t }: { t: TransactionDetail }): JSX.Element {
  const { api } = useSession();
  const [error, setError] = useState<unknown>(null);
  const list = pointers(t);
  if (list.length === 0) return <p class="muted">No stored artifacts.</p>;
  const download = async (a: ArtifactPointer): Promise<void> => {
    try {
      const f = await api.artifact(a.id);
      const url = URL.createObjectURL(f.blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = f.filename ?? a.filename ?? a.id;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <ul class="artifacts">
        {list.map((a) => (
          <li key={a.id}>
            <button type="button" class="secondary" onClick={() => void download(a)}>
              Download {a.filename ?? a.id}
            </button>{' '}
            <span class="muted">
              {a.usage} · {a.contentType ?? 'unknown type'}
            </span>
          </li>
        ))}
      </ul>
      {error ? <ErrorNote error={error} /> : null}
    </>
  );
}

/** The EDI (rendered) and the JSON (translation or submitted document) side by side. */
function Documents({ t }: { t: TransactionDetail }): JSX.Element {
  const { api } = useSession();
  const list = pointers(t);
  const edi = list.filter((a) => a.contentType === 'application/edi-x12');
  const json = list.filter((a) => a.contentType === 'application/json');
  // inbound: the EDI that arrived and its translation; outbound: the EDI we wrote and what was submitted
  const ediPick = t.direction === 'inbound' ? edi.find((a) => a.usage === 'input') ?? edi[0] : edi.find((a) => a.usage === 'output') ?? edi[edi.length - 1];
  const jsonPick = json.find((a) => a.usage === 'translation') ?? json.find((a) => a.usage === (t.direction === 'inbound' ? 'output' : 'input')) ?? json[0];
  const [docs] = useLoad(async () => {
    const [e, j] = await Promise.all([ediPick ? api.artifact(ediPick.id) : null, jsonPick ? api.artifact(jsonPick.id) : null]);
    let parsed: unknown = null;
    if (j) {
      try {
        parsed = JSON.parse(j.text);
      } catch {
        parsed = j.text;
      }
    }
    return { edi: e?.text ?? null, json: parsed };
  }, [ediPick?.id, jsonPick?.id]);
  return (
    <Show value={docs}>
      {(d) => (
        <div class="documents">
          <section aria-labelledby="h-edi">
            <h2 id="h-edi">EDI</h2>
            {d.edi ? <EdiView text={d.edi} transaction={t} /> : <p class="muted">No EDI stored for this document.</p>}
          </section>
          <section aria-labelledby="h-json">
            <h2 id="h-json">JSON</h2>
            {d.json !== null ? <Json value={d.json} label="JSON document" /> : <p class="muted">No JSON stored for this document.</p>}
          </section>
        </div>
      )}
    </Show>
  );
}

/** Segments of the document: names, elements with their names and code meanings, findings marked. */
export function EdiView({ text, transaction }: { text: string; transaction: TransactionDetail }): JSX.Element {
  const all = renderX12(text);
  if (all.length === 0)
    return (
      <pre class="json" tabIndex={0} aria-label="EDI text">
        {text}
      </pre>
    );
  const { segments, hidden } = onlySet(all, transaction.groupControlNumber, transaction.transactionSetControlNumber);
  // the findings the engine recorded that name a segment and element (invalid_date)
  const marks = new Map<string, string>();
  for (const w of transaction.warnings) {
    const seg = w.detail?.['segment'];
    const el = w.detail?.['element'];
    if (typeof seg !== 'string') continue;
    marks.set(seg, w.message);
    // the engine names the element by its name (invalid_date: "Date"); a label ("BEG05") works too
    if (typeof el === 'string' || typeof el === 'number') marks.set(`${seg}:${String(el)}`, w.message);
  }
  return (
    <>
      {hidden > 0 ? <p class="muted">The interchange holds {hidden} other transaction set(s), not shown; download it above to see them all.</p> : null}
      <ol class="edi" aria-label="EDI segments">
        {segments.map((s, i) => (
          <Segment key={i} s={s} marks={marks} />
        ))}
      </ol>
    </>
  );
}

function Segment({ s, marks }: { s: RenderedSegment; marks: Map<string, string> }): JSX.Element {
  const mark = marks.get(s.id);
  return (
    <li class={`seg${mark ? ' flagged' : ''}`} style={{ marginInlineStart: `${s.depth * 1.1}rem` }} data-segment={s.id}>
      <details>
        <summary>
          <code class="seg-id">{s.id}</code> <span class="seg-name">{s.name ?? 'unknown segment'}</span>
          {s.loop ? <span class="muted"> · loop {s.loop}</span> : null}
          {mark ? <span class="flag"> ⚠ {mark}</span> : null}
        </summary>
        <code class="raw">{s.raw}</code>
        <dl class="elements">
          {s.elements.map((e) => (
            <ElementRow key={e.label} e={e} flagged={marks.get(`${s.id}:${e.label}`) ?? (e.name ? marks.get(`${s.id}:${e.name}`) : undefined)} />
          ))}
        </dl>
      </details>
    </li>
  );
}

function ElementRow({ e, flagged }: { e: RenderedElement; flagged: string | undefined }): JSX.Element | null {
  if (e.value === '') return null;
  return (
    <>
      <dt data-element={e.label}>
        {e.label} {e.name ?? ''}
        {e.reference ? <span class="muted"> ({e.reference})</span> : null}
      </dt>
      <dd class={flagged ? 'flagged' : undefined}>
        <code>{e.value}</code>
        {e.meaning ? <span class="meaning"> {e.meaning}</span> : null}
        {flagged ? <span class="flag"> ⚠ {flagged}</span> : null}
        {e.components ? (
          <dl class="elements">
            {e.components.map((c) => (
              <ElementRow key={c.label} e={c} flagged={undefined} />
            ))}
          </dl>
        ) : null}
      </dd>
    </>
  );
}

// ---- trace ----

export function TracePage({ guid }: { guid: string }): JSX.Element {
  const { api } = useSession();
  const [data] = useLoad(async () => {
    const [trace, txs, results] = await Promise.all([
      api.get<Trace>(`/platform/traces/${encodeURIComponent(guid)}`),
      api.get<{ ediTransactions: TransactionRow[] }>('/platform/edi_transactions', { trace: guid, limit: 100 }),
      allPages<Result>((cursor) => api.get('/platform/results', { trace: guid, limit: 100, cursor }), 'results'),
    ]);
    return { trace, transactions: txs.ediTransactions, results };
  }, [guid]);
  return (
    <section aria-labelledby="h-trace">
      <h1 id="h-trace">Trace {guid}</h1>
      <Show value={data}>
        {(t) => (
          <>
            {t.trace.flow ? <p>Flow: {t.trace.flow.name}</p> : null}
            <h2>Documents</h2>
            <ul>
              {t.transactions.map((x) => (
                <li key={x.id}>
                  <a href={href(`/transactions/${x.id}`)}>
                    {x.transactionSetIdentifier} {x.direction} {x.reference ?? ''}
                  </a>{' '}
                  <Badge value={x.status} />
                </li>
              ))}
            </ul>
            <h2>Steps</h2>
            <Timeline results={t.results} traceGuid={guid} />
          </>
        )}
      </Show>
    </section>
  );
}

/** Every row of a cursor-paged list, up to five pages. */
async function allPages<T>(page: (cursor: string | null) => Promise<Record<string, unknown>>, name: string): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 5; i++) {
    const r = await page(cursor);
    rows.push(...((r[name] as T[] | undefined) ?? []));
    const pg = r['pagination'] as Pagination | undefined;
    if (!pg?.hasMore || !pg.nextCursor) break;
    cursor = pg.nextCursor;
  }
  return rows;
}

/** The steps of a run in time order with their results, payloads on request, and the run's logs. */
export function Timeline({ results, traceGuid }: { results: readonly Result[]; traceGuid: string }): JSX.Element {
  const { api } = useSession();
  const [logs] = useLoad(() => allPages<LogEntry>((cursor) => api.get('/platform/logs', { trace: traceGuid, limit: 100, cursor }), 'logs'), [traceGuid]);
  const sorted = [...results].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return (
    <>
      <ol class="timeline" aria-label="Steps of the run">
        {sorted.map((r) => (
          <li key={r.id} class={`step step-${r.status}`}>
            <p>
              <Time at={r.createdAt} /> <strong class="step-name">{r.nodeName}</strong> <Badge value={r.status} />
              {r.detail.resend ? <span class="muted"> replay</span> : null}
            </p>
            {r.detail.errorMessage ? <p class="error">{r.detail.errorMessage}</p> : null}
            {r.detail.errors && r.detail.errors.length > 1 ? (
              <ul>
                {r.detail.errors.map((e, i) => (
                  <li key={i}>{e}</li>
                ))}
              </ul>
            ) : null}
            {r.detail.warnings?.length ? <WarningList warnings={r.detail.warnings} /> : null}
            <PayloadView result={r} />
          </li>
        ))}
      </ol>
      <h3>Logs</h3>
      <Show value={logs}>
        {(l) =>
          l.length === 0 ? (
            <p class="muted">No log entries yet (entries appear a few seconds after they are written).</p>
          ) : (
            <TableBox label="Log entries">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Level</th>
                  <th scope="col">Step</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {l.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Time at={e.createdAt} />
                    </td>
                    <td>
                      <Badge value={e.level} />
                    </td>
                    <td>{e.nodeName ?? '—'}</td>
                    <td class="wrap">{e.message}</td>
                  </tr>
                ))}
              </tbody>
            </TableBox>
          )
        }
      </Show>
    </>
  );
}

/** A result's payload: its shape first (keysOnly), then any part by jsonPath. */
function PayloadView({ result }: { result: Result }): JSX.Element {
  const { api } = useSession();
  const [open, setOpen] = useState(false);
  const [path, setPath] = useState('');
  const [payload, setPayload] = useState<{ p: Payload; shape: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = async (jsonPath: string): Promise<void> => {
    setError(null);
    try {
      const shape = jsonPath === '';
      const p = await api.get<Payload>(`/platform/results/${encodeURIComponent(result.id)}/payload`, shape ? { keysOnly: true } : { jsonPath });
      setPayload({ p, shape });
    } catch (e) {
      setError(e);
    }
  };
  if (!open)
    return (
      <button
        type="button"
        class="secondary small"
        onClick={() => {
          setOpen(true);
          void load('');
        }}
      >
        Payload of {result.nodeName}
      </button>
    );
  return (
    <div class="payload">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void load(path);
        }}
      >
        <label>
          jsonPath
          <input value={path} onInput={(e) => setPath(e.currentTarget.value)} placeholder="heading.0 (empty: the shape)" />
        </label>{' '}
        <button type="submit" class="small">
          Show
        </button>
      </form>
      {error ? <ErrorNote error={error} /> : null}
      {payload ? (
        payload.p.format === 'edi' && typeof payload.p.contents === 'string' ? (
          <pre class="json" tabIndex={0} aria-label="EDI payload">
            {payload.p.contents}
          </pre>
        ) : (
          <>
            <p class="muted">{payload.shape ? 'Shape of the payload (keys, types, array lengths):' : `Value at ${payload.p.jsonPath ?? ''}:`}</p>
            <Json value={payload.p.contents} label="Payload" />
          </>
        )
      ) : null}
    </div>
  );
}
