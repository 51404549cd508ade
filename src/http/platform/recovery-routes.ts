/**
 * `POST /platform/recoveries` and `GET /platform/recoveries/:id` (an extension beyond the
 * contract; docs/api.md, "Extensions", docs/transports.md, "Recovering failed deliveries"):
 * start a recovery run over every failed delivery a filter selects, and follow its progress.
 * Standard keys only, like resend and redeliver; the run's replays are throttled by the run's
 * own `ratePerSecond`, not by the contract's 10 a minute, which stays as it is for the
 * contract's per-transaction endpoints. `npx tdx recover` drives these two endpoints.
 */
import type Router from '@koa/router';
import { isWellFormedId } from '../../domain/ids.ts';
import { readRecoveryRequest, recoveryView, type RecoveryLimits, type RecoveryStore } from '../../domain/recovery.ts';
import { TdxError, errors } from '../../errors.ts';
import { requireAccess } from '../middleware/auth.ts';
import { authOf } from '../middleware/state.ts';
import { defineOperation, param, timestampMicros, type Json } from './operation.ts';
import { documentOperation, errorResponse, jsonResponse, rateLimitedResponse, ref } from './openapi.ts';
import type { RecoveryRunner } from './recovery.ts';
import { readAll } from './submission-routes.ts';

export interface RecoveryRouteDeps {
  readonly runner: RecoveryRunner;
  readonly store: Pick<RecoveryStore, 'getRun'>;
  readonly limits: RecoveryLimits;
  readonly now?: () => number;
}

const EXTENSION = 'Recovery at operations scale: not part of the contract (docs/api.md, "Extensions").';

const RECOVERY: Json = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    status: { enum: ['running', 'done', 'failed', 'abandoned'], description: 'abandoned: the process running it stopped; run the same recovery again to take up what is left' },
    filter: {
      type: 'object',
      properties: {
        partner: { type: ['string', 'null'] },
        direction: { enum: ['inbound', 'outbound', null] },
        since: { type: ['string', 'null'], format: 'date-time' },
        until: { type: ['string', 'null'], format: 'date-time' },
        errorCodes: { type: ['array', 'null'], items: { type: 'string' } },
      },
    },
    ratePerSecond: { type: 'number' },
    dryRun: { type: 'boolean' },
    matched: { type: 'integer', description: 'failed transactions the filter selected' },
    examined: { type: 'integer' },
    started: { type: 'integer', description: 'replays started (dry run: that would start)' },
    skipped: {
      type: 'object',
      description: 'delivered_since: its latest delivery succeeded; already_recovered: an earlier or concurrent run replayed this failure; not_a_delivery_failure: it failed before delivery; other_error_code: outside errorCodes; not_replayable: resend or redeliver would answer 422 (the 422 code of the contract)',
      additionalProperties: { type: 'integer' },
    },
    errors: { type: 'integer', description: 'replays that could not be started (a store or the broker failed); a later run takes them up' },
    error: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['id', 'status', 'matched', 'examined', 'started', 'skipped', 'errors'],
};

const REQUEST: Json = {
  type: 'object',
  additionalProperties: false,
  properties: {
    partner: { type: 'string', minLength: 1, description: 'partner key, any case; absent: every partner' },
    direction: { enum: ['inbound', 'outbound'], description: 'inbound: redeliver; outbound: resend; absent: both' },
    since: { type: 'string', format: 'date-time', description: 'transactions created at or after' },
    until: { type: 'string', format: 'date-time', description: 'transactions created before (at or before since: an empty window)' },
    errorCodes: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[a-z0-9_]{1,64}$' }, description: 'failure codes: http_503, http_5xx, timeout, connection_refused, connection_reset, unreachable, sftp_unreachable, no_mdn ... (docs/transports.md)' },
    ratePerSecond: { type: 'number', minimum: 0.01, description: 'replays started per second at most (default TDX_RECOVERY_RATE_PER_SECOND); a rate above TDX_RECOVERY_MAX_RATE_PER_SECOND runs at that rate (the answer shows the rate used)' },
    dryRun: { type: 'boolean', description: 'count what would be recovered, start nothing' },
  },
};

export const recoveryOperations = {
  start: defineOperation({
    method: 'post',
    path: '/platform/recoveries',
    summary: 'Recover every failed delivery a filter selects (extension)',
    description: 'Redelivers (inbound) or resends (outbound) every failed delivery of the filter through the same path as the contract\'s redeliver and resend (same resultId and webhook-id), at most ratePerSecond a second, once: a failure already recovered and a document delivered since are skipped. 202: the run started; follow it with GET /platform/recoveries/{id}.',
    tags: ['transactions'],
    parameters: [],
    extension: EXTENSION,
    requestBody: { required: false, content: { 'application/json': { schema: REQUEST } } },
    responses: {
      '202': jsonResponse('the run started', ref('Recovery')),
      '400': errorResponse('invalid_body: not JSON, or a field refused (the message and `reason` name it)'),
      '401': errorResponse('unauthorized'),
      '403': errorResponse('forbidden: read-only and sandbox keys'),
      '413': errorResponse('payload_too_large'),
      '429': rateLimitedResponse('rate_limited'),
    },
  }),
  show: defineOperation({
    method: 'get',
    path: '/platform/recoveries/{id}',
    summary: 'Progress of a recovery run (extension)',
    tags: ['transactions'],
    parameters: [param.path('id', 'recovery id')],
    extension: EXTENSION,
    responses: {
      '200': jsonResponse('the run', ref('Recovery')),
      '401': errorResponse('unauthorized'),
      '403': errorResponse('forbidden: read-only and sandbox keys'),
      '404': errorResponse('not_found: no such run in the organization (runs are kept 14 days)'),
      '429': rateLimitedResponse('rate_limited'),
    },
  }),
};

const MAX_BODY = 64 * 1024;

export function registerRecoveryRoutes(router: Router, deps: RecoveryRouteDeps): void {
  const now = deps.now ?? (() => Date.now() * 1000);
  router.post('/platform/recoveries', requireAccess('replay'), async (ctx) => {
    const auth = authOf(ctx);
    const text = (await readAll(ctx, MAX_BODY)).toString('utf8').trim();
    let body: unknown = {};
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        throw new TdxError('invalid_body', 'The request body is not valid JSON: send {"partner": "ACME", "direction": "inbound", "since": "2026-11-26T10:00:00Z"} or no body.');
      }
    }
    const request = readRecoveryRequest(body, deps.limits, (t) => {
      try {
        return timestampMicros(t);
      } catch {
        return null;
      }
    });
    const run = await deps.runner.start(auth.organizationId, auth.keyId, request);
    ctx.status = 202;
    ctx.body = recoveryView(run, now());
  });
  router.get('/platform/recoveries/:id', requireAccess('replay'), async (ctx) => {
    const auth = authOf(ctx);
    const id = ctx.params['id'] ?? '';
    const run = isWellFormedId(id) ? await deps.store.getRun(auth.organizationId, id) : null;
    if (!run) throw errors.notFound('recovery', `No recovery run with id "${id}" (runs are kept 14 days).`);
    ctx.body = recoveryView(run, now());
  });
  documentOperation(router, recoveryOperations.start, { Recovery: RECOVERY });
  documentOperation(router, recoveryOperations.show);
}
