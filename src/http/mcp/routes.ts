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
import { documentPath } from '../platform/openapi.ts';
import type { RecordsReader } from '../platform/records.ts';
import { MCP_PATH, createMcpServer } from './server.ts';

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
  documentPath(MCP_PATH, {
    post: {
      summary: 'Model Context Protocol server of the records API (streamable HTTP, stateless)',
      description:
        'JSON-RPC 2.0 messages of the Model Context Protocol. Tools: list_transactions, get_transaction, list_results, get_result, result_payload (refuses payloads over 256 KB: use jsonPath or keysOnly), list_feed_entries, list_logs, get_trace. Each request counts against the key\'s 240 a minute; each tool applies the key rules of its endpoint. Over stdio: `npx tdx mcp`.',
      tags: ['mcp'],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '200': { description: 'the JSON-RPC response', content: { 'application/json': { schema: { type: 'object' } } } },
        '202': { description: 'a notification or response was accepted' },
        '400': { description: 'not a JSON-RPC message', content: { 'application/json': { schema: { type: 'object' } } } },
        '401': { description: 'unauthorized', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        '406': { description: 'the client does not accept application/json and text/event-stream', content: { 'application/json': { schema: { type: 'object' } } } },
        '413': { description: 'the JSON-RPC message is larger than the transport takes', content: { 'application/json': { schema: { type: 'object' } } } },
        '415': { description: 'the body is not sent as application/json', content: { 'application/json': { schema: { type: 'object' } } } },
        '429': { description: 'rate_limited', headers: { 'Retry-After': { schema: { type: 'integer' } } }, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
  });
}
