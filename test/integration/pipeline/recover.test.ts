/**
 * Recovery at operations scale (an extension; docs/transports.md, "Recovering failed
 * deliveries"), on the real stack: a receiver that is down (503, retries scaled down) turns
 * N webhook deliveries of one partner into final failures, next to failures of another partner
 * and of the same partner before the window; `tdx recover` for that partner and window then
 * delivers each of the N exactly once, with the resultId and webhook-id of its first delivery
 * attempts, no faster than the throttle; a second run delivers nothing; two runs started at once
 * over the other partner deliver each of its failures once between them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigDocument, PartnerDoc } from '../../../src/domain/configuration.ts';
import { statusOf } from '../../../src/domain/records.ts';
import { runCli } from '../../../src/cli/tdx.ts';
import { captureIo, eventually } from '../helpers/isolated-config.ts';
import { kafkaQuiet } from '../helpers/quiet.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const SECRET = 'whsec_cmVjb3Zlci10ZXN0LXNpZ25pbmctc2VjcmV0IQ==';
/**
 * Failed deliveries recovered in the window: RECOVER_COUNT, 100 in the integration suite (each
 * costs six failed calls and six failed error notifications before the recovery starts, and at
 * 100 the throttle, not the pipeline, still sets the recovery's pace: RATE below); `npm run
 * recover:scale` runs 2,000, the operations scale this file was written for.
 */
const N = Number(process.env['RECOVER_COUNT'] ?? 100);
if (!Number.isInteger(N) || N < 50) throw new Error(`RECOVER_COUNT must be an integer of 50 or more, got "${process.env['RECOVER_COUNT']}"`);
/**
 * Replays a second the recovery may start: 200 at full size, and at most a third of N, so that
 * the throttle rather than the pipeline sets the pace of the N replays (3 s at least).
 */
const RATE = Math.min(200, Math.floor(N / 3));

let p: Pipeline;
let rx: Receiver;

