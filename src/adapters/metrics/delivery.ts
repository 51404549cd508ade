/**
 * Delivery transports with their metrics: the node ports (src/nodes/ports.ts) wrapped by the
 * composition root, so the node services count nothing themselves. One counter increment per
 * call, webhook attempt, upload, AS2 message or receipt.
 */
import { DELIVERY_MAX_ATTEMPTS } from '../../domain/retry-policy.ts';
import { statusClass, type DeliveryMeter } from '../../domain/metrics.ts';
import type { As2ReceiptOutcome } from '../../domain/as2-delivery.ts';
import type { PollState } from '../../domain/sftp-polling.ts';
import type { As2Transport, SftpUploader, WebhookSender } from '../../nodes/ports.ts';

/** Webhook calls counted by outcome: a retryable answer on the last attempt allowed is `exhausted`. */
export function meteredWebhooks(inner: WebhookSender, meter: DeliveryMeter): WebhookSender {
  return {
    send: async (call) => {
      const o = await inner.send(call);
      const outcome =
        o.kind === 'delivered' ? 'delivered' : o.kind === 'final' ? 'failed' : (call.attempt ?? 1) >= DELIVERY_MAX_ATTEMPTS ? 'exhausted' : 'retry';
      meter.webhook(outcome, statusClass(o.statusCode));
      return o;
    },
  };
}

/** SFTP uploads counted by outcome. */
export function meteredSftpUploads(inner: SftpUploader, meter: DeliveryMeter): SftpUploader {
  return {
    upload: async (target, directory, filename, bytes, options) => {
      const o = await inner.upload(target, directory, filename, bytes, options);
      meter.upload('sftp', o.kind === 'delivered' ? 'ok' : o.kind === 'retryable' ? 'retry' : 'failed');
      return o;
    },
  };
}

/** AS2 transmissions counted (message by status, upload by outcome, a synchronous receipt by disposition). */
export function meteredAs2(inner: As2Transport, meter: DeliveryMeter): As2Transport {
  return {
    send: async (request) => {
      const r = await inner.send(request);
      meter.as2Message('outbound', r.status);
      meter.upload('as2', r.status === 'failed' ? (r.retryable ? 'retry' : 'failed') : 'ok');
      if (r.detail.mdnMode === 'sync' && r.status !== 'pending') meter.mdn('sync', r.detail.mdnStatus);
      return r;
    },
    postReceipt: (receipt) => inner.postReceipt(receipt),
  };
}

/** An asynchronous receipt settled (received, or given up at its deadline). */
export function meteredAs2Completion<W>(complete: (work: W, outcome: As2ReceiptOutcome) => Promise<void>, meter: DeliveryMeter): (work: W, outcome: As2ReceiptOutcome) => Promise<void> {
  return async (work, outcome) => {
    await complete(work, outcome);
    meter.mdn('async', outcome.status);
  };
}

/**
 * `target` with `method` followed by `after` (given the call's first argument) once it resolved;
 * every other member is the target's own, bound to it (private fields keep working).
 */
function afterCall<S extends object>(target: S, method: keyof S & string, after: (arg: unknown) => void): S {
  return new Proxy(target, {
    get(t, prop, receiver) {
      const value: unknown = Reflect.get(t, prop, receiver);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (prop !== method) return fn.bind(t);
      return async (...args: unknown[]) => {
        const result = await (fn.apply(t, args) as Promise<unknown>);
        after(args[0]);
        return result;
      };
    },
  });
}

/** A poll state store whose saved polls are counted per connection (by its configured name). */
export function meteredPollStates<S extends { savePollState(state: PollState): Promise<void> }>(store: S, meter: DeliveryMeter): S {
  return afterCall(store, 'savePollState', (arg) => {
    const state = arg as PollState;
    meter.sftpPoll(state.connectionName || state.connectionId, state.lastPollOk === true, state.lastPollFiles ?? 0);
  });
}

/** The received-message store of the AS2 endpoint, each message taken in counted (`inbound`, `processed`). */
export function meteredAs2Received<S extends { remember(entry: never): Promise<void> }>(store: S, meter: DeliveryMeter): S {
  return afterCall(store, 'remember', () => meter.as2Message('inbound', 'processed'));
}
