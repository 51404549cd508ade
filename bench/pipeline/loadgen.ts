/**
 * The load generator of `npm run bench:pipeline`, in a process of its own (forked by run.ts
 * over IPC) so its CPU is measured apart and never charged to the pipeline. It builds the
 * documents, submits them over HTTP as partners do, reads the organization's feed through
 * `GET /platform/feed_entries` as a polling organization does (the end point of a set: its
 * entry is readable there), and runs the webhook receiver (the end point of a webhook set: the
 * call arrives). Every request stays inside the contract's 240 requests a minute per key: the
 * orchestrator hands it enough keys, and it spreads the requests over them.
 *
 * Protocol: the parent sends `{ id, op, args }`; the child answers `{ id, ok, value }` or
 * `{ id, ok: false, error }`. At start it sends `{ ready: true, webhookUrl }`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { interchange, po850, type SetSpec } from '../../test/integration/pipeline/support.ts';
import { startReceiver } from '../../test/integration/helpers/webhook-receiver.ts';
import type { SegmentToWrite } from '../../src/x12/index.ts';


/** A feed entry as the poller saw it: its `createdAt` and when it was first readable (ms since the epoch). */
export interface SeenEntry {
  readonly trace: string;
  readonly status: string;
  readonly createdAt: number;
  readonly readableAt: number;
}

/** The feed poller's requests, those that failed and were retried, and those refused with 429. */
export interface FeedStats {
  readonly requests: number;
  readonly failures: number;
  readonly refused: number;
}

/** One submission: when it was due (open loop) or started, when it was answered, and how. */
export interface Submission {
  readonly trace?: string;
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly status: number;
}

export interface InterchangeArgs {
  readonly url: string;
  readonly key: string;
  readonly pollKeys: readonly string[];
  readonly pollMs: number;
  readonly partner: string;
  readonly sets: number;
  readonly lines: number;
  readonly tag: string;
  readonly timeoutMs: number;
}
export interface InterchangeValue {
  readonly t0: number;
  readonly acceptedMs: number;
  readonly bytes: number;
  readonly entries: SeenEntry[];
  readonly feed: FeedStats;
}

export interface OpenArgs {
  readonly url: string;
  readonly keys: readonly string[];
  readonly pollKeys: readonly string[];
  readonly pollMs: number;
  readonly partner: string;
  readonly rate: number;
  readonly count: number;
  readonly maxInFlight: number;
  readonly timeoutMs: number;
}
export interface OpenValue {
  readonly submissions: Submission[];
  /** Due but not sent because `maxInFlight` submissions were outstanding. */
  readonly skipped: number;
  readonly firstSendAt: number;
  readonly lastSendAt: number;
  readonly errors: string[];
  readonly entries: SeenEntry[];
  readonly feed: FeedStats;
}

export interface ClosedArgs {
  readonly url: string;
  readonly keys: readonly string[];
  readonly partner: string;
  /** Number of single-set interchanges, or (with `sets`) one interchange of `sets` sets. */
  readonly count: number;
  readonly sets?: number;
  readonly concurrency: number;
  readonly webhookPath: string;
  readonly timeoutMs: number;
}
export interface ClosedValue {
  readonly t0: number;
  readonly started: Record<string, number>;
  readonly calls: { trace: string; at: number }[];
}

export interface IdleArgs {
  readonly url: string;
  readonly key: string;
  readonly pollKeys: readonly string[];
  readonly pollMs: number;
  readonly partner: string;
  readonly count: number;
  readonly pauseMs: number;
  readonly webhookPath: string;
  readonly timeoutMs: number;
}
export interface IdleValue {
  readonly items: { sentAt: number; createdAt: number; readableAt: number; webhookAt: number }[];
}

