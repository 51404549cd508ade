/**
 * `POST /platform/edi_transactions/:id/resend` and `/redeliver` (contract: Endpoints, Errors:
 * Resend and Redeliver, Events, Limits). The API checks the replay with the same plan the
 * background consumer uses (src/domain/replay.ts), answers 422 with the contract's code when it
 * cannot run, and otherwise puts a command on `commands.replay`, counts the attempt on the
 * transaction at once (`resendCount`, `lastResentAt`) and answers 202: started, not landed.
 *
 * Standard keys only (read-only and sandbox keys: 403); 10 a minute per key for the two
 * together, besides the 240 a minute of every endpoint; an unknown id, or another
 * organization's, answers 404.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { isWellFormedId, newId } from '../../domain/ids.ts';
import { agedOut } from '../../domain/retention.ts';
import type { TransactionStore } from '../../domain/processing-ports.ts';
import type { StoredTransaction } from '../../domain/records.ts';
import { planReplay, type ReplayKind } from '../../domain/replay.ts';
import { errors } from '../../errors.ts';
import { replayFacts, type ReplayLoadDeps } from '../../nodes/replay.ts';
import { TOPICS } from '../../wire/topics.ts';
import type { ReplayCommand } from '../../wire/replay-command.v1.ts';
import type { TransactionChange } from '../../wire/transaction-change.v1.ts';
import { requireAccess } from '../middleware/auth.ts';
import { authOf } from '../middleware/state.ts';
import { defineOperation, param } from './operation.ts';
import { documentOperation, errorResponse, jsonResponse, rateLimitedResponse, ref } from './openapi.ts';
import type { WorkProducer } from './submission-routes.ts';

export interface ReplayRouteDeps extends ReplayLoadDeps {
  readonly transactions: Pick<TransactionStore, 'get' | 'addResend'>;
  readonly producer: WorkProducer;
  /** The 10/minute resend-and-redeliver budget. */
  readonly replayRateLimit: Middleware;
  readonly now?: () => number;
  /** Retention in seconds: an older transaction answers 404 like an absent one (docs/retention.md). */
  readonly retentionSeconds?: number;
}


const REPLAY_ACCEPTED = { type: 'object', properties: { message: { type: 'string' }, ediTransactionId: { type: 'string' }, traceGuid: { type: 'string' } }, required: ['message', 'ediTransactionId', 'traceGuid'] };

const replayOperation = (kind: ReplayKind, codes: string) =>
  defineOperation({
    method: 'post',
    path: `/platform/edi_transactions/{id}/${kind}`,
    summary: kind === 'resend' ? 'Resend an outbound document byte for byte, on its original trace' : 'Redeliver an inbound document through its delivery node, on its original trace',
    description: 'No body. 202 means started, not landed. 422 answers a transaction the replay cannot run for (its code says why); that is the state of the transaction, not a fault of the request.',
    tags: ['transactions'],
    parameters: [param.path('id', 'transaction id')],
    responses: {
      '202': jsonResponse('started, not landed', ref('ReplayAccepted')),
      '401': errorResponse('unauthorized'),
      '403': errorResponse('forbidden: read-only and sandbox keys'),
      '404': errorResponse('not_found: no such transaction in the organization'),
      '422': errorResponse(codes),
      '429': rateLimitedResponse('rate_limited: more than 10 resends and redeliveries a minute on the key (or the 240 a minute budget)'),
    },
  });

/** The two replay operations. */
export const replayOperations = {
  resend: replayOperation('resend', 'not_outbound, document_not_generated, content_unavailable, delivery_node_missing, not_flow_delivered, delivery_target_missing'),
  redeliver: replayOperation('redeliver', 'not_inbound, content_unavailable, delivery_node_missing, delivery_target_missing, delivery_not_reached, poll_delivery'),
};

/** What starting a replay writes to. */
export type ReplayIssueDeps = Pick<ReplayRouteDeps, 'producer' | 'transactions'>;

export interface ReplayIssue {
  /** The command id (the replay ledger runs a command once, `resendCount` counts it once). */
  readonly commandId: string;
  /** The run it starts on the trace (the replay's result ids derive from it). */
  readonly attempt: number;
  readonly requestedBy: string | null;
  readonly at: number;
}

/**
 * Starts a replay that `planReplay` accepted: the command on `commands.replay`, the attempt
 * counted on the transaction at once (`resendCount`, `lastResentAt`), and the change event.
 * The one way a replay starts: the contract's resend and redeliver and the recovery runs
 * (src/http/platform/recovery.ts) all call it.
 */
export async function issueReplay(deps: ReplayIssueDeps, t: StoredTransaction, kind: ReplayKind, issue: ReplayIssue): Promise<ReplayCommand> {
  const command: ReplayCommand = {
    id: issue.commandId,
    organizationId: t.organizationId,
    kind,
    transactionId: t.id,
    traceGuid: t.traceGuid,
    requestedBy: issue.requestedBy,
    requestedAt: issue.at,
    attempt: issue.attempt,
  };
  await deps.producer.produce([{ topic: TOPICS.replay, key: t.traceGuid, value: command }]);
  // the count moves at once: it counts attempts, not confirmed deliveries
  await deps.transactions.addResend(t.organizationId, t.id, command.id, issue.at);
  const change: TransactionChange = { id: t.id, organizationId: t.organizationId, traceGuid: t.traceGuid, changedAt: issue.at, snapshot: null };
  await deps.producer.produce([{ topic: TOPICS.transactions, key: t.traceGuid, value: change }]);
  return command;
}

export function registerReplayRoutes(router: Router, deps: ReplayRouteDeps): void {
  const now = deps.now ?? (() => Date.now() * 1000);
  const route = (kind: ReplayKind): Middleware => async (ctx) => {
    const auth = authOf(ctx);
    const id = (ctx['params'] as Record<string, string | undefined>)['id'] ?? '';
    const t = isWellFormedId(id) ? await deps.transactions.get(auth.organizationId, id) : null;
    if (!t || (deps.retentionSeconds !== undefined && agedOut(t.createdAt, now(), deps.retentionSeconds))) {
      throw errors.notFound('transaction', `No EDI transaction with id "${id}" (it may never have existed, or aged out).`);
    }
    const plan = planReplay(await replayFacts(deps, kind, t), deps.retentionSeconds);
    if (plan instanceof Error) throw plan;
    const at = now();
    await issueReplay(deps, t, kind, { commandId: newId(Math.floor(at / 1000)), attempt: t.resendCount + 2, requestedBy: auth.keyId, at });
    ctx.status = 202;
    ctx.body = {
      message: kind === 'resend' ? `Resend of transaction ${t.id} started; it goes out in the background on trace ${t.traceGuid}.` : `Redelivery of transaction ${t.id} started; it is delivered in the background on trace ${t.traceGuid}.`,
      ediTransactionId: t.id,
      traceGuid: t.traceGuid,
    };
  };
  router.post('/platform/edi_transactions/:id/resend', requireAccess('replay'), deps.replayRateLimit, route('resend'));
  router.post('/platform/edi_transactions/:id/redeliver', requireAccess('replay'), deps.replayRateLimit, route('redeliver'));

  documentOperation(router, replayOperations.resend, { ReplayAccepted: REPLAY_ACCEPTED });
  documentOperation(router, replayOperations.redeliver);
}
