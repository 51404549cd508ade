/**
 * The Model Context Protocol server of the records API (official SDK, low-level `Server` with
 * JSON Schema tool inputs). Its tools call the same RecordsReader methods as the HTTP routes,
 * with the caller's key, so they check the same parameters and apply the same key rules and
 * organization scope; over HTTP every MCP request also counts against the key's shared rate
 * limit (the endpoint sits under /platform).
 *
 * Tools: list_transactions, get_transaction, list_results, get_result, result_payload,
 * list_feed_entries, list_logs, get_trace. `result_payload` refuses a payload over 256 KB
 * (contract Limits) and says to narrow it with `jsonPath` or ask for its shape with `keysOnly`.
 *
 * Served at `POST /platform/mcp` (streamable HTTP, stateless: each request stands alone, so
 * any API replica answers it) and over stdio by `npx tdx mcp`, which relays to that endpoint.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isTdxError } from '../../errors.ts';
import type { Caller, Query, RecordsReader } from '../platform/records.ts';

/** Path of the MCP endpoint on the API. */
export const MCP_PATH = '/platform/mcp';

/** Largest payload `result_payload` returns (contract Limits: "refuses over 256 KB"). */
export const MCP_PAYLOAD_LIMIT_BYTES = 256 * 1024;

type Schema = Record<string, unknown>;
const s = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const LIMIT: Schema = { type: 'integer', minimum: 1, maximum: 100, description: 'page size, default 50' };
const CURSOR = s('nextCursor of the previous page, unchanged, with the same filters');
const ID = (what: string): Schema => s(`${what} id`);

interface Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Schema & { type: 'object' };
  run(reader: RecordsReader, caller: Caller, args: Query): Promise<unknown>;
}

const obj = (properties: Record<string, Schema>, required: string[] = []): Schema & { type: 'object' } => ({ type: 'object', properties, required, additionalProperties: false });

const id = (args: Query, name: string): string => (typeof args[name] === 'string' ? args[name] : '');
const without = (args: Query, ...names: string[]): Query => Object.fromEntries(Object.entries(args).filter(([k]) => !names.includes(k)));

