/**
 * webhook, the pure part: what a webhook call sends, and what its outcome becomes.
 *
 * Two kinds of work reach the `webhook` node:
 * - a delivery (the inbound flow's output node of a webhook partner): the body is DESIGN §3's
 *   `{resultId, traceGuid, ediTransactionId, partnerKey, transactionSetIdentifier,
 *   usageIndicator, document}`, `resultId` naming the result whose output is delivered (the
 *   work item's input result, so a redelivery sends the same one);
 * - a notification (`params.purpose = notification`, made by `notification()` in outcomes.ts
 *   for error results and outbound deliveries): `{event, resultId, traceGuid}`, identifiers only.
 *
 * Both are signed with the webhook's secret under `webhook-id` = `webhookMessageId(resultId,
 * webhookId)`, the same on every attempt and on a redelivery. Outcomes:
 * - delivered: a delivery records the success result with `detail.webhook {url, statusCode}`,
 *   the success feed entry (its time becomes `deliveredAt`) and the transaction completed; a
 *   notification writes an info log entry;
 * - retryable with attempts left (6 in all, spaced by the webhook's retry policy, by default
 *   10 s, 1 min, 5 min, 15 min and 45 min apart with jitter, a `Retry-After` honoured up to the
 *   longest delay; ../retry.ts): a warning log entry and the same work again later through the
 *   delay topics;
 * - otherwise: an error result with `detail.webhook {url, statusCode?, contentType?, attempts,
 *   willRetry: false, maxAttempts: 6 only when the failure was retryable}`, a feed error entry
 *   and the transaction marked failed. A failed delivery notifies the partner's error webhook; a
 *   failed notification never sends another one.
 */
import { traceScopedId } from '../../domain/ids.ts';
import { EDI_CONTENT_TYPE, JSON_CONTENT_TYPE, type ArtifactPointer, type Micros } from '../../domain/records.ts';
import type { RetryPolicy } from '../../domain/retry-policy.ts';
import { WEBHOOK_MAX_ATTEMPTS, webhookMessageId, type WebhookAttempt } from '../../domain/webhook-delivery.ts';
import type { StageMessage } from '../../wire/stage.v1.ts';
import { deliveredDocument, deliveredInbound } from '../delivery.ts';
import { failure, log } from '../outcomes.ts';
import { attemptWords, deliveryAttemptOf, formatWait, planRetry } from '../retry.ts';
import { effects, type Effects, type StepContext } from '../step.ts';

export type WebhookPurpose = 'delivery' | 'notification';

/** Whether a work item delivers a document or sends a notification. */
export function purposeOf(m: StageMessage): WebhookPurpose {
  return m.params['purpose'] === 'notification' ? 'notification' : 'delivery';
}

/** The webhook a work item calls: the flow node's (delivery) or the one its notification names. */
export function webhookIdOf(ctx: StepContext): string | null {
  const m = ctx.message;
  if (purposeOf(m) === 'notification') return m.params['webhookId'] || null;
  const id = ctx.node?.config['webhookId'];
  return typeof id === 'string' && id !== '' ? id : null;
}

/** This call's attempt number (1 for the first call of a delivery; retries carry it in `params.deliveryAttempt`). */
export function attemptOf(m: StageMessage): number {
  return deliveryAttemptOf(m);
}

/**
 * When the delivery was first taken up (retries carry it in `params.deliveryStartedAt`): the
 * result of every attempt is written as of it. A delivery's result id is the same on every
 * attempt, so an earlier attempt run again after its retry was scheduled (a redelivered work
 * item) must write the same row, time included; a result written at two times would be two rows
 * in the time-ordered projections.
 */
export function startedAtOf(ctx: StepContext): Micros {
  const v = ctx.message.params['deliveryStartedAt'];
  const n = v === undefined ? Number.NaN : Number(v);
  return Number.isSafeInteger(n) && n > 0 ? n : ctx.now;
}

/** The result a call is about: the delivered result, or the result a notification reports. */
export function aboutResultId(m: StageMessage): string {
  return m.inputResultId ?? m.id;
}

/** `webhook-id` of a work item's call to `webhookId`: stable across attempts and redeliveries. */
export function messageIdOf(ctx: StepContext, webhookId: string): string {
  return webhookMessageId(aboutResultId(ctx.message), webhookId);
}

/** The context a notification's own outcome is recorded in: a node of its own, named for its role. */
export function notificationContext(ctx: StepContext): StepContext {
  const m = ctx.message;
  const role = m.params['role'] === 'outbound' ? 'Outbound' : 'Error';
  return { ...ctx, node: { id: m.nodeId ?? `${m.flowId ?? 'trace'}.notify`, name: `${role} notification`, kind: 'output', service: 'webhook', config: {} } };
}

/**
 * The body of an inbound delivery. The stored document's JSON text is spliced in as it is (a
 * document of several megabytes is not parsed and serialised again); a document that is not
 * JSON (never the case for a translation or a mapping's output) goes in as a JSON string.
 */