export interface MixArgs {
  readonly url: string;
  readonly keys: readonly string[];
  readonly pollKeys: readonly string[];
  readonly pollMs: number;
  readonly count: number;
  readonly concurrency: number;
  readonly sftpDir: string;
  readonly timeoutMs: number;
}
export interface MixValue {
  readonly t0: number;
  readonly n850: number;
  readonly n810: number;
  readonly acks: number;
  readonly started: Record<string, number>;
  readonly entries: SeenEntry[];
  readonly endAt: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `createdAt` (ISO 8601 with microseconds) in ms since the epoch, with the sub-millisecond part. */
export function isoMs(s: string): number {
  const m = /\.(\d+)Z$/.exec(s);
  const base = Date.parse(s.replace(/\.\d+Z$/, 'Z'));
  return m ? base + Number(`0.${m[1]}`) * 1000 : base;
}

// ---------------------------------------------------------------------------------------------
// documents

let control = 100;
const single850 = (n: number, tag = 'A'): string => interchange({ control: ++control, groups: [{ sets: [po850(`${tag}-${n}`)] }] });
function bigInterchange(sets: number, linesPerSet: number, tag: string): string {
  return interchange({ control: ++control, groups: [{ sets: Array.from({ length: sets }, (_, i): SetSpec => po850(`${tag}-${i}`, linesPerSet)) }] });
}
function invoice(n: number): Record<string, unknown> {
  return { invoiceNumber: `INV-${n}`, invoiceDate: '2026-03-05', orderNumber: `PO-${n}`, total: 25, lines: [{ sku: 'WIDGET-1', quantity: 10, unitPrice: 2.5 }] };
}
/** The partner's 997 accepting every set of one of our 810 groups. */
function ack997(group: string, sets: readonly string[]): string {
  const segments: SegmentToWrite[] = [{ id: 'AK1', elements: ['IN', group] }];
  for (const s of sets) segments.push({ id: 'AK2', elements: ['810', s] }, { id: 'AK5', elements: ['A'] });
  segments.push({ id: 'AK9', elements: ['A', String(sets.length), String(sets.length), String(sets.length)] });
  return interchange({ control: ++control, groups: [{ sets: [{ id: '997', segments }] }] });
}

// ---------------------------------------------------------------------------------------------
// HTTP

/** An error's message with its cause's (fetch reports every network failure as "fetch failed"). */
function failureText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: string; message?: string } | undefined;
  return cause ? `${err.message}: ${cause.code ?? ''} ${cause.message ?? ''}`.trim() : err.message;
}

async function call(url: string, key: string, p: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${p}`, { ...init, headers: { authorization: `Key ${key}`, ...(init.headers ?? {}) }, signal: AbortSignal.timeout(120_000) });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

const submitEdi = (url: string, key: string, partner: string, edi: string): Promise<{ status: number; body: Record<string, unknown> }> =>
  call(url, key, `/platform/partners/${encodeURIComponent(partner)}/edi`, { method: 'POST', body: edi, headers: { 'content-type': 'application/edi-x12' } });

async function accepted(r: Promise<{ status: number; body: Record<string, unknown> }>): Promise<string> {
  const res = await r;
  if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body['traceGuid'] as string;
}

/** Round-robin over keys. */
function rotation(keys: readonly string[]): () => string {
  let i = 0;
  return () => keys[i++ % keys.length]!;
}

/**
 * Reads the organization's feed as the contract's polling procedure says: pages at once while
 * `hasMore`, else waits `pollMs` and asks again with the saved cursor. Requests rotate over the
 * keys and are at least `minGapMs` apart, so each key stays inside its budget.
 */
class FeedPoller {
  readonly entries = new Map<string, SeenEntry>();
  requests = 0;
  /** Requests that failed (and were retried), and how many of them were refused with 429. */
  failures = 0;
  refused = 0;
  private cursor: string | undefined;
  private stopped = false;
  private failed: unknown;
  private readonly running: Promise<void>;
  private wake: (() => void) | undefined;
  private readonly next: () => string;

  constructor(
    private readonly url: string,
    keys: readonly string[],
    private readonly pollMs: number,
    minGapMs: number,
  ) {
    this.next = rotation(keys);
    this.running = this.loop(minGapMs).catch((err: unknown) => {
      this.failed = err ?? new Error('the feed poller failed');
    });
  }

  private async loop(minGapMs: number): Promise<void> {
    let last = 0;
    let failedInARow = 0;
    while (!this.stopped) {
      const gap = last + minGapMs - performance.now();
      if (gap > 0) await sleep(gap);
      last = performance.now();
      const q = new URLSearchParams({ limit: '100', ...(this.cursor ? { cursor: this.cursor } : {}) });
      let r: { status: number; body: Record<string, unknown> };
      try {
        r = await call(this.url, this.next(), `/platform/feed_entries?${q.toString()}`);
      } catch (err) {
        r = { status: 0, body: { error: failureText(err) } };
      }
      const at = Date.now();
      this.requests++;
      if (r.status !== 200) {
        // a busy API may time out or refuse now and then: retry, and give up only when it keeps failing
        this.failures++;
        if (r.status === 429) this.refused++;
        if (++failedInARow >= 20) throw new Error(`GET /platform/feed_entries failed 20 times in a row, last ${r.status}: ${JSON.stringify(r.body)}`);
        await sleep(r.status === 429 ? 1000 : 250);
        continue;
      }
      failedInARow = 0;
      for (const e of (r.body['feedEntries'] ?? []) as { id: string; traceGuid: string; status: string; createdAt: string }[]) {
        if (!this.entries.has(e.id)) this.entries.set(e.id, { trace: e.traceGuid, status: e.status, createdAt: isoMs(e.createdAt), readableAt: at });
      }
      const pg = r.body['pagination'] as { hasMore: boolean; nextCursor: string | null } | undefined;
      if (pg?.nextCursor) this.cursor = pg.nextCursor;
      if (pg?.hasMore) continue;
      this.wake?.();
      await sleep(this.pollMs);
    }
  }

  /** Resolves once `done()` holds after a poll. */
  async until(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const failed = this.failed;
      if (failed) throw failed instanceof Error ? failed : new Error('the feed poller failed');
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${this.entries.size} feed entries seen)`);
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 200);
      });
    }
  }

  stats(): FeedStats {
    return { requests: this.requests, failures: this.failures, refused: this.refused };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}

