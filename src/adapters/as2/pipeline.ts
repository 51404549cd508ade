/**
 * AS2 for the pipeline: the `As2Transport` the as2_send and as2_receive nodes use (one
 * transmission of a stored document; one post of an asynchronous receipt), and the store port
 * of the receipts awaited, which the `POST /as2/mdn` route and the receipt-wait job complete.
 */
import type { As2DeliveryDetail, As2ReceiptOutcome, As2SendReport } from '../../domain/as2-delivery.ts';
import type { As2ReceiptPost, As2SendRequest, As2Transport } from '../../nodes/ports.ts';
import type { TransferOutcome } from '../../nodes/ports.ts';
import type { StageMessage } from '../../wire/stage.v1.ts';
import { credentialsFromSecrets } from './keys.ts';
import type { MdnVerdict } from './mdn.ts';
import { formatMic } from './mic.ts';
import { postAsyncMdn, sendAs2Message, type As2PendingMdns, type As2SendDetail, type As2SendOutcome, type PendingMdn } from './send.ts';

/** A message sent in async mode, awaiting its receipt (what the receipt is checked against, and the delivery to complete). */
export interface AwaitedMdn extends PendingMdn {
  readonly organizationId: string;
  /** The as2_send work item that sent it (its delivery is completed from it). */
  readonly work: StageMessage;
  /** `detail.as2` as of sending. */
  readonly detail: As2DeliveryDetail;
  /** How the wait ended, once it did (set once: a receipt repeated later changes nothing). */
  readonly outcome: As2ReceiptOutcome | null;
}

/** Where awaited receipts are kept (Cassandra: src/adapters/cassandra/as2-store.ts). */
export interface As2AwaitedMdnStore extends As2PendingMdns {
  /** Records a message whose receipt is awaited, with its deadline. */
  expect(awaited: Omit<AwaitedMdn, 'outcome'>): Promise<void>;
  record(messageId: string): Promise<AwaitedMdn | null>;
  /** Records how the wait ended unless it already had; returns the outcome in force (the first). */
  settle(messageId: string, outcome: As2ReceiptOutcome): Promise<As2ReceiptOutcome | null>;
  /** Forgets a message whose transmission failed or was answered at once. */
  forget(messageId: string, deadline: string): Promise<void>;
  /** Deadlines in [from, to) (microseconds), oldest first. */
  due(from: number, to: number): Promise<{ readonly messageId: string; readonly dueAt: number }[]>;
  /** Forgets a deadline once handled. */
  done(deadline: { readonly messageId: string; readonly dueAt: number }): Promise<void>;
}

const micros = (iso: string): number => Date.parse(iso) * 1000;

/** `detail.as2` of a transmission's outcome. */
export function deliveryDetailOf(d: As2SendDetail): As2DeliveryDetail {
  return {
    messageId: d.as2MessageId,
    from: d.as2From,
    to: d.as2To,
    url: d.url,
    mdnMode: d.mdnMode,
    mdnStatus: d.mdnStatus === 'pending-async' ? 'pending' : d.mdnStatus,
    mic: d.mic,
    returnedMic: d.returnedMic,
    micMatched: d.micMatched,
    disposition: d.disposition,
    mdnMessageId: d.mdnMessageId,
    httpStatus: d.httpStatus,
    error: d.error,
  };
}

/** `detail.as2` once an asynchronous receipt was judged. */
export function answeredDetail(sent: As2DeliveryDetail, verdict: MdnVerdict): As2DeliveryDetail {
  return {
    ...sent,
    mdnStatus: verdict.status,
    returnedMic: verdict.returnedMic,
    micMatched: verdict.micMatched,
    disposition: verdict.disposition,
    mdnMessageId: verdict.mdnMessageId,
    error: verdict.status === 'failed' ? verdict.reason : null,
  };
}

function reportOf(o: As2SendOutcome, deadline: number | null): As2SendReport {
  return {
    status: o.mdnStatus === 'pending-async' ? 'pending' : o.mdnStatus,
    retryable: o.retryable,
    retryAfterSeconds: o.retryAfterSeconds,
    error: o.error,
    detail: deliveryDetailOf(o.detail),
    deadline: o.mdnStatus === 'pending-async' ? deadline : null,
  };
}

/** The AS2 transport of the node services. */
export class As2PipelineTransport implements As2Transport {
  constructor(
    private readonly awaited: As2AwaitedMdnStore,
    private readonly receiptTimeoutMs = 30_000,
  ) {}

  async send(r: As2SendRequest): Promise<As2SendReport> {
    const settings = r.connection.as2;
    const failed = (error: string): As2SendReport => ({
      status: 'failed',
      retryable: false,
      retryAfterSeconds: null,
      error,
      deadline: null,
      detail: { messageId: r.messageId.replace(/^<(.*)>$/, '$1'), from: settings?.localId ?? '', to: settings?.partnerId ?? '', url: settings?.url ?? '', mdnMode: settings?.mdn.mode ?? 'sync', mdnStatus: 'failed', mic: null, returnedMic: null, micMatched: null, disposition: null, mdnMessageId: null, httpStatus: null, error },
    });
    if (!settings) return failed(`connection ${r.connection.name} has no AS2 settings`);
    const credentials = credentialsFromSecrets(Object.entries(r.secrets).map(([name, value]) => ({ name, value })));
    if (!credentials) return failed(`the AS2 key material of connection ${r.connection.name} is incomplete (setup ${settings.setupStatus}${settings.setupReason ? `: ${settings.setupReason}` : ''})`);
    let expected: PendingMdn | null = null;
    const outcome = await sendAs2Message({
      payload: r.payload,
      filename: r.filename,
      connectionId: r.connection.id,
      settings,
      credentials,
      messageId: r.messageId,
      beforePost: async (p) => {
        const detail: As2DeliveryDetail = {
          messageId: p.messageId,
          from: settings.localId,
          to: settings.partnerId,
          url: settings.url,
          mdnMode: 'async',
          mdnStatus: 'pending',
          mic: formatMic(p.mic),
          returnedMic: null,
          micMatched: null,
          disposition: null,
          mdnMessageId: null,
          httpStatus: null,
          error: null,
        };
        await this.awaited.expect({ ...p, organizationId: r.organizationId, work: r.work, detail });
        expected = p;
      },
    });
    const sent = expected as PendingMdn | null;
    if (sent && outcome.mdnStatus !== 'pending-async') await this.awaited.forget(sent.messageId, sent.deadline);
    return reportOf(outcome, sent ? micros(sent.deadline) : null);
  }

  async postReceipt(receipt: As2ReceiptPost): Promise<TransferOutcome & { readonly httpStatus: number | null }> {
    const r = await postAsyncMdn({ url: receipt.url, mdn: { messageId: receipt.headers['Message-ID'] ?? '', headers: receipt.headers, body: receipt.body, signed: false } }, this.receiptTimeoutMs);
    return r.ok ? { kind: 'delivered', httpStatus: r.httpStatus } : { kind: r.retryable ? 'retryable' : 'final', reason: r.error ?? `HTTP ${r.httpStatus ?? '?'}`, httpStatus: r.httpStatus };
  }
}