/** The tools, in the order they are listed. */
export const TOOLS: readonly Tool[] = [
  {
    name: 'list_transactions',
    description: 'EDI transactions of the organization, newest first (oldest first with order=asc), with the filters of GET /platform/edi_transactions. Returns {ediTransactions, pagination}; pass pagination.nextCursor as cursor for the next page.',
    inputSchema: obj({
      direction: s('inbound or outbound', { enum: ['inbound', 'outbound'] }),
      incoming: { type: 'boolean', description: 'true = inbound' },
      transaction_set_identifier: s('set code, such as 850'),
      partner: s('partner key, any case'),
      reference: s('case-sensitive prefix of the business reference (PO number, invoice number...)'),
      trace: s('trace GUID'),
      status: s('processing, error or delivered', { enum: ['processing', 'error', 'delivered'] }),
      warnings: { type: 'boolean', description: 'true: at least one warning; false: none' },
      ack_status: s('997 state', { enum: ['unacknowledged', 'acknowledged', 'accepted', 'rejected'] }),
      since: s('createdAt at or after, ISO 8601'),
      until: s('createdAt before, ISO 8601'),
      limit: LIMIT,
      cursor: CURSOR,
      compact: { type: 'boolean', description: 'true: twelve fields per row' },
      order: s('desc (newest first, the default) or asc (oldest first; an extension beyond the contract); a cursor pages on only in its own order', { enum: ['desc', 'asc'] }),
    }),
    run: (r, c, a) => r.listTransactions(c, a),
  },
  {
    name: 'get_transaction',
    description: 'One EDI transaction with its warnings, artifacts by role (input, output, errored, acknowledged) and results oldest first.',
    inputSchema: obj({ id: ID('transaction') }, ['id']),
    run: (r, c, a) => r.transaction(c, id(a, 'id')),
  },
  {
    name: 'list_results',
    description: 'Node step results, newest first. A status filter examines at most 500 rows per page: a page may hold few rows while hasMore is true; page on with nextCursor.',
    inputSchema: obj({
      trace: s('trace GUID'),
      node: s('node name (any case) or node id'),
      status: s('success or error', { enum: ['success', 'error'] }),
      limit: LIMIT,
      cursor: CURSOR,
      compact: { type: 'boolean', description: 'true: compact rows, errorMessage cut to 200 characters' },
    }),
    run: (r, c, a) => r.listResults(c, a),
  },
  {
    name: 'get_result',
    description: 'One result with its full detail (errorMessage, errors, warnings, x12 identifiers, artifact pointers...).',
    inputSchema: obj({ id: ID('result') }, ['id']),
    run: (r, c, a) => r.result(c, id(a, 'id')),
  },
  {
    name: 'result_payload',
    description:
      'The payload of a result: {format: json|edi|error, contents}. Payloads over 256 KB are refused: ask for a part with jsonPath (dot-separated keys, numeric segments index arrays, such as "detail.baseline_item_data_PO1_loop.0") or for the shape with keysOnly=true (keys, value types, array lengths, four levels deep).',
    inputSchema: obj({ id: ID('result'), jsonPath: s('dot-separated path into contents'), keysOnly: { type: 'boolean', description: 'true: the shape of contents instead of its values' } }, ['id']),
    run: async (r: RecordsReader, c: Caller, a: Query): Promise<unknown> => {
      const answer = await r.payload(c, id(a, 'id'), without(a, 'id'), MCP_PAYLOAD_LIMIT_BYTES);
      if (answer.kind === 'value') return answer.body;
      const parts: Buffer[] = [];
      for await (const chunk of answer.chunks) parts.push(chunk);
      const text = Buffer.concat(parts).toString('utf8');
      return { format: answer.format, contents: answer.format === 'json' ? (JSON.parse(text) as unknown) : text };
    },
  },
  {
    name: 'list_feed_entries',
    description: 'The feed, oldest first: every delivered document and error, each with its result embedded. nextCursor is a high-water mark: keep it and poll with it.',
    inputSchema: obj({
      partner: s('partner key, any case'),
      direction: s('inbound or outbound', { enum: ['inbound', 'outbound'] }),
      status: s('success or error', { enum: ['success', 'error'] }),
      trace: s('trace GUID: every entry of that document, its 997 included'),
      since: s('entries created at or after, ISO 8601'),
      limit: LIMIT,
      cursor: CURSOR,
    }),
    run: (r, c, a) => r.feed(c, a),
  },
  {
    name: 'list_logs',
    description: 'The log entries of one trace, oldest first (entries younger than 5 seconds are withheld).',
    inputSchema: obj(
      { trace: s('trace GUID'), level: s('info, warn or error (exactly that level)', { enum: ['info', 'warn', 'error'] }), since: s('ISO 8601'), limit: LIMIT, cursor: CURSOR },
      ['trace'],
    ),
    run: (r, c, a) => r.logs(c, a),
  },
  {
    name: 'get_trace',
    description: 'A whole processing run: flow, transactions, compact results, and every artifact once with the node that produced it.',
    inputSchema: obj({ guid: s('trace GUID') }, ['guid']),
    run: (r, c, a) => r.trace(c, id(a, 'guid')),
  },
];

/** Tool arguments as query parameters (the HTTP API's vocabulary checks then apply as they are). */
export function queryOf(args: Record<string, unknown> | undefined): Query {
  const out: Query = {};
  for (const [k, v] of Object.entries(args ?? {})) {
    if (v === undefined || v === null) continue;
    out[k] = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
  }
  return out;
}

const text = (t: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

/** An MCP server for one caller (a request over HTTP, or the key of a stdio session). */
export function createMcpServer(reader: RecordsReader, caller: Caller, version: string): Server {
  const server = new Server({ name: 'tdx-records', version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) return text(`Unknown tool "${request.params.name}". Tools: ${TOOLS.map((t) => t.name).join(', ')}.`, true);
    try {
      const body = await tool.run(reader, caller, queryOf(request.params.arguments));
      return text(JSON.stringify(body));
    } catch (err) {
      // the API's error codes, with messages written for the caller; anything else stays inside
      if (isTdxError(err) && err.expose) return text(`${err.code}: ${err.message}`, true);
      throw err;
    }
  });
  return server;
}