export function deliveryBody(ctx: StepContext, document: { readonly text: string; readonly contentType: string | null }): string {
  const m = ctx.message;
  const head = JSON.stringify({
    resultId: aboutResultId(m),
    traceGuid: m.traceGuid,
    ediTransactionId: m.transactionId,
    partnerKey: m.partnerKey,
    transactionSetIdentifier: m.params['transactionSetIdentifier'] ?? null,
    usageIndicator: m.usageIndicator,
  });
  const isJson = document.contentType === null || document.contentType === JSON_CONTENT_TYPE || /\+json$|\/json$/.test(document.contentType);
  const text = document.text.trim();
  const value = isJson && text !== '' && document.contentType !== EDI_CONTENT_TYPE ? text : JSON.stringify(document.text);
  return `${head.slice(0, -1)},"document":${value}}`;
}

/** The body of a notification: identifiers only, never document content. */
export function notificationBody(ctx: StepContext): string {
  const m = ctx.message;
  return JSON.stringify({ event: m.params['event'] ?? 'processing_failed', resultId: aboutResultId(m), traceGuid: m.traceGuid });
}

export interface CallFacts {
  readonly webhook: { readonly id: string; readonly url: string };
  readonly attempt: number;
  readonly outcome: WebhookAttempt;
  /** When the call ended (micros): the next attempt is due its delay after this. */
  readonly endedAt: Micros;
  /** The delivered document (deliveries). */
  readonly document: ArtifactPointer | null;
  /** The webhook's retry policy. @default DEFAULT_RETRY_POLICY */
  readonly policy?: RetryPolicy;
}

/** What a call's outcome becomes. */
export function called(ctx: StepContext, f: CallFacts): Effects {
  const m = ctx.message;
  const purpose = purposeOf(m);
  const o = f.outcome;
  const what = purpose === 'notification' ? `${m.params['role'] === 'outbound' ? 'Outbound' : 'Error'} notification (${m.params['event'] ?? 'processing_failed'})` : 'Webhook delivery';
  if (o.kind === 'delivered') {
    if (purpose === 'notification') {
      const e = effects();
      e.logs.push(log(notificationContext(ctx), m.id, 0, 'info', `${what} sent to ${f.webhook.url}: status ${o.statusCode}.`));
      return e;
    }
    const doc = f.document ?? deliveredDocument(ctx);
    if (!doc) return notDelivered(ctx, 'No document reached the webhook delivery step.', f.webhook.url);
    return deliveredInbound(ctx, doc, { direction: 'outbound', at: startedAtOf(ctx), detail: { webhook: { url: f.webhook.url, statusCode: o.statusCode } } });
  }
  if (o.kind === 'retryable') {
    const plan = planRetry(m, { ...(f.policy ? { policy: f.policy } : {}), attempt: f.attempt, retryAfterMs: o.retryAfterMs ?? null, from: f.endedAt, reason: 'webhook_retry', params: { deliveryStartedAt: String(startedAtOf(ctx)) } });
    if (plan) {
      const e = effects();
      const asked = plan.askedByReceiver ? ' (as the receiver asked with Retry-After)' : '';
      const logCtx = purpose === 'notification' ? notificationContext(ctx) : ctx;
      e.logs.push(log(logCtx, m.id, 0, 'warn', `${what} to ${f.webhook.url} failed (${attemptWords(f.attempt)}): ${o.reason}; trying again in ${formatWait(plan.delayMs)}${asked}.`));
      e.later.push(plan.later);
      return e;
    }
  }
  const retryable = o.kind === 'retryable';
  const webhook: Record<string, unknown> = { url: f.webhook.url };
  if (o.statusCode !== undefined) webhook['statusCode'] = o.statusCode;
  if (o.contentType !== undefined) webhook['contentType'] = o.contentType;
  webhook['attempts'] = f.attempt;
  webhook['willRetry'] = false;
  if (retryable) webhook['maxAttempts'] = WEBHOOK_MAX_ATTEMPTS;
  const after = retryable ? ` after ${f.attempt} attempt${f.attempt === 1 ? '' : 's'}` : '';
  const message = `${what} to ${f.webhook.url} failed${after}: ${o.reason}${retryable ? '' : ' (not retried)'}.`;
  return failed(ctx, message, { webhook });
}

/** A call that could not be made at all (webhook removed, no secret, document gone): an error result, no retry. */
export function notDelivered(ctx: StepContext, message: string, url?: string): Effects {
  return failed(ctx, message, url === undefined ? {} : { webhook: { url, attempts: 0, willRetry: false } });
}

function failed(ctx: StepContext, message: string, detail: Record<string, unknown>): Effects {
  const m = ctx.message;
  if (purposeOf(m) === 'notification') {
    const nctx = notificationContext(ctx);
    return failure(nctx, {
      // one result per notified result: a trace may hold several notifications of one role
      resultId: traceScopedId('result', m.traceGuid, nctx.node!.id, m.transactionId ?? '', m.attempt, aboutResultId(m)),
      transactionId: m.transactionId,
      message,
      direction: 'outbound',
      at: startedAtOf(ctx),
      logAt: ctx.now,
      detail,
      notify: false,
    });
  }
  return failure(ctx, { transactionId: m.transactionId, message, direction: 'outbound', at: startedAtOf(ctx), logAt: ctx.now, detail, artifacts: m.artifacts });
}
