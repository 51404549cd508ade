/**
 * Webhook delivery through the whole pipeline on the real stack, to a real HTTP receiver this
 * test runs, which verifies every call with the `standardwebhooks` package as an organization's
 * receiver would: the DESIGN §3 body, one `webhook-id` across the retries of a delivery, the
 * contract's retry classes and schedule (1, 2 s; Retry-After; 6 attempts; final on 400), a
 * webhook's own retry settings (delays, attempt timeout), the error result's `detail.webhook`,
 * error notifications, and a slow receiver on one trace not holding back another trace on the
 * same partition (the test's topics have one partition).
 *
 * A retry's wait is measured from the service's own record of the failed attempt (its warning
 * log entry, stamped when the attempt was taken up, before its call went out) to the next
 * call's arrival: the next call cannot be sent before the delay has passed since then. Gaps
 * between two arrivals at the receiver are no measure of it: a call that took longer to arrive
 * than the next one shortens the gap (a 32 ms longer first arrival once failed an 11 s bound).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedEntryId } from '../../../src/domain/ids.ts';
import { statusOf, type ResultRecord } from '../../../src/domain/records.ts';
import type { ConfigDocument, PartnerDoc } from '../../../src/domain/configuration.ts';
import type { RetrySettings } from '../../../src/domain/retry-policy.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { reset, slow, startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';

const SECRET = 'whsec_dGR4LXBpcGVsaW5lLXdlYmhvb2stdGVzdC1zZWNyZXQ=';

let p: Pipeline;
let rx: Receiver;

/** Partners by key: each delivers to its own path, and notifies errors to /errors. */
const PARTNERS = ['OK', 'FLAKY', 'BAD', 'DOWN', 'RESET', 'STALL', 'LATER', 'SLOW', 'FAST'] as const;
const path = (key: string): string => `/in/${key.toLowerCase()}`;

/**
 * Webhooks with retry settings of their own (the others run the pipeline's, set below): the
 * 500-forever ladder halved (15.5 s instead of 31 s), and a 3 s attempt timeout for the stall.
 */
const OWN_RETRY: Partial<Record<(typeof PARTNERS)[number], RetrySettings>> = {
  DOWN: { delaysSeconds: [0.5, 1, 2, 4, 8] },
  STALL: { attemptTimeoutSeconds: 3 },
};

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
      ...PARTNERS.map((k) => ({
        name: `in-${k.toLowerCase()}`,
        kind: 'standard' as const,
        url: `${base}${path(k)}`,
        contentType: 'application/json',
        signingSecret: SECRET,
        ...(OWN_RETRY[k] ? { retry: OWN_RETRY[k] } : {}),
      })),
      { name: 'errors', kind: 'standard' as const, url: `${base}/errors`, contentType: 'application/json', signingSecret: SECRET },
    ],
    implementations: [{ name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: PARTNERS.map(partner),
  };
}

beforeAll(async () => {
  rx = await startReceiver(SECRET);
  rx.script(path('FLAKY'), [503, 503, 200]);
  rx.script(path('BAD'), [400]);
  rx.script(path('DOWN'), [500]);
  rx.script(path('RESET'), [reset, 200]);
  rx.script(path('STALL'), [slow(5_000), 200]);
  rx.script(path('LATER'), [{ status: 503, headers: { 'retry-after': '3' } }, 200]);
  rx.script(path('SLOW'), [slow(5_000)]);
  // a schedule of whole seconds (the others run it scaled further, support.ts): calls a second
  // apart or more are what tells each attempt's own signature timestamp (whole seconds) from a
  // reused one
  p = await startPipeline(doc(rx.url), { env: { TDX_RETRY_DELAYS_SECONDS: '1,2,4,8,16', TDX_RETRY_ATTEMPT_TIMEOUT_MS: '10000' }, sharedKeyspace: true });
}, 240_000);

afterAll(async () => {
  await p?.stop();
  await rx?.close();
});

let control = 1000;
async function submit(key: string, po = `PO-${key}`): Promise<string> {
  const r = await p.submitEdi(key, interchange({ control: ++control, groups: [{ sets: [po850(po)] }] }));
  expect(r.status).toBe(202);
  return r.body['traceGuid'] as string;
}

const webhookResult = (results: ResultRecord[]): ResultRecord | undefined => results.find((r) => r.service === 'webhook' && r.nodeName === 'Webhook delivery');
/** The webhook node's result of a trace (the transaction's state is written just before it). */
const deliveryResult = (trace: string): Promise<ResultRecord> => eventually(async () => webhookResult(await p.results(trace)), 30_000, 'the webhook result');
const gaps = (calls: { at: number }[]): number[] => calls.slice(1).map((c, i) => c.at - calls[i]!.at);

