import { describe, expect, it } from 'vitest';
import type { FlowRecord, PartnerRecord } from '../../../../src/domain/configuration.ts';
import { webhookMessageId } from '../../../../src/domain/webhook-delivery.ts';
import { retryWorkId } from '../../../../src/nodes/outcomes.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../../../src/domain/retry-policy.ts';

/** A webhook's own schedule without jitter: 1, 2, 4, 8, 16 s. */
const exact: RetryPolicy = { ...DEFAULT_RETRY_POLICY, delaysMs: [1000, 2000, 4000, 8000, 16000], jitterPercent: 0 };
import type { StepContext } from '../../../../src/nodes/step.ts';
import { attemptOf, called, deliveryBody, messageIdOf, notificationBody, webhookIdOf } from '../../../../src/nodes/webhook/step.ts';
import type { StageMessage } from '../../../../src/wire/stage.v1.ts';

const T0 = 1_780_000_000_000_000;
const URL_ = 'http://127.0.0.1:9901/edi/inbound';
const hook = { id: 'wh-in', url: URL_ };
const doc = { id: 'art-mapped', usage: 'mapped', contentType: 'application/json', filename: '850-mapped.json' };

function partner(webhooks: Partial<PartnerRecord['webhooks']> = {}): PartnerRecord {
  return {
    id: 'p1',
    name: 'Acme',
    key: 'ACME',
    deliveryMethod: 'webhook',
    generateAcknowledgments: false,
    trackAcknowledgments: false,
    connectionId: null,
    internalEnvelopeId: null,
    externalEnvelopeId: null,
    webhooks: { inbound: 'wh-in', outbound: null, error: null, ...webhooks },
    frequency: 0,
    usesSandbox: false,
    transactionSetSettings: [],
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  };
}

const flow = {
  id: 'f1',
  nodes: [{ id: 'f1.n5', name: 'Webhook delivery', kind: 'output', service: 'webhook', config: { webhookId: 'wh-in' } }],
  connections: [],
} as unknown as FlowRecord;

function message(over: Partial<StageMessage> = {}): StageMessage {
  return {
    id: 'item-1',
    traceGuid: 'trace-1',
    organizationId: 'org-1',
    service: 'webhook',
    flowId: 'f1',
    flowVersion: 1,
    nodeId: 'f1.n5',
    direction: 'inbound',
    partnerKey: 'ACME',
    transactionId: 'tx-1',
    inputResultId: 'validation-result',
    artifacts: [{ id: 'art-input', usage: 'input', contentType: 'application/edi-x12', filename: 'in.edi' }, doc],
    usageIndicator: 'P',
    resend: false,
    attempt: 1,
    createdAt: T0,
    params: { transactionSetIdentifier: '850', outputArtifactId: doc.id },
    ...over,
  };
}

function ctx(m: StageMessage = message(), p: PartnerRecord = partner()): StepContext {
  return { now: T0, message: m, flow, node: m.params['purpose'] === 'notification' ? null : flow.nodes[0]!, partner: p };
}

describe('webhook step: what is sent', () => {
  it('delivery body: DESIGN §3 fields, the stored JSON spliced in unchanged', () => {
    const text = '{"orderNumber":"PO-1","lines":[{"sku":"A","quantity":1}]}';
    const body = deliveryBody(ctx(), { text: `${text}\n`, contentType: 'application/json' });
    expect(JSON.parse(body)).toEqual({
      resultId: 'validation-result',
      traceGuid: 'trace-1',
      ediTransactionId: 'tx-1',
      partnerKey: 'ACME',
      transactionSetIdentifier: '850',
      usageIndicator: 'P',
      document: JSON.parse(text),
    });
    expect(body.endsWith(`"document":${text}}`)).toBe(true);
  });

  it('a document that is not JSON goes in as a string', () => {
    const body = JSON.parse(deliveryBody(ctx(), { text: 'ISA*00~', contentType: 'application/edi-x12' })) as Record<string, unknown>;
    expect(body['document']).toBe('ISA*00~');
  });

  it('notification body: identifiers only', () => {
    const m = message({ params: { purpose: 'notification', role: 'error', event: 'processing_failed', webhookId: 'wh-err' }, inputResultId: 'err-result', artifacts: [] });
    expect(JSON.parse(notificationBody(ctx(m)))).toEqual({ event: 'processing_failed', resultId: 'err-result', traceGuid: 'trace-1' });
    expect(webhookIdOf(ctx(m))).toBe('wh-err');
  });

  it('webhook-id: from the delivered result and the webhook, the same on every attempt', () => {
    const first = ctx();
    const third = ctx(message({ id: retryWorkId(retryWorkId('item-1', 2), 3), params: { ...message().params, deliveryAttempt: '3' } }));
    expect(webhookIdOf(first)).toBe('wh-in');
    expect(messageIdOf(first, 'wh-in')).toBe(webhookMessageId('validation-result', 'wh-in'));
    expect(messageIdOf(third, 'wh-in')).toBe(messageIdOf(first, 'wh-in'));
    expect(attemptOf(third.message)).toBe(3);
    expect(attemptOf(first.message)).toBe(1);
    // a redelivery re-runs the node on the same input result: the same webhook-id, the same body resultId
    const redelivery = ctx(message({ id: 'item-redelivered', attempt: 2, resend: true }));
    expect(messageIdOf(redelivery, 'wh-in')).toBe(messageIdOf(first, 'wh-in'));
    expect(JSON.parse(deliveryBody(redelivery, { text: '{}', contentType: 'application/json' }))).toMatchObject({ resultId: 'validation-result' });
    // another webhook never shares it
    expect(messageIdOf(first, 'wh-other')).not.toBe(messageIdOf(first, 'wh-in'));
  });
});