function doc(base: string): ConfigDocument {
  const partner = (key: string): PartnerDoc => ({
    key,
    name: `${key} Inc`,
    deliveryMethod: 'webhook',
    envelopes: { internal: 'us', external: 'them' },
    webhooks: { inbound: `in-${key.toLowerCase()}`, error: 'errors' },
    transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
  });
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    webhooks: [
      { name: 'in-hook', kind: 'standard' as const, url: `${base}/in/hook`, contentType: 'application/json', signingSecret: SECRET },
      { name: 'in-other', kind: 'standard' as const, url: `${base}/in/other`, contentType: 'application/json', signingSecret: SECRET },
      // the error notifications fail too: their failed results sit on the same transactions
      { name: 'errors', kind: 'standard' as const, url: `${base}/errors`, contentType: 'application/json', signingSecret: SECRET },
    ],
    implementations: [{ name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: [partner('HOOK'), partner('OTHER')],
  };
}

beforeAll(async () => {
  rx = await startReceiver(SECRET);
  rx.script('/in/hook', [503]);
  rx.script('/in/other', [503]);
  rx.script('/errors', [500]);
  // a schedule of 50 ms steps: six attempts, and so a final failure, within about half a second
  // of the first (what is recovered is the failure, not how long it took to come)
  p = await startPipeline(doc(rx.url), { env: { TDX_RETRY_DELAYS_SECONDS: '0.05,0.05,0.05,0.05,0.05', TDX_RECOVERY_MAX_RATE_PER_SECOND: '1000' }, sharedKeyspace: true });
}, 240_000);

afterAll(async () => {
  await p?.stop();
  await rx?.close();
});

let control = 5000;
/** One interchange of `n` purchase orders for `partner`; its transactions once they failed. */
async function failed(partner: string, n: number, prefix: string): Promise<string[]> {
  const sets = Array.from({ length: n }, (_, i) => ({ ...po850(`${prefix}-${i}`), control: String(i + 1).padStart(4, '0') }));
  const r = await p.submitEdi(partner, interchange({ control: ++control, groups: [{ sets }] }));
  expect(r.status).toBe(202);
  const txs = await p.settled(r.body['traceGuid'] as string, n, 240_000);
  expect(txs.map(statusOf).every((s) => s === 'error')).toBe(true);
  return txs.map((t) => t.id);
}

/** Runs `tdx recover` against the pipeline's API; its exit code and its last JSON progress. */
async function recoverCli(args: string[]): Promise<{ code: number; last: Record<string, unknown>; lines: number }> {
  const cap = captureIo();
  const code = await runCli(['recover', ...args, '--json', '--url', p.url, '--key', p.key], cap.io);
  const lines = cap.out().trim().split('\n');
  return { code, last: JSON.parse(lines.at(-1)!) as Record<string, unknown>, lines: lines.length };
}

describe('tdx recover', () => {
  it(`delivers ${N} failed webhook deliveries of a partner and window exactly once, at the throttle; a second run delivers nothing`, async () => {
    const t0 = Date.now();
    const took: string[] = [];
    const mark = (what: string): void => void took.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const before = await failed('HOOK', 10, 'EARLY');
    await new Promise((r) => setTimeout(r, 50));
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 50));
    // the other partner's failures come in the same window, at the same time
    const [inWindow] = await Promise.all([failed('HOOK', N, 'WIN'), failed('OTHER', 20, 'OTHER')]);
    const until = new Date().toISOString();
    mark('failed');
    expect(before.length + inWindow.length).toBe(N + 10);

    // every document's failed attempts, by webhook-id: the recovered calls must reuse them
    const failing = new Map<string, string>();
    for (const c of rx.callsTo('/in/hook')) failing.set(String(c.headers['webhook-id']), String(c.payload?.['resultId']));
    expect(failing.size).toBe(N + 10);

    // the transaction projection catches up (a dry run counts without starting anything)
    await eventually(async () => {
      const r = await p.api('/platform/recoveries', { method: 'POST', body: JSON.stringify({ partner: 'hook', direction: 'inbound', since, until, dryRun: true }) });
      expect(r.status, r.text).toBe(202);
      const run = await eventually(async () => {
        const g = await p.api(`/platform/recoveries/${String(r.body['id'])}`);
        return g.body['status'] === 'done' ? g.body : undefined;
      }, 60_000, 'the dry run');
      return run['matched'] === N && run['started'] === N ? run : undefined;
    }, 120_000, 'the failed transactions in the projection');
    mark('projected');
    expect(rx.callsTo('/in/hook').filter((c) => c.payload !== undefined).length).toBe((N + 10) * 6); // the dry run started nothing

    rx.script('/in/hook', [200]);
    rx.script('/in/other', [200]);
    const already = rx.callsTo('/in/hook').length;
    const first = await recoverCli(['--partner', 'hook', '--direction', 'inbound', '--since', since, '--until', until, '--error-code', 'http_5xx', '--rate', String(RATE)]);
    expect(first.code, JSON.stringify(first.last)).toBe(0);
    expect(first.last).toMatchObject({ status: 'done', matched: N, examined: N, started: N, errors: 0 });
    mark('recovery run done');

    const recovered = await eventually(() => {
      const calls = rx.callsTo('/in/hook').slice(already);
      return Promise.resolve(calls.length >= N ? calls : undefined);
    }, 120_000, 'the recovered deliveries');
    mark('recovered calls received');
    await kafkaQuiet(p.iso.config); // anything delivered twice would have arrived by now
    const all = rx.callsTo('/in/hook').slice(already);
    expect(all.length).toBe(N);
    const ids = all.map((c) => String(c.headers['webhook-id']));
    expect(new Set(ids).size).toBe(N);
    for (const c of all) {
      expect(c.payload, c.error).toBeDefined();
      // the same webhook-id and resultId as the document's failed attempts: a receiver recognizes the repeat
      expect(failing.get(String(c.headers['webhook-id']))).toBe(String(c.payload!['resultId']));
      expect(c.payload!['document']).toBeDefined();
    }
    // only the window's documents of the partner: none of the ten before it, none of OTHER's
    const earlyStores = await p.reader.stores();
    const earlyCounts = await Promise.all(before.map(async (id) => (await earlyStores.transactions.get(p.org, id))!.resendCount));
    expect(earlyCounts.every((n) => n === 0)).toBe(true);
    expect(rx.callsTo('/in/other').length).toBe(20 * 6);
    // the throttle: the run starts its N replays (N - 1) / RATE seconds apart at least, so it
    // lasts that long from its creation to its end (the service's clock; 3 s here)
    const paced = ((N - 1) / RATE) * 1000;
    const run = first.last as { createdAt: string; finishedAt: string };
    expect(Date.parse(run.finishedAt) - Date.parse(run.createdAt)).toBeGreaterThanOrEqual(paced);
    // and the receiver sees them spread out: unthrottled they would arrive within a second. The
    // receiver's span is shorter than the starts' by the difference between the first and the
    // last replay's latency through the pipeline (the first also waits for the consumers' next
    // fetch), which reached 0.6 s on a busy machine: more than half the paced span is required
    const span = recovered.at(-1)!.at - recovered[0]!.at;
    expect(span).toBeGreaterThan(paced / 2);
    const counts = await Promise.all(inWindow.map(async (id) => (await earlyStores.transactions.get(p.org, id))!.resendCount));
    expect(counts.every((n) => n === 1)).toBe(true);

    // a second run delivers nothing: every document was delivered since
    const second = await eventually(async () => {
      const r = await recoverCli(['--partner', 'HOOK', '--since', since, '--until', until]);
      return (r.last['skipped'] as Record<string, number>)['delivered_since'] === N ? r : undefined;
    }, 60_000, 'a second run seeing every delivery');
    mark('second run saw every delivery');
    expect(second.code).toBe(0);
    expect(second.last).toMatchObject({ status: 'done', matched: N, started: 0 });
    await kafkaQuiet(p.iso.config);
    expect(rx.callsTo('/in/hook').length - already).toBe(N);
    console.log(`recovery of ${N} at ${RATE}/s, from the first submission: ${took.join(', ')}`);
  }, 600_000);

  it('two runs started at once over the same failures deliver each failure once between them', async () => {
    const other = rx.callsTo('/in/other').length;
    const start = () => p.api('/platform/recoveries', { method: 'POST', body: JSON.stringify({ partner: 'OTHER', ratePerSecond: 50 }) });
    const [a, b] = await Promise.all([start(), start()]);
    expect([a.status, b.status]).toEqual([202, 202]);
    const done = async (id: string) =>
      eventually(async () => {
        const g = await p.api(`/platform/recoveries/${id}`);
        return g.body['status'] === 'done' ? g.body : undefined;
      }, 60_000, 'the run');
    const [ra, rb] = await Promise.all([done(String(a.body['id'])), done(String(b.body['id']))]);
    expect(Number(ra['started']) + Number(rb['started'])).toBe(20);
    // the other run found the mark, or (when it came later) the delivery already made
    const other2 = (r: Record<string, unknown>): number => (r['skipped'] as Record<string, number>)['already_recovered']! + (r['skipped'] as Record<string, number>)['delivered_since']!;
    expect(other2(ra) + other2(rb)).toBe(20);
    await eventually(() => Promise.resolve(rx.callsTo('/in/other').length - other >= 20 ? true : undefined), 60_000, 'the deliveries');
    await kafkaQuiet(p.iso.config); // a delivery made twice would have arrived by now
    const calls = rx.callsTo('/in/other').slice(other);
    expect(calls.length).toBe(20);
    expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).toBe(20);
  }, 240_000);

  it('refuses a filter it cannot read, and read-only keys', async () => {
    const bad = await p.api('/platform/recoveries', { method: 'POST', body: JSON.stringify({ direction: 'sideways' }) });
    expect([bad.status, (bad.body['error'] as { code: string }).code]).toEqual([400, 'invalid_body']);
    const ro = await p.api('/platform/recoveries', { method: 'POST', body: '{}', headers: { authorization: `Key ${p.keys.readOnly}` } });
    expect(ro.status).toBe(403);
    const none = await p.api('/platform/recoveries/0190d2a8-0000-7000-8000-000000000000');
    expect(none.status).toBe(404);
  });
});