/**
 * For each retried call of a trace's delivery (calls 2, 3...), from the service's warning log
 * entry of the failed attempt before it: the delay it announced ("trying again in 2 s"), and
 * how long after the entry (the service's clock; stamped when that attempt was taken up) the
 * call arrived, which is at least that delay whatever the arrival latencies.
 */
async function retriesAsLogged(trace: string, calls: readonly { at: number }[]): Promise<{ announcedMs: number; waitedMs: number }[]> {
  const failures = await eventually(async () => {
    const found = (await logsOf(trace)).filter((l) => l.level === 'warn' && /failed \(attempt \d of 6\)/.test(l.message));
    return found.length >= calls.length - 1 ? found : undefined;
  }, 30_000, `${calls.length - 1} logged failed attempts`);
  return calls.slice(1).map((c, i) => {
    const entry = failures.find((l) => l.message.includes(`(attempt ${i + 1} of 6)`));
    const announced = entry && /trying again in ([\d.]+) s\b/.exec(entry.message);
    if (!announced) throw new Error(`no log entry announcing the retry after attempt ${i + 1}: ${JSON.stringify(failures)}`);
    return { announcedMs: Number(announced[1]) * 1000, waitedMs: Math.round(c.at - Number(entry.createdUs) / 1000) };
  });
}

/**
 * How much later than announced a retry may arrive: the delay topics' forwarding and the
 * consumers on a loaded machine (1.5 s seen with three test runs at once on two cores). Only a
 * retry that waited for a longer delay tier, or for nothing, is late by more.
 */
const LATENESS_MS = 5_000;