describe('webhook step: outcomes', () => {
  it('delivered: success result with detail.webhook {url, statusCode}, the transaction completed, a success feed entry', () => {
    const e = called(ctx(), { webhook: hook, attempt: 2, outcome: { kind: 'delivered', statusCode: 204 }, endedAt: T0 + 50_000, document: doc });
    expect(e.later).toEqual([]);
    expect(e.results).toHaveLength(1);
    const r = e.results[0]!;
    expect(r).toMatchObject({ status: 'success', direction: 'outbound', createdAt: T0 });
    expect(r.detail.webhook).toEqual({ url: URL_, statusCode: 204 });
    expect(e.updates[0]).toMatchObject({ id: 'tx-1', completed: true, deliveryInputResultId: 'validation-result' });
    expect(e.feed).toEqual([expect.objectContaining({ status: 'success', direction: 'inbound', transactionId: 'tx-1' })]);
    expect(e.emit).toEqual([]);
  });

  it('retryable with attempts left: a warning and the same work later, due its delay after the call ended (the default schedule: 10 s, jittered up to +10 %)', () => {
    const ended = T0 + 10_000_000;
    const byDefault = called(ctx(), { webhook: hook, attempt: 1, outcome: { kind: 'retryable', statusCode: 503, reason: 'status 503' }, endedAt: ended, document: doc });
    const waited = byDefault.later[0]!.dueAt - ended;
    expect(waited).toBeGreaterThanOrEqual(10_000_000);
    expect(waited).toBeLessThanOrEqual(11_000_000);
    expect(byDefault.logs[0]!.message).toMatch(/; trying again in 1\d(\.\d)? s\.$/);
    const e = called(ctx(), { webhook: hook, attempt: 1, outcome: { kind: 'retryable', statusCode: 503, reason: 'status 503' }, endedAt: ended, document: doc, policy: exact });
    expect(e.results).toEqual([]);
    expect(e.feed).toEqual([]);
    expect(e.logs).toEqual([expect.objectContaining({ level: 'warn', message: `Webhook delivery to ${URL_} failed (attempt 1 of 6): status 503; trying again in 1 s.` })]);
    expect(e.later).toHaveLength(1);
    const l = e.later[0]!;
    expect(l.dueAt).toBe(ended + 1_000_000);
    expect(l.reason).toBe('webhook_retry');
    expect(l.message).toMatchObject({ id: retryWorkId('item-1', 2), params: expect.objectContaining({ deliveryAttempt: '2', outputArtifactId: doc.id }), inputResultId: 'validation-result' });
  });

  it.each([
    [1, undefined, 1000],
    [2, undefined, 2000],
    [3, undefined, 4000],
    [4, undefined, 8000],
    [5, undefined, 16000],
    [1, 3000, 3000],
    [4, 3000, 8000],
    // honoured up to the longest delay of the policy
    [1, 60_000, 16000],
  ])('after attempt %i (Retry-After %s ms) the next is due %i ms later', (attempt, retryAfterMs, wait) => {
    const e = called(ctx(), { webhook: hook, attempt, outcome: { kind: 'retryable', reason: 'status 429', statusCode: 429, ...(retryAfterMs ? { retryAfterMs } : {}) }, endedAt: T0, document: doc, policy: exact });
    expect(e.later[0]!.dueAt - T0).toBe(wait * 1000);
  });

  it('retryable on the sixth attempt: error result with attempts 6 and maxAttempts 6, error notification', () => {
    const p = partner({ error: 'wh-err' });
    const e = called(ctx(message(), p), { webhook: hook, attempt: 6, outcome: { kind: 'retryable', reason: 'connection refused' }, endedAt: T0, document: doc });
    expect(e.later).toEqual([]);
    const r = e.results[0]!;
    expect(r.status).toBe('error');
    expect(r.detail.webhook).toEqual({ url: URL_, attempts: 6, willRetry: false, maxAttempts: 6 });
    expect(r.detail.errorMessage).toBe(`Webhook delivery to ${URL_} failed after 6 attempts: connection refused.`);
    expect(r.detail.incomingResultId).toBe('validation-result');
    expect(e.updates[0]).toMatchObject({ id: 'tx-1', failed: true });
    expect(e.feed[0]).toMatchObject({ status: 'error' });
    expect(e.emit).toEqual([expect.objectContaining({ topic: 'stage.webhook', value: expect.objectContaining({ params: expect.objectContaining({ purpose: 'notification', role: 'error', webhookId: 'wh-err' }), inputResultId: r.id }) })]);
  });

  it('final on the first answer: no maxAttempts', () => {
    const e = called(ctx(), { webhook: hook, attempt: 1, outcome: { kind: 'final', statusCode: 410, contentType: 'text/html', reason: 'status 410' }, endedAt: T0, document: doc });
    expect(e.later).toEqual([]);
    expect(e.results[0]!.detail.webhook).toEqual({ url: URL_, statusCode: 410, contentType: 'text/html', attempts: 1, willRetry: false });
    expect(e.results[0]!.detail.errorMessage).toBe(`Webhook delivery to ${URL_} failed: status 410 (not retried).`);
  });

  it('a notification: success is a log entry; its own failure is an error result on the trace that notifies no one', () => {
    const m = message({ id: 'note-1', nodeId: 'f1.notify.error', params: { purpose: 'notification', role: 'error', event: 'processing_failed', webhookId: 'wh-err' }, inputResultId: 'err-result', artifacts: [] });
    const p = partner({ error: 'wh-err' });
    const ok = called(ctx(m, p), { webhook: { id: 'wh-err', url: 'http://x/err' }, attempt: 1, outcome: { kind: 'delivered', statusCode: 200 }, endedAt: T0, document: null });
    expect(ok.results).toEqual([]);
    expect(ok.logs).toEqual([expect.objectContaining({ level: 'info', nodeName: 'Error notification' })]);
    const bad = called(ctx(m, p), { webhook: { id: 'wh-err', url: 'http://x/err' }, attempt: 6, outcome: { kind: 'retryable', statusCode: 502, reason: 'status 502' }, endedAt: T0, document: null });
    expect(bad.results).toHaveLength(1);
    expect(bad.results[0]).toMatchObject({ status: 'error', nodeName: 'Error notification', transactionId: 'tx-1' });
    expect(bad.results[0]!.detail.webhook).toMatchObject({ attempts: 6, maxAttempts: 6 });
    // the document moves to error (a delivered one too), and no further notification is sent
    expect(bad.updates[0]).toMatchObject({ id: 'tx-1', failed: true });
    expect(bad.emit).toEqual([]);
    // two notifications of one trace never share a result
    const other = called(ctx({ ...m, inputResultId: 'err-result-2' }, p), { webhook: { id: 'wh-err', url: 'http://x/err' }, attempt: 6, outcome: { kind: 'retryable', reason: 'x' }, endedAt: T0, document: null });
    expect(other.results[0]!.id).not.toBe(bad.results[0]!.id);
  });
});

