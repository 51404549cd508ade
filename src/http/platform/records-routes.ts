/**
 * The records endpoints over HTTP (contract: "EDI transactions", "Results and artifacts",
 * "Feed", "Logs"; DESIGN §3 traces), each documented in the OpenAPI document. The behaviour
 * lives in records.ts (shared with the MCP tools); this module maps it onto Koa: JSON bodies,
 * and streamed bodies for payloads and artifacts, so a document of any size passes through in
 * chunks and is never built whole in memory.
 */
import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { requireAccess } from '../middleware/auth.ts';
import { authOf } from '../middleware/state.ts';
import { documentPath } from './openapi.ts';
import type { RecordsReader } from './records.ts';

/** The chunks of a stored EDI document as the text of a JSON string (escaped chunk by chunk). */
export async function* jsonStringChunks(chunks: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const decoder = new TextDecoder('utf-8');
  for await (const c of chunks) {
    const text = decoder.decode(c, { stream: true });
    if (text !== '') yield Buffer.from(JSON.stringify(text).slice(1, -1), 'utf8');
  }
  const tail = decoder.decode();
  if (tail !== '') yield Buffer.from(JSON.stringify(tail).slice(1, -1), 'utf8');
}

/** `{"format": ..., "contents": <the document>}` around the stored bytes, streamed. */
export async function* payloadBody(format: 'json' | 'edi', chunks: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  yield Buffer.from(`{"format":"${format}","contents":${format === 'edi' ? '"' : ''}`);
  if (format === 'edi') yield* jsonStringChunks(chunks);
  else yield* chunks;
  yield Buffer.from(format === 'edi' ? '"}' : '}');
}

