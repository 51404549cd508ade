/**
 * The records operations (contract: "EDI transactions", "Results and artifacts", "Feed",
 * "Logs"; DESIGN §3 traces): parameters, responses and the component schemas of their bodies.
 * RecordsReader (records.ts) validates queries with these definitions, for the HTTP routes and
 * the MCP tools alike, and the OpenAPI document renders them.
 */
import { DIRECTIONS } from '../../domain/configuration.ts';
import { errors } from '../../errors.ts';
import { RESULT_STATUSES, TRANSACTION_STATUSES } from '../../domain/records.ts';
import { LIST_ORDERS } from '../../domain/records-query.ts';
import { defineOperation, param, type Json } from './operation.ts';
import { errorResponse, jsonResponse as jsonOk, rateLimitedResponse, ref } from './openapi.ts';

const BOOLEANS = ['true', 'false'] as const;
const path = (name: string, description: string) => param.path(name, description);

const str = { type: 'string' };
const strOrNull = { type: ['string', 'null'] };
const int = { type: 'integer' };
const bool = { type: 'boolean' };
const ts = { type: 'string', format: 'date-time' };
const tsOrNull = { type: ['string', 'null'], format: 'date-time' };
const arr = (items: Json): Json => ({ type: 'array', items });
/** A closed object: every listed property required unless named in `optional`. */
const obj = (properties: Record<string, unknown>, optional: string[] = []): Json => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
});
const openObj = { type: 'object' };
const E400 = errorResponse('invalid_parameter (the message names the parameter) or missing_parameter');
const E401 = errorResponse('unauthorized: key missing, malformed, unknown or revoked');
const E403 = (who: string): Json => errorResponse(`forbidden: ${who}`);
const E404 = (what: string): Json => errorResponse(`not_found: ${what} (another organization's id answers the same)`);
const E429 = rateLimitedResponse('rate_limited: the key spent its 240 requests of the minute; Retry-After gives the seconds to wait');
const page = (arrayName: string, item: Json): Json => obj({ [arrayName]: arr(item), pagination: ref('Pagination') });

const transactionRow = {
  id: str,
  direction: { enum: ['inbound', 'outbound'] },
  incoming: bool,
  usageIndicator: str,
  partnerKey: strOrNull,
  transactionSetIdentifier: str,
  reference: strOrNull,
  senderExtid: str,
  senderQualifier: str,
  receiverExtid: str,
  receiverQualifier: str,
  interchangeControlNumber: str,
  groupControlNumber: str,
  transactionSetControlNumber: str,
  traceGuid: str,
  status: { enum: ['processing', 'error', 'delivered'] },
  deliveredAt: tsOrNull,
  warningCount: int,
  acknowledgmentStatus: { enum: ['accepted', 'rejected', 'unacknowledged', null] },
  resendCount: int,
  lastResentAt: tsOrNull,
  createdAt: ts,
  updatedAt: ts,
  duplicateOf: str,
};
const compactTransactionKeys = ['id', 'createdAt', 'direction', 'usageIndicator', 'partnerKey', 'transactionSetIdentifier', 'reference', 'status', 'acknowledgmentStatus', 'warningCount', 'deliveredAt', 'traceGuid'] as const;
const artifactFields = { id: str, usage: str, contentType: strOrNull, filename: strOrNull };
const artifactRole = { oneOf: [obj({ ...artifactFields, resultId: str, nodeName: str }), obj({ resultId: str, nodeName: str }), { type: 'null' }] };
const resultFields = {
  id: str,
  traceGuid: str,
  createdAt: ts,
  updatedAt: ts,
  nodeName: str,
  nodeId: str,
  status: { enum: ['success', 'error'] },
  detail: openObj,
};

export const recordSchemas: Record<string, Json> = {
  TransactionRow: obj(transactionRow, ['duplicateOf']),
  TransactionCompactRow: obj(Object.fromEntries(compactTransactionKeys.map((k) => [k, transactionRow[k]]))),
  Warning: obj({ code: str, message: str, detail: openObj, resultId: str }, ['detail', 'resultId']),
  ArtifactRole: artifactRole,
  TransactionDetail: obj(
    {
      ...transactionRow,
      acknowledgedBy: strOrNull,
      acknowledges: strOrNull,
      warnings: arr(ref('Warning')),
      flowName: strOrNull,
      traceErroredElsewhere: bool,
      traceErroredElsewhereNodeName: strOrNull,
      artifacts: obj({ input: ref('ArtifactRole'), output: ref('ArtifactRole'), errored: ref('ArtifactRole'), acknowledged: ref('ArtifactRole') }),
      results: arr(ref('Result')),
    },
    ['duplicateOf'],
  ),
  Result: obj(resultFields),
  ResultCompact: obj({ id: str, traceGuid: str, createdAt: ts, nodeName: str, status: { enum: ['success', 'error'] }, partnerKey: strOrNull, errorMessage: { type: ['string', 'null'], maxLength: 200 } }),
  Payload: obj({ format: { enum: ['json', 'edi', 'error'] }, contents: {}, jsonPath: str }, ['jsonPath']),
  FeedEntry: obj({ id: str, direction: { enum: ['inbound', 'outbound'] }, status: { enum: ['success', 'error'] }, createdAt: ts, partnerKey: str, traceGuid: str, resultId: str, detail: ref('Result') }),
  LogEntry: obj({ id: str, level: { enum: ['debug', 'info', 'warn', 'error'] }, message: str, nodeName: strOrNull, traceGuid: str, createdAt: ts }),
  Trace: obj({
    traceGuid: str,
    direction: { enum: ['inbound', 'outbound', null] },
    partnerKey: strOrNull,
    flow: { oneOf: [obj({ id: str, name: str, versionNumber: int }), { type: 'null' }] },
    createdAt: tsOrNull,
    transactions: arr(obj({ id: str, transactionSetIdentifier: str, status: { enum: ['processing', 'error', 'delivered'] } })),
    results: arr(ref('ResultCompact')),
    artifacts: arr(obj({ ...artifactFields, resultId: str, nodeName: str })),
  }),
};


