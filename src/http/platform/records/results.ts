/**
 * Results and their payloads: GET /platform/results (newest first, a status filter sifted),
 * GET /platform/results/:id and GET /platform/results/:id/payload (streamed, or a selection by
 * jsonPath or keysOnly). A sandbox key reads only what a sandbox sink of its organization received.
 */
import { isWellFormedId } from '../../../domain/ids.ts';
import { parseJsonPath, resolveJsonPath, shapeOf } from '../../../domain/payload.ts';
import type { Position, ResultFilters } from '../../../domain/records-query.ts';
import type { ResultRecord } from '../../../domain/records.ts';
import { compactResultView, resultView, type ResultView } from '../../../domain/views.ts';
import { TdxError, errors } from '../../../errors.ts';
import type { CursorScope } from '../../middleware/cursor.ts';
import { recordOperations as ops } from '../records-operations.ts';
import { filtersText, posKey, type Caller, type PayloadAnswer, type Query, type RecordsContext } from './common.ts';

/** A result the caller may read, or 404. */
async function readableResult(rc: RecordsContext, caller: Caller, id: string): Promise<ResultRecord> {
  rc.access(caller, 'results');
  let r = isWellFormedId(id) ? await rc.deps.results.get(caller.organizationId, id) : null;
  if (r && caller.kind === 'sandbox' && !(await rc.deps.receipts.receivedResults(caller.organizationId, [r.id])).has(r.id)) r = null;
  if (!r || rc.aged(r.createdAt)) throw rc.notFound('result', 'result', id);
  return r;
}

/**
 * GET /platform/results: newest first. A `status` filter (and a sandbox key's restriction to
 * what its sink received) is sifted over at most `resultsStatusScanLimit` rows per page, in
 * page order; the cursor then points at the last row examined, so a page may hold few or no
 * rows while `hasMore` is true.
 */
export async function listResults(rc: RecordsContext, caller: Caller, query: Query): Promise<Record<string, unknown>> {
  rc.access(caller, 'results');
  const q = ops.listResults.parseQuery(query);
  const filters: ResultFilters = { trace: q.trace, node: q.node };
  const { status, limit, cursor } = q;
  const compact = q.compact === 'true';
  const scope: CursorScope = { endpoint: 'results', organizationId: caller.organizationId, filters: filtersText({ ...filters, status }) };
  const before = rc.decode(scope, cursor);
  const sift = status !== undefined || caller.kind === 'sandbox';
  const view = (r: ResultRecord): unknown => (compact ? compactResultView(r) : resultView(r));
  if (!sift) {
    const page = await rc.deps.lists.resultsPage(caller.organizationId, filters, before, limit);
    const lastRow = page.rows[page.rows.length - 1];
    return { results: page.rows.map(view), pagination: { hasMore: page.more, nextCursor: page.more && lastRow ? rc.cursors.encode(scope, posKey(lastRow)) : null } };
  }
  const scan = Math.max(limit, rc.deps.settings.resultsStatusScanLimit);
  const rows = await rc.deps.lists.scanResults(caller.organizationId, filters, before, scan + 1);
  const received = caller.kind === 'sandbox' ? await rc.deps.receipts.receivedResults(caller.organizationId, rows.slice(0, scan).map((r) => r.id)) : null;
  const kept: Position[] = [];
  let last = -1;
  for (let i = 0; i < Math.min(scan, rows.length) && kept.length < limit; i++) {
    const r = rows[i]!;
    last = i;
    if ((status === undefined || r.status === status) && (received === null || received.has(r.id))) kept.push(r);
  }
  const hasMore = last >= 0 && last < rows.length - 1;
  const records = await rc.deps.lists.results(caller.organizationId, kept);
  return {
    results: records.map(view),
    pagination: { hasMore, nextCursor: hasMore ? rc.cursors.encode(scope, posKey(rows[last]!)) : null },
  };
}

/** GET /platform/results/:id. */
export async function result(rc: RecordsContext, caller: Caller, id: string): Promise<ResultView> {
  return resultView(await readableResult(rc, caller, id));
}

/**
 * GET /platform/results/:id/payload. Without `jsonPath` or `keysOnly` the stored document is
 * streamed as it is (`stream`); otherwise it is read and parsed, and the selection answered
 * as a value. `maxBytes` (the MCP tool's limit) refuses a payload larger than it.
 */
export async function payload(rc: RecordsContext, caller: Caller, id: string, query: Query, maxBytes?: number): Promise<PayloadAnswer> {
  const q = ops.payload.parseQuery(query);
  const jsonPath = q.jsonPath;
  const keysOnly = q.keysOnly === 'true';
  // the schema's pattern and parseJsonPath agree: a path of one or more non-empty keys
  const segments = jsonPath === undefined ? null : parseJsonPath(jsonPath);
  if (jsonPath !== undefined && segments === null) throw ops.payload.parameters[1].refuse(jsonPath);
  const r = await readableResult(rc, caller, id);
  let format: 'json' | 'edi' | 'error';
  let whole: unknown;
  if (r.status === 'error') {
    format = 'error';
    whole = typeof r.detail.errorMessage === 'string' ? r.detail.errorMessage : '';
  } else {
    if (!r.payload) throw errors.notFound('payload', `Result "${id}" kept no payload: its step only moved the document on.`);
    const artifact = await rc.deps.artifacts.get(caller.organizationId, r.payload.artifactId);
    const payloadGone = (): TdxError => rc.gone('payload', `The payload of result "${id}" is no longer stored`);
    if (!artifact || rc.aged(artifact.createdAt)) throw payloadGone();
    format = r.payload.format;
    const chunks = await rc.firstChunk(artifact, payloadGone);
    if (segments === null && !keysOnly) {
      if (maxBytes !== undefined && artifact.size > maxBytes) throw tooLarge(id, artifact.size, maxBytes);
      return { kind: 'stream', format, size: artifact.size, chunks };
    }
    const parts: Buffer[] = [];
    for await (const c of chunks) parts.push(c);
    const text = Buffer.concat(parts).toString('utf8');
    if (format === 'edi') whole = text;
    else {
      try {
        whole = JSON.parse(text) as unknown;
      } catch {
        throw new TdxError('internal_error', `The stored payload of result ${id} is not JSON.`);
      }
    }
  }
  let contents = whole;
  if (segments !== null) {
    contents = resolveJsonPath(whole, segments);
    if (contents === undefined) throw errors.notFound('payload', `jsonPath "${jsonPath}" does not resolve in the payload of result "${id}".`);
  }
  if (keysOnly) contents = shapeOf(contents);
  const body: Record<string, unknown> = { format, contents };
  if (jsonPath !== undefined) body['jsonPath'] = jsonPath;
  if (maxBytes !== undefined) {
    const size = Buffer.byteLength(JSON.stringify(contents) ?? '');
    if (size > maxBytes) throw tooLarge(id, size, maxBytes);
  }
  return { kind: 'value', body };
}


function tooLarge(id: string, size: number, max: number): TdxError {
  return new TdxError(
    'payload_too_large',
    `The payload of result "${id}" is ${size} bytes, over the ${Math.floor(max / 1024)} KB this tool returns: ask for part of it with jsonPath (a dot-separated path, such as "heading.0"), or for its shape with keysOnly=true.`,
  );
}
