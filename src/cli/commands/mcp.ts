/**
 * `tdx mcp [--url URL] [--key KEY]`: the records API's MCP server over stdio, for MCP clients
 * that start a local command. It relays each JSON-RPC message between stdio and the API's MCP
 * endpoint (`POST /platform/mcp`, streamable HTTP), so the tools, key rules and rate limit are
 * those of the API itself and no store is opened here. The key comes from `--key` or
 * `TDX_API_KEY`; the API from `--url` or `TDX_PUBLIC_URL`. Nothing but MCP messages is written
 * to stdout.
 */
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { CliCommand } from '../tdx.ts';
import { loadConfig } from '../../config.ts';
import { TdxError } from '../../errors.ts';

/** The API's MCP endpoint (src/http/mcp/server.ts serves it; the command line never imports the HTTP layer). */
const MCP_PATH = '/platform/mcp';

export const mcpCommand: CliCommand = async (args, io) => {
  const { values } = parseArgs({ args, options: { url: { type: 'string' }, key: { type: 'string' } }, strict: true });
  const config = loadConfig();
  const key = values.key ?? config.mcp.apiKey;
  if (!key) throw new TdxError('invalid_parameter', 'An API key is required: pass --key KEY or set TDX_API_KEY.', { details: { parameter: 'key' } });
  const url = new URL(MCP_PATH, values.url ?? config.api.publicUrl);
  const upstream = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Key ${key}` } } });
  const local = new StdioServerTransport(process.stdin, io.stdout as unknown as Writable);

  local.onmessage = (message: JSONRPCMessage) => {
    upstream.send(message).catch((err: unknown) => {
      // a request the API did not answer gets a JSON-RPC error, so the client is not left waiting
      if ('id' in message && 'method' in message) {
        void local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `The API at ${url.origin} did not answer: ${err instanceof Error ? err.message : String(err)}` } });
      }
    });
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    // the version the API agreed on is sent with every later request (streamable HTTP)
    if ('result' in message && message.result && typeof message.result['protocolVersion'] === 'string') upstream.setProtocolVersion(message.result['protocolVersion']);
    void local.send(message);
  };
  upstream.onerror = (err: Error) => io.stderr.write(`tdx mcp: ${err.message}\n`);
  await upstream.start();
  return new Promise<number>((resolve) => {
    local.onclose = () => {
      void upstream.close().finally(() => resolve(0));
    };
    process.stdin.once('end', () => void local.close());
    void local.start();
  });
};