/** Filters of the transaction list acknowledgment status. */
export const ACK_FILTERS = ['unacknowledged', 'acknowledged', 'accepted', 'rejected'] as const;
/** Levels a log read filters on (debug entries appear only unfiltered). */
export const LOG_FILTER_LEVELS = ['info', 'warn', 'error'] as const;

const tag = (t: string): { tags: string[] } => ({ tags: [t] });

/** The operations, by route. */
export const recordOperations = {
  listTransactions: defineOperation({
    method: 'get',
    path: '/platform/edi_transactions',
    summary: 'List EDI transactions, newest first (oldest first with the order extension)',
    ...tag('transactions'),
    parameters: [
      param.oneOf('direction', 'inbound or outbound', DIRECTIONS),
      param.oneOf('incoming', 'true = inbound, false = outbound (kept for older code; use direction). Given with direction, the two must agree: direction=inbound with incoming=false (or direction=outbound with incoming=true) is refused with 400 invalid_parameter naming incoming', BOOLEANS),
      param.text('transaction_set_identifier', 'set code, such as 850'),
      param.text('partner', 'partner key, any case'),
      param.text('reference', 'case-sensitive prefix of reference (a whole reference matches too)'),
      param.text('trace', 'trace GUID'),
      param.oneOf('status', 'processing (no result yet), error (a result recorded a failure), delivered (the rest)', TRANSACTION_STATUSES),
      param.oneOf('warnings', 'true: at least one warning; false: none', BOOLEANS),
      param.oneOf('ack_status', 'acknowledged = accepted or rejected', ACK_FILTERS),
      param.timestamp('since', 'createdAt at or after (RFC 3339 date-time, inclusive)'),
      param.timestamp('until', 'createdAt before (RFC 3339 date-time, exclusive): consecutive windows never count a row twice'),
      param.oneOf('compact', 'true: rows of exactly the twelve compact fields', BOOLEANS),
      param.extension(
        param.oneOf(
          'order',
          'desc: newest first (the contract\'s order, also when absent); asc: oldest first. A cursor pages on only in the order that returned it: one from the other order is refused with 400 invalid_parameter naming cursor (desc and absent are the same order)',
          LIST_ORDERS,
        ),
        'Order of the list: not part of the contract, which lists newest first only; absent, the list is exactly the contract\'s.',
      ),
      param.limit(),
      param.cursor(),
    ],
    responses: {
      '200': jsonOk('one page (compact=true: TransactionCompactRow items)', { anyOf: [page('ediTransactions', ref('TransactionRow')), page('ediTransactions', ref('TransactionCompactRow'))] }),
      '400': E400,
      '401': E401,
      '403': E403('sandbox keys'),
      '429': E429,
    },
  }),
  showTransaction: defineOperation({
    method: 'get',
    path: '/platform/edi_transactions/{id}',
    summary: 'One EDI transaction with its warnings, artifacts by role and results',
    ...tag('transactions'),
    parameters: [path('id', 'transaction id')],
    responses: { '200': jsonOk('the transaction', ref('TransactionDetail')), '401': E401, '403': E403('sandbox keys'), '404': E404('no such transaction'), '429': E429 },
  }),
  listResults: defineOperation({
    method: 'get',
    path: '/platform/results',
    summary: 'List results, newest first',
    description:
      'A status filter is sifted over at most 500 rows (TDX_RESULTS_STATUS_SCAN_LIMIT) per page, in page order; nextCursor then points at the last row examined, so a page may hold few or no rows while hasMore is true. Sandbox keys see only results their sandbox sink received, sifted the same way.',
    ...tag('results'),
    parameters: [
      param.text('trace', 'trace GUID'),
      param.text('node', 'node name (any case) or node id'),
      param.oneOf('status', 'success or error', RESULT_STATUSES),
      param.oneOf('compact', 'true: compact rows (errorMessage cut to 200 characters)', BOOLEANS),
      param.limit(),
      param.cursor(),
    ],
    responses: {
      '200': jsonOk('one page (compact=true: ResultCompact items)', { anyOf: [page('results', ref('Result')), page('results', ref('ResultCompact'))] }),
      '400': E400,
      '401': E401,
      '429': E429,
    },
  }),
  showResult: defineOperation({
    method: 'get',
    path: '/platform/results/{id}',
    summary: 'One result with its full detail',
    ...tag('results'),
    parameters: [path('id', 'result id')],
    responses: { '200': jsonOk('the result', ref('Result')), '401': E401, '404': E404('no such result (for a sandbox key: not received by its sandbox sink)'), '429': E429 },
  }),
  payload: defineOperation({
    method: 'get',
    path: '/platform/results/{id}/payload',
    summary: 'The payload of a result: {format, contents}',
    description: "The whole payload is returned however large (streamed). format is json (contents an object), edi (a string) or error (the failed step's message).",
    ...tag('results'),
    parameters: [
      path('id', 'result id'),
      param.matching(
        'jsonPath',
        'dot-separated path into contents; numeric segments index arrays; the value at the path is returned as contents and the path echoed',
        '^[^.]+(\\.[^.]+)*$',
        'dot-separated keys and array indexes, such as "heading.0.name"',
      ),
      param.oneOf('keysOnly', 'true: the shape of contents (keys, value types, array lengths with the first element as sample, four levels deep)', BOOLEANS),
    ],
    responses: {
      '200': jsonOk('the payload', ref('Payload')),
      '400': E400,
      '401': E401,
      '404': E404('unknown or aged-out result (the message names the id), a step that kept no payload, or a jsonPath that does not resolve (the message names the path)'),
      '429': E429,
    },
  }),
  artifact: defineOperation({
    method: 'get',
    path: '/platform/artifacts/{id}',
    summary: 'The raw file of an artifact, with its original filename and content type',
    ...tag('results'),
    parameters: [path('id', 'artifact id, from detail.artifacts of a result')],
    responses: {
      '200': {
        description: 'the file (Content-Disposition names it)',
        headers: { 'Content-Disposition': { schema: str } },
        content: { 'application/edi-x12': { schema: { type: 'string', format: 'binary' } }, 'application/json': { schema: {} }, 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
      '401': E401,
      '404': E404('the artifact does not exist or its file is unavailable'),
      '429': E429,
    },
  }),
  feed: defineOperation({
    method: 'get',
    path: '/platform/feed_entries',
    summary: 'The feed, oldest first',
    description:
      'An append-only stream of every deliverable document and error. Entries created in the last 2 seconds (TDX_FEED_VISIBILITY_LAG_MS), or not yet fully materialized, are withheld, so a reader following nextCursor sees every entry exactly once. nextCursor is a high-water mark: keep it, and poll with it again when hasMore is false.',
    ...tag('feed'),
    parameters: [
      param.text('partner', 'partner key, any case; an unknown key gives an empty page'),
      param.oneOf('direction', 'inbound or outbound', DIRECTIONS),
      param.oneOf('status', 'success or error', RESULT_STATUSES),
      param.text('trace', "trace GUID: every entry of that document, including its 997's"),
      param.timestamp('since', 'entries created at or after (RFC 3339 date-time); a cursor supersedes it'),
      param.limit(),
      param.cursor('nextCursor of a previous page (a high-water mark), unchanged, with the same filters'),
    ],
    responses: { '200': jsonOk('one page', page('feedEntries', ref('FeedEntry'))), '400': E400, '401': E401, '403': E403('sandbox keys'), '429': E429 },
  }),
  logs: defineOperation({
    method: 'get',
    path: '/platform/logs',
    summary: 'The log entries of a trace, oldest first',
    description: 'Entries younger than 5 seconds (TDX_LOG_VISIBILITY_LAG_MS) are withheld. level filters on exactly that level; debug entries appear only on an unfiltered read. An unknown or aged-out trace gives an empty list.',
    ...tag('logs'),
    parameters: [
      param.required(param.text('trace', 'trace GUID (required: absent or empty, 400 missing_parameter)'), () => errors.missingParameter('trace')),
      param.oneOf('level', 'info, warn or error', LOG_FILTER_LEVELS),
      param.timestamp('since', 'entries created at or after (RFC 3339 date-time); a cursor supersedes it'),
      param.limit(),
      param.cursor(),
    ],
    responses: { '200': jsonOk('one page', page('logs', ref('LogEntry'))), '400': E400, '401': E401, '403': E403('sandbox keys'), '429': E429 },
  }),
  trace: defineOperation({
    method: 'get',
    path: '/platform/traces/{guid}',
    summary: 'A whole processing run: its transactions, results, and every artifact once with the node that produced it',
    ...tag('traces'),
    parameters: [path('guid', 'trace GUID')],
    responses: { '200': jsonOk('the trace', ref('Trace')), '401': E401, '403': E403('sandbox keys'), '404': E404('no such trace'), '429': E429 },
  }),
};