/** Feed requests at most this often across a tenant's polling keys (each key then stays far inside 240/min). */
const minGapFor = (keys: number): number => Math.ceil(60_000 / (keys * 200));

// ---------------------------------------------------------------------------------------------
// scenarios

async function interchangeOp(a: InterchangeArgs): Promise<InterchangeValue> {
  const edi = bigInterchange(a.sets, a.lines, a.tag);
  const poller = new FeedPoller(a.url, a.pollKeys, a.pollMs, minGapFor(a.pollKeys.length));
  try {
    const t0 = Date.now();
    await accepted(submitEdi(a.url, a.key, a.partner, edi));
    const acceptedMs = Date.now() - t0;
    await poller.until(`${a.sets} feed entries`, () => poller.entries.size >= a.sets, a.timeoutMs);
    return { t0, acceptedMs, bytes: Buffer.byteLength(edi), entries: [...poller.entries.values()], feed: poller.stats() };
  } finally {
    await poller.stop();
  }
}

/** Open loop: submission `i` is due at t0 + i / rate, sent then whatever the earlier ones are doing. */
async function openOp(a: OpenArgs): Promise<OpenValue> {
  const docs = Array.from({ length: a.count }, (_, i) => single850(i, 'O'));
  const key = rotation(a.keys);
  const submissions: Submission[] = [];
  const errors: string[] = [];
  let inFlight = 0;
  let skipped = 0;
  const pending: Promise<void>[] = [];
  const poller = new FeedPoller(a.url, a.pollKeys, a.pollMs, minGapFor(a.pollKeys.length));
  try {
    await sleep(50);
    const t0 = Date.now() + 20;
    const perf0 = performance.now() + 20;
    let i = 0;
    let firstSendAt = 0;
    let lastSendAt = 0;
    while (i < a.count) {
      const due = Math.min(a.count, Math.floor(((performance.now() - perf0) * a.rate) / 1000) + 1);
      while (i < due) {
        const n = i++;
        if (inFlight >= a.maxInFlight) {
          skipped++;
          continue;
        }
        const dueAt = t0 + (n * 1000) / a.rate;
        const now = Date.now();
        if (!firstSendAt) firstSendAt = now;
        lastSendAt = now;
        inFlight++;
        pending.push(
          submitEdi(a.url, key(), a.partner, docs[n]!).then(
            (r) => {
              inFlight--;
              submissions.push({ ...(r.status === 202 ? { trace: r.body['traceGuid'] as string } : {}), sentAt: dueAt, answeredAt: Date.now(), status: r.status });
              if (r.status !== 202 && errors.length < 5) errors.push(`${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
            },
            (err: unknown) => {
              inFlight--;
              submissions.push({ sentAt: dueAt, answeredAt: Date.now(), status: 0 });
              if (errors.length < 5) errors.push(failureText(err));
            },
          ),
        );
      }
      if (i < a.count) await sleep(Math.max(1, Math.min(5, 1000 / a.rate)));
    }
    await Promise.all(pending);
    const want = submissions.filter((s) => s.trace).length;
    await poller.until(`${want} feed entries`, () => poller.entries.size >= want, a.timeoutMs);
    return { submissions, skipped, firstSendAt, lastSendAt, errors, entries: [...poller.entries.values()], feed: poller.stats() };
  } finally {
    await poller.stop();
  }
}

// the signing secret of the bench's webhook configuration, from the orchestrator
const receiver = await startReceiver(process.env['BENCH_WEBHOOK_SECRET'] ?? '');
receiver.script('/in', [200]);

async function waitCalls(p: string, before: number, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (receiver.callsTo(p).length - before < n) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} webhook calls (${receiver.callsTo(p).length - before} arrived)`);
    await sleep(20);
  }
}

/** Closed loop over a webhook partner: `concurrency` submissions in flight; the end point is each call's arrival. */
async function closedOp(a: ClosedArgs): Promise<ClosedValue> {
  const key = rotation(a.keys);
  const before = receiver.callsTo(a.webhookPath).length;
  const started: Record<string, number> = {};
  let t0: number;
  let expected: number;
  if (a.sets) {
    const edi = bigInterchange(a.sets, 3, 'W');
    t0 = Date.now();
    started[await accepted(submitEdi(a.url, key(), a.partner, edi))] = t0;
    expected = a.sets;
  } else {
    const docs = Array.from({ length: a.count }, (_, i) => single850(i, 'W'));
    t0 = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(a.concurrency, a.count) }, async () => {
        while (next < a.count) {
          const i = next++;
          const at = Date.now();
          started[await accepted(submitEdi(a.url, key(), a.partner, docs[i]!))] = at;
        }
      }),
    );
    expected = a.count;
  }
  await waitCalls(a.webhookPath, before, expected, a.timeoutMs);
  const calls = receiver
    .callsTo(a.webhookPath)
    .slice(before)
    .filter((c) => c.payload)
    .map((c) => ({ trace: String(c.payload!['traceGuid']), at: c.at }));
  return { t0, started, calls };
}

/** One single-set interchange at a time, each delivered (webhook call and feed entry) before the next. */
async function idleOp(a: IdleArgs): Promise<IdleValue> {
  const poller = new FeedPoller(a.url, a.pollKeys, a.pollMs, minGapFor(a.pollKeys.length));
  const items: IdleValue['items'] = [];
  try {
    const docs = Array.from({ length: a.count }, (_, i) => single850(i, 'I'));
    for (let i = 0; i < a.count; i++) {
      const before = receiver.callsTo(a.webhookPath).length;
      const sentAt = Date.now();
      const trace = await accepted(submitEdi(a.url, a.key, a.partner, docs[i]!));
      const seen = (): SeenEntry | undefined => [...poller.entries.values()].find((e) => e.trace === trace);
      await waitCalls(a.webhookPath, before, 1, a.timeoutMs);
      await poller.until(`the feed entry of idle interchange ${i + 1}`, () => seen() !== undefined, a.timeoutMs);
      const call = receiver
        .callsTo(a.webhookPath)
        .slice(before)
        .find((c) => c.payload && c.payload['traceGuid'] === trace);
      const e = seen()!;
      items.push({ sentAt, createdAt: e.createdAt, readableAt: e.readableAt, webhookAt: call?.at ?? NaN });
      await sleep(a.pauseMs);
    }
    return { items };
  } finally {
    await poller.stop();
  }
}

/** 90% single-set 850s and 10% outbound 810s (uploaded by SFTP), the partner answering each 810 file with a 997. */
async function mixOp(a: MixArgs): Promise<MixValue> {
  const key = rotation(a.keys);
  const n810 = Math.round(a.count / 10);
  const n850 = a.count - n810;
  const docs = Array.from({ length: a.count }, (_, i) => (i % 10 === 9 ? undefined : single850(i, 'M')));
  const poller = new FeedPoller(a.url, a.pollKeys, a.pollMs, minGapFor(a.pollKeys.length));
  try {
    const started: Record<string, number> = {};
    const t0 = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(a.concurrency, a.count) }, async () => {
        while (next < a.count) {
          const i = next++;
          const at = Date.now();
          const d = docs[i];
          const trace = d
            ? await accepted(submitEdi(a.url, key(), 'GLOBEX', d))
            : await accepted(call(a.url, key(), `/platform/partners/INV/documents`, { method: 'POST', body: JSON.stringify({ transactionSetIdentifier: '810', document: invoice(i) }), headers: { 'content-type': 'application/json' } }));
          started[trace] = at;
        }
      }),
    );
    const answered = new Set<string>();
    let acks = 0;
    let accepted810 = 0;
    let lastCount = 0;
    const deadline = Date.now() + a.timeoutMs;
    for (;;) {
      for (const f of readdirSync(a.sftpDir)) {
        if (answered.has(f) || f.startsWith('.') || f === 'in') continue;
        const text = readFileSync(path.join(a.sftpDir, f), 'utf8');
        const gs = /GS\*[^~\n]*/.exec(text)?.[0].split('*');
        const sts = [...text.matchAll(/ST\*810\*(\d+)/g)].map((m) => m[1]!);
        if (!gs || sts.length === 0) continue;
        answered.add(f);
        acks++;
        void accepted(submitEdi(a.url, key(), 'INV', ack997(gs[6]!, sts)));
      }
      const inbound = [...poller.entries.values()].filter((e) => e.status === 'success' && started[e.trace] !== undefined).length;
      if (inbound >= n850 && Date.now() - lastCount > 1000) {
        lastCount = Date.now();
        accepted810 = 0;
        let cursor: string | undefined;
        for (;;) {
          const q = new URLSearchParams({ direction: 'outbound', transaction_set_identifier: '810', ack_status: 'accepted', limit: '100', compact: 'true', ...(cursor ? { cursor } : {}) });
          const r = await call(a.url, key(), `/platform/edi_transactions?${q.toString()}`);
          accepted810 += ((r.body['ediTransactions'] ?? []) as unknown[]).length;
          const pg = r.body['pagination'] as { hasMore: boolean; nextCursor: string | null } | undefined;
          if (!pg?.hasMore || !pg.nextCursor) break;
          cursor = pg.nextCursor;
        }
        if (accepted810 >= n810) break;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${n810} accepted 810s (${accepted810}) and ${n850} feed entries (${inbound})`);
      await sleep(250);
    }
    return { t0, n850, n810, acks, started, entries: [...poller.entries.values()], endAt: Date.now() };
  } finally {
    await poller.stop();
  }
}

async function warmOp(a: { url: string; key: string; pollKeys: string[]; timeoutMs: number }): Promise<number> {
  const poller = new FeedPoller(a.url, a.pollKeys, 100, minGapFor(a.pollKeys.length));
  try {
    const t0 = Date.now();
    await accepted(submitEdi(a.url, a.key, 'GLOBEX', single850(0, 'WARM')));
    await poller.until('the warm-up feed entry', () => poller.entries.size >= 1, a.timeoutMs);
    return Date.now() - t0;
  } finally {
    await poller.stop();
  }
}

// ---------------------------------------------------------------------------------------------

const ops: Record<string, (args: never) => Promise<unknown>> = { interchange: interchangeOp, open: openOp, closed: closedOp, idle: idleOp, mix: mixOp, warm: warmOp };

process.on('message', (msg: { id: number; op: string; args: unknown }) => {
  const op = ops[msg.op];
  const run = op ? op(msg.args as never) : Promise.reject(new Error(`unknown load generator operation ${msg.op}`));
  run.then(
    (value) => process.send!({ id: msg.id, ok: true, value }),
    (err: unknown) => process.send!({ id: msg.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
process.on('disconnect', () => {
  void receiver.close().finally(() => process.exit(0));
});
process.send!({ ready: true, webhookUrl: receiver.url });