describe('webhook step: one delivery, one result time', () => {
  it('every attempt writes its result as of the first attempt, so a re-run earlier attempt rewrites the same row', () => {
    // attempt 1 fails and schedules attempt 2, which carries the first attempt's time
    const first = called(ctx(), { webhook: hook, attempt: 1, outcome: { kind: 'retryable', statusCode: 500, reason: 'status 500' }, endedAt: T0 + 1_000, document: doc });
    const retry = first.later[0]!.message;
    expect(retry.params).toMatchObject({ deliveryAttempt: '2', deliveryStartedAt: String(T0) });
    // attempt 2, taken up 25 s later, succeeds: its result is dated as of the first attempt
    const later = T0 + 25_000_000;
    const second = called({ ...ctx(retry), now: later }, { webhook: hook, attempt: 2, outcome: { kind: 'delivered', statusCode: 200 }, endedAt: later + 1_000, document: doc });
    // attempt 1 delivered again (its offset was not committed) succeeds this time: the same row
    const again = called(ctx(), { webhook: hook, attempt: 1, outcome: { kind: 'delivered', statusCode: 200 }, endedAt: T0 + 2_000, document: doc });
    expect(second.results[0]!.id).toBe(again.results[0]!.id);
    expect(second.results[0]!.createdAt).toBe(T0);
    expect(again.results[0]!.createdAt).toBe(T0);
    // a later retry passes the same time on; its own warning keeps the time of its own call
    const third = called({ ...ctx(retry), now: later }, { webhook: hook, attempt: 2, outcome: { kind: 'retryable', statusCode: 503, reason: 'status 503' }, endedAt: later + 1_000, document: doc });
    expect(third.later[0]!.message.params).toMatchObject({ deliveryAttempt: '3', deliveryStartedAt: String(T0) });
    expect(third.logs[0]!.createdAt).toBe(later);
    // the final failure: the result as of the first attempt, its error log entry at its own time
    const last = called({ ...ctx({ ...retry, params: { ...retry.params, deliveryAttempt: '6' } }), now: later }, { webhook: hook, attempt: 6, outcome: { kind: 'retryable', reason: 'status 500', statusCode: 500 }, endedAt: later + 1_000, document: doc });
    expect(last.results[0]).toMatchObject({ id: again.results[0]!.id, status: 'error', createdAt: T0 });
    expect(last.logs.find((l) => l.level === 'error')!.createdAt).toBe(later);
  });
});
