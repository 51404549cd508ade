/**
 * `POST /platform/mcp`: the MCP server over streamable HTTP (stateless, JSON responses). It sits
 * under /platform, so the request was authenticated and counted against the key's budget before
 * it gets here; every key kind may connect, and each tool applies the key rules of the
 * endpoint it stands for. GET and DELETE (server-sent streams and sessions) answer 405: a
 * stateless server keeps no session to stream from or end.
 */
import type Router from '@koa/router';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { authOf } from '../middleware/state.ts';
import * as z from 'zod/v4';
import { JSONRPCNotificationSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { defineOperation, type Json } from '../platform/operation.ts';
import { documentOperation, errorResponse, rateLimitedResponse } from '../platform/openapi.ts';
import type { RecordsReader } from '../platform/records.ts';
import { MCP_PATH, createMcpServer } from './server.ts';

/**
 * The request body: one JSON-RPC request or notification, as the SDK's own message schemas
 * (zod) define them, so the document states what the transport validates.
 */
function messageSchema(): Json {
  const { $schema: _draft, ...schema } = z.toJSONSchema(z.union([JSONRPCRequestSchema, JSONRPCNotificationSchema]), { target: 'draft-2020-12' }) as Json;
  return schema;
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
  requestBody: { required: true, content: { 'application/json': { schema: messageSchema() } } },
  responses: {
    '200': plain('the JSON-RPC response (a JSON-RPC error for an unknown method or invalid parameters)'),
    '202': { description: 'a notification was accepted' },
    '400': plain('not a JSON-RPC message'),
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
    const server = createMcpServer(reader, { organizationId, kind }, version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    ctx.respond = false;
    await transport.handleRequest(ctx.req, ctx.res);
  });
  documentOperation(mcpOperation);
}