/** `Content-Disposition` naming the original file (RFC 6266, with an ASCII fallback). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

const caller = (ctx: Context): { organizationId: string; kind: ReturnType<typeof authOf>['kind'] } => {
  const a = authOf(ctx);
  return { organizationId: a.organizationId, kind: a.kind };
};

export function registerRecordRoutes(router: Router, reader: RecordsReader): void {
  router.get('/platform/edi_transactions', requireAccess('transactions'), async (ctx) => {
    ctx.body = await reader.listTransactions(caller(ctx), ctx.query);
  });
  router.get('/platform/edi_transactions/:id', requireAccess('transactions'), async (ctx) => {
    ctx.body = await reader.transaction(caller(ctx), ctx.params['id'] ?? '');
  });
  router.get('/platform/results', requireAccess('results'), async (ctx) => {
    ctx.body = await reader.listResults(caller(ctx), ctx.query);
  });
  router.get('/platform/results/:id', requireAccess('results'), async (ctx) => {
    ctx.body = await reader.result(caller(ctx), ctx.params['id'] ?? '');
  });
  router.get('/platform/results/:id/payload', requireAccess('results'), async (ctx) => {
    const answer = await reader.payload(caller(ctx), ctx.params['id'] ?? '', ctx.query);
    ctx.type = 'application/json';
    ctx.body = answer.kind === 'value' ? answer.body : Readable.from(payloadBody(answer.format, answer.chunks));
  });
  router.get('/platform/artifacts/:id', requireAccess('artifacts'), async (ctx) => {
    const { record, chunks } = await reader.artifact(caller(ctx), ctx.params['id'] ?? '');
    ctx.type = record.contentType ?? 'application/octet-stream';
    ctx.set('Content-Disposition', contentDisposition(record.filename ?? `${record.id}${record.contentType === 'application/json' ? '.json' : record.contentType === 'application/edi-x12' ? '.edi' : ''}`));
    ctx.body = Readable.from(chunks);
    ctx.length = record.size;
  });
  router.get('/platform/feed_entries', requireAccess('feed'), async (ctx) => {
    ctx.body = await reader.feed(caller(ctx), ctx.query);
  });
  router.get('/platform/logs', requireAccess('logs'), async (ctx) => {
    ctx.body = await reader.logs(caller(ctx), ctx.query);
  });
  router.get('/platform/traces/:guid', requireAccess('traces'), async (ctx) => {
    ctx.body = await reader.trace(caller(ctx), ctx.params['guid'] ?? '');
  });
  documentRecords();
}

// --- OpenAPI ----------------------------------------------------------------------------------

type Json = Record<string, unknown>;
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
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
const errorResponse = (description: string): Json => ({ description, content: { 'application/json': { schema: ref('Error') } } });
const q = (name: string, description: string, schema: Json = str): Json => ({ name, in: 'query', required: false, description, schema });
const LIMIT = q('limit', 'page size, 1 to 100', { type: 'integer', minimum: 1, maximum: 100, default: 50 });
const CURSOR = q('cursor', 'nextCursor of the previous page, unchanged, with the same filters', { type: 'string', minLength: 1 });
const path = (name: string, description: string): Json => ({ name, in: 'path', required: true, description, schema: str });
const jsonOk = (description: string, schema: Json): Json => ({ description, content: { 'application/json': { schema } } });
const E400 = errorResponse('invalid_parameter (the message names the parameter) or missing_parameter');
const E401 = errorResponse('unauthorized: key missing, malformed, unknown or revoked');
const E403 = (who: string): Json => errorResponse(`forbidden: ${who}`);
const E404 = (what: string): Json => errorResponse(`not_found: ${what} (another organization's id answers the same)`);
const E429 = { ...errorResponse('rate_limited: the key spent its 240 requests of the minute; Retry-After gives the seconds to wait'), headers: { 'Retry-After': { schema: int } } };
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

const schemas: Record<string, Json> = {
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

function documentRecords(): void {
  const tag = (t: string): Json => ({ tags: [t] });
  documentPath(
    '/platform/edi_transactions',
    {
      get: {
        summary: 'List EDI transactions, newest first',
        ...tag('transactions'),
        parameters: [
          q('direction', 'inbound or outbound', { enum: ['inbound', 'outbound'] }),
          q('incoming', 'true = inbound, false = outbound; must agree with direction when both are given', { enum: ['true', 'false'] }),
          q('transaction_set_identifier', 'set code, such as 850'),
          q('partner', 'partner key, any case'),
          q('reference', 'case-sensitive prefix of reference (a whole reference matches too)'),
          q('trace', 'trace GUID'),
          q('status', 'processing (no result yet), error (a result recorded a failure), delivered (the rest)', { enum: ['processing', 'error', 'delivered'] }),
          q('warnings', 'true: at least one warning; false: none', { enum: ['true', 'false'] }),
          q('ack_status', 'acknowledged = accepted or rejected', { enum: ['unacknowledged', 'acknowledged', 'accepted', 'rejected'] }),
          q('since', 'createdAt at or after (ISO 8601, inclusive)', ts),
          q('until', 'createdAt before (ISO 8601, exclusive): consecutive windows never count a row twice', ts),
          LIMIT,
          CURSOR,
          q('compact', 'true: rows of exactly the twelve compact fields', { enum: ['true', 'false'] }),
        ],
        responses: {
          '200': jsonOk('one page (compact=true: TransactionCompactRow items)', { anyOf: [page('ediTransactions', ref('TransactionRow')), page('ediTransactions', ref('TransactionCompactRow'))] }),
          '400': E400,
          '401': E401,
          '403': E403('sandbox keys'),
          '429': E429,
        },
      },
    },
    schemas,
  );
  documentPath('/platform/edi_transactions/{id}', {
    get: {
      summary: 'One EDI transaction with its warnings, artifacts by role and results',
      ...tag('transactions'),
      parameters: [path('id', 'transaction id')],
      responses: { '200': jsonOk('the transaction', ref('TransactionDetail')), '401': E401, '403': E403('sandbox keys'), '404': E404('no such transaction'), '429': E429 },
    },
  });
  documentPath('/platform/results', {
    get: {
      summary: 'List results, newest first',
      description:
        'A status filter is sifted over at most 500 rows (TDX_RESULTS_STATUS_SCAN_LIMIT) per page, in page order; nextCursor then points at the last row examined, so a page may hold few or no rows while hasMore is true. Sandbox keys see only results their sandbox sink received, sifted the same way.',
      ...tag('results'),
      parameters: [
        q('trace', 'trace GUID'),
        q('node', 'node name (any case) or node id'),
        q('status', 'success or error', { enum: ['success', 'error'] }),
        LIMIT,
        CURSOR,
        q('compact', 'true: compact rows (errorMessage cut to 200 characters)', { enum: ['true', 'false'] }),
      ],
      responses: {
        '200': jsonOk('one page (compact=true: ResultCompact items)', { anyOf: [page('results', ref('Result')), page('results', ref('ResultCompact'))] }),
        '400': E400,
        '401': E401,
        '429': E429,
      },
    },
  });
  documentPath('/platform/results/{id}', {
    get: {
      summary: 'One result with its full detail',
      ...tag('results'),
      parameters: [path('id', 'result id')],
      responses: { '200': jsonOk('the result', ref('Result')), '401': E401, '404': E404('no such result (for a sandbox key: not received by its sandbox sink)'), '429': E429 },
    },
  });
  documentPath('/platform/results/{id}/payload', {
    get: {
      summary: 'The payload of a result: {format, contents}',
      description: 'The whole payload is returned however large (streamed). format is json (contents an object), edi (a string) or error (the failed step\'s message).',
      ...tag('results'),
      parameters: [
        path('id', 'result id'),
        q('jsonPath', 'dot-separated path into contents; numeric segments index arrays; the value at the path is returned as contents and the path echoed'),
        q('keysOnly', 'true: the shape of contents (keys, value types, array lengths with the first element as sample, four levels deep)', { enum: ['true', 'false'] }),
      ],
      responses: {
        '200': jsonOk('the payload', ref('Payload')),
        '400': E400,
        '401': E401,
        '404': E404('unknown or aged-out result (the message names the id), a step that kept no payload, or a jsonPath that does not resolve (the message names the path)'),
        '429': E429,
      },
    },
  });
  documentPath('/platform/artifacts/{id}', {
    get: {
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
    },
  });
  documentPath('/platform/feed_entries', {
    get: {
      summary: 'The feed, oldest first',
      description:
        'An append-only stream of every deliverable document and error. Entries created in the last 2 seconds (TDX_FEED_VISIBILITY_LAG_MS), or not yet fully materialized, are withheld, so a reader following nextCursor sees every entry exactly once. nextCursor is a high-water mark: keep it, and poll with it again when hasMore is false.',
      ...tag('feed'),
      parameters: [
        q('partner', 'partner key, any case; an unknown key gives an empty page'),
        q('direction', 'inbound or outbound', { enum: ['inbound', 'outbound'] }),
        q('status', 'success or error', { enum: ['success', 'error'] }),
        q('trace', "trace GUID: every entry of that document, including its 997's"),
        q('since', 'entries created at or after (ISO 8601); a cursor supersedes it', ts),
        LIMIT,
        CURSOR,
      ],
      responses: { '200': jsonOk('one page', page('feedEntries', ref('FeedEntry'))), '400': E400, '401': E401, '403': E403('sandbox keys'), '429': E429 },
    },
  });
  documentPath('/platform/logs', {
    get: {
      summary: 'The log entries of a trace, oldest first',
      description: 'Entries younger than 5 seconds (TDX_LOG_VISIBILITY_LAG_MS) are withheld. level filters on exactly that level; debug entries appear only on an unfiltered read. An unknown or aged-out trace gives an empty list.',
      ...tag('logs'),
      parameters: [
        { name: 'trace', in: 'query', required: true, description: 'trace GUID', schema: str },
        q('level', 'info, warn or error', { enum: ['info', 'warn', 'error'] }),
        q('since', 'entries created at or after (ISO 8601); a cursor supersedes it', ts),
        LIMIT,
        CURSOR,
      ],
      responses: { '200': jsonOk('one page', page('logs', ref('LogEntry'))), '400': E400, '401': E401, '403': E403('sandbox keys'), '429': E429 },
    },
  });
  documentPath('/platform/traces/{guid}', {
    get: {
      summary: 'A whole processing run: its transactions, results, and every artifact once with the node that produced it',
      ...tag('traces'),
      parameters: [path('guid', 'trace GUID')],
      responses: { '200': jsonOk('the trace', ref('Trace')), '401': E401, '403': E403('sandbox keys'), '404': E404('no such trace'), '429': E429 },
    },
  });
}
