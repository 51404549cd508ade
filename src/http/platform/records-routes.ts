/**
 * The records endpoints over HTTP (contract: "EDI transactions", "Results and artifacts",
 * "Feed", "Logs"; DESIGN §3 traces), each documented in the OpenAPI document from its
 * definition in records-operations.ts. The behaviour lives in records.ts (shared with the MCP
 * tools); this module maps it onto Koa: JSON bodies, and streamed bodies for payloads and
 * artifacts, so a document of any size passes through in chunks and is never built whole in
 * memory.
 */
import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { requireAccess } from '../middleware/auth.ts';
import { authOf } from '../middleware/state.ts';
import { documentOperation } from './openapi.ts';
import { recordOperations, recordSchemas } from './records-operations.ts';
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
  for (const op of Object.values(recordOperations)) documentOperation(router, op, recordSchemas);
}
