/**
 * webhook, the adapter: loads the webhook (the flow node's, or the one a notification names)
 * and its signing secret, reads the delivered document from the artifact store, makes one call
 * through the `WebhookSender` port, and hands the outcome to the step. Items are handled as
 * they come (../transfer.ts, as every transfer): a receiver that takes 5 s, or a stall up to the
 * webhook's per-attempt timeout (15 s by default), holds back no other trace on its partition.
 */
import { deliveredDocument } from '../delivery.ts';
import type { InFlightOptions } from '../in-flight.ts';
import { policyFor, transferNode } from '../transfer.ts';
import type { NodeModule } from '../node.ts';
import type { NodeDeps } from '../ports.ts';
import { attemptOf, called, deliveryBody, messageIdOf, notDelivered, notificationBody, purposeOf, webhookIdOf } from './step.ts';

export function webhookNode(deps: NodeDeps, opts: InFlightOptions = {}): NodeModule {
  return transferNode(
    'webhook',
    deps,
    async (ctx) => {
      const m = ctx.message;
      const org = m.organizationId;
      const purpose = purposeOf(m);
      const webhookId = webhookIdOf(ctx);
      const webhook = webhookId ? await deps.config.webhook(org, webhookId) : null;
      if (!webhook) {
        return notDelivered(ctx, `The webhook ${purpose === 'notification' ? `of partner ${m.partnerKey ?? ''}'s ${m.params['role'] ?? 'error'} role` : 'this flow delivers to'} (${webhookId ?? 'none'}) no longer exists; nothing was sent.`);
      }
      const secret = (await deps.config.secrets(org, 'webhook', webhook.id))['signingSecret'];
      if (!secret) return notDelivered(ctx, `The webhook ${webhook.name} has no signing secret; nothing was sent. Give it a signingSecret (whsec_...) in the configuration file and apply it.`, webhook.url);
      if (!deps.webhooks) return notDelivered(ctx, 'Webhook calls are not available in this process.', webhook.url);
      let body: string;
      const document = purpose === 'delivery' ? deliveredDocument(ctx) : null;
      if (purpose === 'delivery') {
        const record = document ? await deps.stores.artifacts.get(org, document.id) : null;
        if (!document || !record) return notDelivered(ctx, `The document to deliver (${document?.filename ?? document?.id ?? 'none'}) is no longer stored; nothing was sent.`, webhook.url);
        body = deliveryBody(ctx, { text: (await deps.stores.artifacts.read(record)).toString('utf8'), contentType: record.contentType });
      } else {
        body = notificationBody(ctx);
      }
      const policy = policyFor(deps, webhook.retry);
      const outcome = await deps.webhooks.send({ url: webhook.url, secret, messageId: messageIdOf(ctx, webhook.id), body, contentType: webhook.contentType || 'application/json', attempt: attemptOf(m), timeoutMs: policy.attemptTimeoutMs });
      return called(ctx, { webhook: { id: webhook.id, url: webhook.url }, attempt: attemptOf(m), outcome, endedAt: deps.wallClock(), document, policy });
    },
    opts,
  );
}
