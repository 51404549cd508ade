/**
 * Webhook delivery adapter: one signed call per attempt, classified (`sendWebhook`), and the
 * pure retry contract it is used with (`nextWebhookDelayMs`, `webhookMessageId`), which live in
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
export {
  nextWebhookDelayMs,
  parseRetryAfter,
  webhookMessageId,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_MS,
  WEBHOOK_MAX_RETRY_AFTER_MS,
} from '../../domain/webhook-delivery.ts';
export { isLinkLocalAddress, webhookUrlProblem } from '../../domain/link-local.ts';