// The cases run at once (each partner has its own path and traces, the receiver answers each
// path on its own, and the webhook step runs up to 64 calls at once): the file takes about as
// long as its longest case, the 500-forever ladder of 15.5 s, rather than the sum of them all.
describe.concurrent('webhook delivery', () => {
  it('delivers the document signed, with the DESIGN §3 body, and records the success', async ({ expect }) => {
    const trace = await submit('OK');
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('delivered');
    const [call] = rx.callsTo(path('OK'));
    expect(rx.callsTo(path('OK'))).toHaveLength(1);
    expect(call!.error).toBeUndefined();
    expect(call!.headers['content-type']).toBe('application/json');
    const delivered = await deliveryResult(trace);
    const results = await p.results(trace);
    const validation = results.find((r) => r.service === 'validation')!;
    const body = call!.payload!;
    expect(Object.keys(body).sort()).toEqual(['document', 'ediTransactionId', 'partnerKey', 'resultId', 'traceGuid', 'transactionSetIdentifier', 'usageIndicator']);
    expect(body).toMatchObject({ resultId: validation.id, traceGuid: trace, ediTransactionId: tx!.id, partnerKey: 'OK', transactionSetIdentifier: '850', usageIndicator: 'P' });
    // the document is the stored output, byte for byte as JSON
    const output = delivered.detail.artifacts!.find((a) => a.usage === 'output')!;
    const stores = await p.reader.stores();
    const stored = JSON.parse((await stores.artifacts.read((await stores.artifacts.get(p.org, output.id))!)).toString('utf8')) as unknown;
    expect(body['document']).toEqual(stored);
    expect(JSON.stringify(body['document'])).toContain('PO-OK');
    expect(call!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);

    expect(delivered).toMatchObject({ status: 'success', direction: 'outbound' });
    expect(delivered.detail.webhook).toEqual({ url: `${rx.url}${path('OK')}`, statusCode: 200 });
    const done = await eventually(async () => {
      const t = (await p.transactions(trace))[0]!;
      return t.deliveredAt !== null ? t : undefined;
    }, 30_000, 'deliveredAt');
    const feed = await stores.feed.get(p.org, [{ id: feedEntryId(delivered.id), traceGuid: delivered.traceGuid }]);
    expect(feed.get(feedEntryId(delivered.id))).toMatchObject({ status: 'success', direction: 'inbound', createdAt: done.deliveredAt });
    // the signing secret appears nowhere in what was recorded
    expect(JSON.stringify(results)).not.toContain(SECRET.slice(6));
  });

  it('503, 503, 200: three calls under one webhook-id, about 1 and 2 s apart, each signed with its own timestamp', async ({ expect }) => {
    const trace = await submit('FLAKY');
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('delivered');
    const calls = rx.callsTo(path('FLAKY'));
    expect(calls).toHaveLength(3);
    expect(calls.every((c) => c.error === undefined)).toBe(true);
    expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).toBe(1);
    expect(new Set(calls.map((c) => c.headers['webhook-timestamp'])).size).toBe(3);
    const retries = await retriesAsLogged(trace, calls);
    console.log(`retry gaps after 503: ${gaps(calls).join(', ')} ms; ${retries.map((r) => r.waitedMs).join(', ')} ms after the logged failures`);
    // 1 and 2 s (the forwarder's own latency on a loaded machine on top)
    expect(retries.map((r) => r.announcedMs)).toEqual([1000, 2000]);
    for (const r of retries) {
      expect(r.waitedMs).toBeGreaterThanOrEqual(r.announcedMs);
      expect(r.waitedMs).toBeLessThan(r.announcedMs + LATENESS_MS);
    }
    const delivered = await deliveryResult(trace);
    expect((await p.results(trace)).filter((r) => r.service === 'webhook')).toHaveLength(1);
    expect(delivered.detail.webhook).toEqual({ url: `${rx.url}${path('FLAKY')}`, statusCode: 200 });
    // each failed attempt is a warning log entry (events.logs → ClickHouse)
    const logs = await logsOf(trace);
    expect(logs.filter((l) => l.level === 'warn' && /attempt [12] of 6\): status 503/.test(l.message))).toHaveLength(2);
  });

  it('400: one call, an error result without maxAttempts, status error, and a notification to the error webhook', async ({ expect }) => {
    const trace = await submit('BAD');
    const [tx] = await p.settled(trace, 1);
    expect(statusOf(tx!)).toBe('error');
    expect(tx!.deliveredAt).toBeNull();
    expect(rx.callsTo(path('BAD'))).toHaveLength(1);
    const failed = await deliveryResult(trace);
    expect(failed.status).toBe('error');
    expect(failed.detail.webhook).toEqual({ url: `${rx.url}${path('BAD')}`, statusCode: 400, contentType: 'text/plain', attempts: 1, willRetry: false });
    expect(failed.detail.errorMessage).toMatch(/status 400 \(not retried\)/);
    expect(JSON.stringify(failed)).not.toContain('RESPONSE-BODY-MARKER');
    // the error webhook: identifiers only, signed like a delivery
    const note = await eventually(() => rx.callsTo('/errors').find((c) => c.payload?.['traceGuid'] === trace), 30_000, 'the error notification');
    expect(note.error).toBeUndefined();
    expect(note.payload).toEqual({ event: 'processing_failed', resultId: failed.id, traceGuid: trace });
    // the feed sequencer records the entry within the feed's lag, not necessarily before the notification
    const stores = await p.reader.stores();
    const entry = await eventually(async () => (await stores.feed.get(p.org, [{ id: feedEntryId(failed.id), traceGuid: failed.traceGuid }])).get(feedEntryId(failed.id)), 10_000, 'the error feed entry');
    expect(entry).toMatchObject({ status: 'error', direction: 'inbound' });
  });

  it("500 forever: six calls in all, spaced by the webhook's own delays, then attempts 6 and maxAttempts 6", async ({ expect }) => {
    const trace = await submit('DOWN');
    const [tx] = await p.settled(trace, 1, 120_000);
    expect(statusOf(tx!)).toBe('error');
    const calls = rx.callsTo(path('DOWN'));
    expect(calls).toHaveLength(6);
    expect(new Set(calls.map((c) => c.headers['webhook-id'])).size).toBe(1);
    const retries = await retriesAsLogged(trace, calls);
    console.log(`retry gaps after 500: ${gaps(calls).join(', ')} ms; ${retries.map((r) => r.waitedMs).join(', ')} ms after the logged failures`);
    // the webhook's delays (0.5, 1, 2, 4, 8 s), not the pipeline's (1, 2, 4, 8, 16 s)
    expect(retries.map((r) => r.announcedMs)).toEqual([500, 1000, 2000, 4000, 8000]);
    for (const r of retries) {
      expect(r.waitedMs).toBeGreaterThanOrEqual(r.announcedMs);
      expect(r.waitedMs).toBeLessThan(r.announcedMs + LATENESS_MS);
    }
    const failed = await deliveryResult(trace);
    expect(failed.detail.webhook).toEqual({ url: `${rx.url}${path('DOWN')}`, statusCode: 500, contentType: 'text/plain', attempts: 6, willRetry: false, maxAttempts: 6 });
    expect(failed.detail.errorMessage).toMatch(/failed after 6 attempts: status 500/);
    // no seventh call comes later (the last delay was 8 s; the next would have come 1 s later at least)
    await new Promise((r) => setTimeout(r, 2000));
    expect(rx.callsTo(path('DOWN'))).toHaveLength(6);
  }, 180_000);

  it("a reset connection, and a 5 s stall past the webhook's own 3 s attempt timeout, are retried", async ({ expect }) => {
    const [resetTrace, stallTrace] = [await submit('RESET'), await submit('STALL')];
    const [r] = await p.settled(resetTrace, 1);
    expect(statusOf(r!)).toBe('delivered');
    expect(rx.callsTo(path('RESET'))).toHaveLength(2);
    const [s] = await p.settled(stallTrace, 1, 60_000);
    expect(statusOf(s!)).toBe('delivered');
    const stalls = rx.callsTo(path('STALL'));
    expect(stalls).toHaveLength(2);
    // the first call was given up after the webhook's 3 s (not the pipeline's 10 s): the service
    // logged a timeout, and the next call came at least the timeout and the first delay (1 s)
    // after that attempt was taken up (the service's own clock), long before the pipeline's 10 s
    // timeout and its 1 s delay would have let it
    const logs = await logsOf(stallTrace);
    const timedOut = logs.find((l) => l.level === 'warn' && /timeout after 3000 ms/.test(l.message));
    expect(timedOut, JSON.stringify(logs)).toBeDefined();
    const [retry] = await retriesAsLogged(stallTrace, stalls);
    console.log(`stall retried ${stalls[1]!.at - stalls[0]!.at} ms after the first call arrived, ${retry!.waitedMs} ms after its attempt was taken up`);
    expect(retry!.announcedMs).toBe(1000);
    expect(retry!.waitedMs).toBeGreaterThanOrEqual(3000 + 1000);
    expect(retry!.waitedMs).toBeLessThan(10_000 + 1000);
    expect((await logsOf(resetTrace)).some((l) => l.level === 'warn' && /connection reset/.test(l.message))).toBe(true);
  }, 60_000);

  it('honours Retry-After: 3', async ({ expect }) => {
    const trace = await submit('LATER');
    await p.settled(trace, 1);
    const calls = rx.callsTo(path('LATER'));
    expect(calls).toHaveLength(2);
    const [retry] = await retriesAsLogged(trace, calls);
    console.log(`retry gap after Retry-After: 3: ${gaps(calls)[0]} ms, ${retry!.waitedMs} ms after the logged failure`);
    expect(retry!.announcedMs).toBe(3000);
    expect(retry!.waitedMs).toBeGreaterThanOrEqual(3000);
    expect(retry!.waitedMs).toBeLessThan(3000 + LATENESS_MS);
  });

  it('a receiver taking 5 s on one trace does not hold back another trace on the same partition', async ({ expect }) => {
    const slowTrace = await submit('SLOW');
    const [slowCall] = await rx.waitFor(path('SLOW'), 1);
    const fastTrace = await submit('FAST');
    const [fastCall] = await rx.waitFor(path('FAST'), 1);
    // the fast delivery arrived while the slow call was still unanswered
    expect(fastCall!.at).toBeLessThan(slowCall!.bodyAt + 5_000);
    const validation = (await eventually(async () => (await p.results(fastTrace)).find((r) => r.service === 'validation'), 30_000, 'validation'));
    const waited = fastCall!.at - validation.createdAt / 1000;
    console.log(`fast delivery ${waited} ms after its validation, with a 5 s call in flight on the same partition`);
    // the arrival above, before the slow call was answered, is what shows it was not held back;
    // its latency is the machine's load as much as the pipeline's, so it is bounded loosely
    expect(waited).toBeLessThan(5000);
    const [fastTx] = await p.settled(fastTrace, 1);
    expect(statusOf(fastTx!)).toBe('delivered');
    const [slowTx] = await p.settled(slowTrace, 1);
    expect(statusOf(slowTx!)).toBe('delivered');
    expect(rx.callsTo(path('SLOW'))).toHaveLength(1);
  });
});

async function logsOf(trace: string): Promise<{ level: string; message: string; createdUs: number }[]> {
  const ch = await p.reader.clickhouse();
  return eventually(async () => {
    const rs = await ch.client.query({ query: `SELECT level, message, toUnixTimestamp64Micro(created_at) AS createdUs FROM ${ch.database}.logs WHERE trace_guid = {t:String} ORDER BY created_at`, query_params: { t: trace }, format: 'JSONEachRow' });
    const rows = await rs.json<{ level: string; message: string; createdUs: number }>();
    return rows.length > 0 ? rows : undefined;
  }, 30_000, 'log entries');
}
