/**
 * `POST /platform/mcp`: the MCP server over streamable HTTP (stateless, JSON responses). It sits
 * under /platform, so the request was authenticated and counted against the key's budget before
 * it gets here; every key kind may connect, and each tool applies the key rules of the
 * endpoint it stands for. GET and DELETE (server-sent streams and sessions) answer 405: a
 * stateless server keeps no session to stream from or end.
 *
 * The body is checked against the schema the OpenAPI document gives it (the SDK's own message
 * schemas, compiled by ajv) before the transport sees it: one JSON-RPC request or notification.
 */
import type Router from '@koa/router';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { Context } from 'koa';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { authOf } from '../middleware/state.ts';
import * as z from 'zod/v4';
import { JSONRPCNotificationSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ajvErrorsText, compileSchema, defineOperation, type Json } from '../platform/operation.ts';
import { readAll } from '../platform/submission-routes.ts';
import { documentOperation, errorResponse, rateLimitedResponse } from '../platform/openapi.ts';
import type { RecordsReader } from '../platform/records.ts';
import { MCP_PATH, createMcpServer } from './server.ts';

/** Largest message taken (the transport's own limit). */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * The request body: one JSON-RPC request or notification, as the SDK's message schemas (zod)
 * define them. Batches and JSON-RPC responses are not taken: MCP no longer batches, and a
 * stateless server never asks the client anything to respond to.
 */
function messageSchema(): Json {
  const { $schema: _draft, ...schema } = z.toJSONSchema(z.union([JSONRPCRequestSchema, JSONRPCNotificationSchema]), { target: 'draft-2020-12' }) as Json;
  return schema;
}

const MESSAGE_SCHEMA = messageSchema();
let validateMessage: ValidateFunction | null = null;

/** A JSON-RPC error answer, as the transport gives its own. */
function jsonRpcError(ctx: Context, code: number, message: string): void {
  ctx.status = 400;
  ctx.type = 'application/json';
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id: null };
}

const plain = (description: string): Json => ({ description, content: { 'application/json': { schema: { type: 'object' } } } });

/** POST /platform/mcp. */
export const mcpOperation = defineOperation({
  method: 'post',
  path: MCP_PATH,
  summary: 'Model Context Protocol server of the records API (streamable HTTP, stateless)',
  description:
    "JSON-RPC 2.0 messages of the Model Context Protocol. Tools: list_transactions, get_transaction, list_results, get_result, result_payload (refuses payloads over 256 KB: use jsonPath or keysOnly), list_feed_entries, list_logs, get_trace. Each request counts against the key's 240 a minute; each tool applies the key rules of its endpoint. The client must accept both application/json and text/event-stream (406 otherwise). Over stdio: `npx tdx mcp`.",
  tags: ['mcp'],
  parameters: [],
  requestBody: { required: true, content: { 'application/json': { schema: MESSAGE_SCHEMA } } },
  responses: {
    '200': plain('the JSON-RPC response (a JSON-RPC error for an unknown method or invalid parameters)'),
    '202': { description: 'a notification was accepted' },
    '400': plain('not JSON, or not one JSON-RPC request or notification (a JSON-RPC error names what is wrong)'),
    '401': errorResponse('unauthorized'),
    '406': plain('the client does not accept application/json and text/event-stream'),
    '413': plain('the JSON-RPC message is larger than the transport takes'),
    '415': plain('the body is not sent as application/json'),
    '429': rateLimitedResponse('rate_limited'),
  },
});

export function registerMcpRoute(router: Router, reader: RecordsReader, version: string): void {
  router.post(MCP_PATH, async (ctx) => {
    const { organizationId, kind } = authOf(ctx);
    let parsed: unknown;
    // a body of another type is the transport's to refuse (415)
    if (ctx.is('application/json')) {
      const raw = await readAll(ctx, MAX_MESSAGE_BYTES);
      try {
        parsed = JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        return jsonRpcError(ctx, -32700, 'Parse error: Invalid JSON');
      }
      validateMessage ??= compileSchema(MESSAGE_SCHEMA);
      if (!validateMessage(parsed)) return jsonRpcError(ctx, -32600, `Invalid Request: ${ajvErrorsText(validateMessage.errors)}`);
    }
    const server = createMcpServer(reader, { organizationId, kind }, version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    ctx.respond = false;
    await transport.handleRequest(ctx.req, ctx.res, parsed);
  });
  documentOperation(router, mcpOperation);
}
