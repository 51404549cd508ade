/**
 * Webhook delivery adapter: one signed call per attempt, classified (`sendWebhook`), and the
 * pure retry contract it is used with (`nextRetryDelayMs`, `webhookMessageId`), which live in
 * the domain so steps can use them too. docs/transports.md describes the behaviour.
 */
export {
  sendWebhook,
  WEBHOOK_TIMEOUT_MS,
  RETRYABLE_STATUSES,
  type SendWebhookInput,
  type WebhookOutcome,
  type WebhookDelivered,
  type WebhookRetryable,
  type WebhookFinal,
} from './send-webhook.ts';
export { parseRetryAfter, webhookMessageId, WEBHOOK_MAX_ATTEMPTS } from '../../domain/webhook-delivery.ts';
export { nextRetryDelayMs, DEFAULT_RETRY_POLICY, DEFAULT_RETRY_DELAYS_MS } from '../../domain/retry-policy.ts';
export { isLinkLocalAddress, webhookUrlProblem } from '../../domain/link-local.ts';
