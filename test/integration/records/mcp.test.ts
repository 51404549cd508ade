/* eslint-disable @typescript-eslint/no-explicit-any -- tool answers are untyped JSON */
/**
 * The records MCP server, driven by the official SDK's own client: over streamable HTTP at
 * POST /platform/mcp on the api role, and over stdio through `tdx mcp` (which relays to that
 * endpoint). The tools answer what the HTTP API answers for the same key and parameters; key
 * rules and the shared rate limit apply; `result_payload` refuses a payload over 256 KB and
 * points at jsonPath and keysOnly.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultRecord } from '../../../src/domain/records.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { interchange, po850, pollingPartnerDoc, startPipeline, type Pipeline } from '../pipeline/support.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let p: Pipeline;
const T: Record<string, string> = {};
let results: ResultRecord[] = [];

beforeAll(async () => {
  p = await startPipeline(pollingPartnerDoc(), { env: { TDX_FEED_VISIBILITY_LAG_MS: '500', TDX_LOG_VISIBILITY_LAG_MS: '500' }, sharedKeyspace: true });
  const small = await p.submitEdi('globex', interchange({ control: 11, groups: [{ sets: [po850('PO-SMALL')] }] }));
  T['small'] = small.body['traceGuid'] as string;
  // about 1,500 lines of JSON objects: well over 256 KB once translated
  const big = await p.submitEdi('globex', interchange({ control: 12, groups: [{ sets: [po850('PO-BIG', 1500)] }] }));
  T['big'] = big.body['traceGuid'] as string;
  const bad = await p.submitEdi('globex', 'ISA*00*unreadable~');
  T['bad'] = bad.body['traceGuid'] as string;
  await p.settled(T['small'], 1);
  await p.settled(T['big'], 1);
  results = [...(await p.results(T['small'])), ...(await p.results(T['big']))];
  const key = await p.newKey('standard');
  await eventually(async () => {
    const r = await p.api(`/platform/feed_entries?trace=${T['big']}`, { headers: { authorization: `Key ${key}` } });
    const logs = await p.api(`/platform/logs?trace=${T['bad']}`, { headers: { authorization: `Key ${key}` } });
    return (r.body['feedEntries'] as unknown[]).length > 0 && (logs.body['logs'] as unknown[]).length > 0 ? true : undefined;
  }, 60_000, 'the feed and logs');
}, 240_000);

afterAll(async () => p?.stop());

async function httpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'tdx-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/platform/mcp`), { requestInit: { headers: { authorization: `Key ${key}` } } }));
  return client;
}

type ToolAnswer = { isError?: boolean; content: { type: string; text: string }[] };
const call = async (c: Client, name: string, args: Record<string, unknown> = {}): Promise<{ error: boolean; text: string; json: any }> => {
  const r = (await c.callTool({ name, arguments: args })) as ToolAnswer;
  const text = r.content.map((x) => x.text).join('');
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* an error sentence */
  }
  return { error: r.isError === true, text, json };
};

describe('MCP over streamable HTTP', () => {
  it('lists the tools and answers each one as the HTTP API does', async () => {
    const key = await p.newKey('standard');
    const api = async (u: string) => (await p.api(u, { headers: { authorization: `Key ${key}` } })).body;
    const c = await httpClient(key);
    try {
      const tools = (await c.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(['list_transactions', 'get_transaction', 'list_results', 'get_result', 'result_payload', 'list_feed_entries', 'list_logs', 'get_trace']);
      const list = await call(c, 'list_transactions', { partner: 'globex', direction: 'inbound', limit: 10 });
      expect(list.error).toBe(false);
      expect(list.json).toEqual(await api('/platform/edi_transactions?partner=globex&direction=inbound&limit=10'));
      expect(list.json.ediTransactions).toHaveLength(2);
      // the order extension, oldest first
      const oldest = await call(c, 'list_transactions', { partner: 'globex', direction: 'inbound', limit: 10, order: 'asc' });
      expect(oldest.json).toEqual(await api('/platform/edi_transactions?partner=globex&direction=inbound&limit=10&order=asc'));
      const rowIds = (body: any): string[] => (body.ediTransactions as { id: string }[]).map((t) => t.id);
      expect(rowIds(oldest.json)).toEqual(rowIds(list.json).reverse());
      const txId = list.json.ediTransactions[0].id as string;
      expect((await call(c, 'get_transaction', { id: txId })).json).toEqual(await api(`/platform/edi_transactions/${txId}`));
      expect((await call(c, 'list_results', { trace: T['small'], compact: true })).json).toEqual(await api(`/platform/results?trace=${T['small']}&compact=true`));
      const r = results.find((x) => x.traceGuid === T['small'] && x.service === 'feed')!;
      expect((await call(c, 'get_result', { id: r.id })).json).toEqual(await api(`/platform/results/${r.id}`));
      expect((await call(c, 'result_payload', { id: r.id })).json).toEqual(await api(`/platform/results/${r.id}/payload`));
      expect((await call(c, 'list_feed_entries', { partner: 'GLOBEX', limit: 5 })).json).toEqual(await api('/platform/feed_entries?partner=GLOBEX&limit=5'));
      expect((await call(c, 'list_logs', { trace: T['bad'] })).json).toEqual(await api(`/platform/logs?trace=${T['bad']}`));
      expect((await call(c, 'get_trace', { guid: T['small'] })).json).toEqual(await api(`/platform/traces/${T['small']}`));
      // bad parameters and unknown ids answer with the API's codes and messages
      const bad = await call(c, 'list_transactions', { status: 'finished' });
      expect(bad.error).toBe(true);
      expect(bad.text).toMatch(/^invalid_parameter: .*"status"/);
      const missing = await call(c, 'list_logs', {});
      expect(missing.text).toMatch(/^missing_parameter/);
      const absent = await call(c, 'get_result', { id: '01a20aca-0000-8000-8000-000000000000' });
      expect(absent.error).toBe(true);
      expect(absent.text).toMatch(/^not_found/);
    } finally {
      await c.close();
    }
  });

  it('refuses a payload over 256 KB and points at jsonPath and keysOnly, which both work on it', async () => {
    const key = await p.newKey('standard');
    const big = results.find((x) => x.traceGuid === T['big'] && x.service === 'feed')!;
    const whole = await p.api(`/platform/results/${big.id}/payload`, { headers: { authorization: `Key ${key}` } });
    expect(whole.text.length).toBeGreaterThan(256 * 1024);
    const c = await httpClient(key);
    try {
      const refused = await call(c, 'result_payload', { id: big.id });
      expect(refused.error).toBe(true);
      expect(refused.text).toMatch(/256 KB/);
      expect(refused.text).toMatch(/jsonPath/);
      expect(refused.text).toMatch(/keysOnly/);
      const shape = await call(c, 'result_payload', { id: big.id, keysOnly: true });
      expect(shape.error).toBe(false);
      expect(shape.json.contents.keys.detail.keys.baseline_item_data_PO1_loop).toMatchObject({ type: 'array', length: 1500 });
      const line = await call(c, 'result_payload', { id: big.id, jsonPath: 'detail.baseline_item_data_PO1_loop.1499' });
      expect(line.json).toEqual({ format: 'json', contents: (whole.body['contents'] as any).detail.baseline_item_data_PO1_loop[1499], jsonPath: 'detail.baseline_item_data_PO1_loop.1499' });
      const tooMuch = await call(c, 'result_payload', { id: big.id, jsonPath: 'detail' });
      expect(tooMuch.error).toBe(true);
      expect(tooMuch.text).toMatch(/jsonPath/);
    } finally {
      await c.close();
    }
  });

  it('applies the key rules and counts every request against the shared budget', async () => {
    const sandbox = await p.newKey('sandbox');
    const c = await httpClient(sandbox);
    try {
      for (const [tool, args] of [['list_transactions', {}], ['list_feed_entries', {}], ['list_logs', { trace: T['bad'] }], ['get_trace', { guid: T['small'] }]] as const) {
        const r = await call(c, tool, args);
        expect(r.error, tool).toBe(true);
        expect(r.text, tool).toMatch(/^forbidden/);
      }
      const r = results[0]!;
      expect((await call(c, 'get_result', { id: r.id })).text).toMatch(/^not_found/);
      expect((await call(c, 'list_results', {})).json.results).toEqual([]);
    } finally {
      await c.close();
    }
    // The budget is per aligned minute: a run that crossed into the next minute (its count
    // started again) is run once more with a new key; a run within one minute is what is checked.
    for (let attempt = 1; ; attempt++) {
      const key = await p.newKey('read-only');
      const minute = Math.floor(Date.now() / 60_000);
      const ro = await httpClient(key);
      try {
        for (let i = 0; i < 5; i++) expect((await call(ro, 'list_results', { limit: 1 })).error).toBe(false);
      } finally {
        await ro.close();
      }
      const probe = await p.api('/platform/results?limit=1', { headers: { authorization: `Key ${key}` } });
      if (Math.floor(Date.now() / 60_000) !== minute && attempt < 3) continue;
      // initialize, the initialized notification and five tool calls at least, then the probe
      expect(Number(probe.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(240 - 8);
      break;
    }
    const anon = await fetch(`${p.url}/platform/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(anon.status).toBe(401);
  });
});

describe('MCP over stdio (tdx mcp)', () => {
  it('relays to the API with the key from TDX_API_KEY', async () => {
    const key = await p.newKey('standard');
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_OPTIONS') env[k] = v;
    const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(root, 'bin/tdx.mjs'), 'mcp', '--url', p.url], env: { ...env, TDX_API_KEY: key }, cwd: root, stderr: 'pipe' });
    const c = new Client({ name: 'tdx-test-stdio', version: '1.0.0' });
    await c.connect(transport);
    try {
      expect((await c.listTools()).tools).toHaveLength(8);
      const list = await call(c, 'list_transactions', { partner: 'GLOBEX' });
      const direct = (await p.api('/platform/edi_transactions?partner=GLOBEX', { headers: { authorization: `Key ${key}` } })).body;
      expect(list.json).toEqual(direct);
      const shape = await call(c, 'result_payload', { id: results.find((x) => x.traceGuid === T['big'] && x.service === 'feed')!.id, keysOnly: true });
      expect(shape.json.format).toBe('json');
    } finally {
      await c.close();
    }
  });

  it('answers with an error when the key is wrong', async () => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_OPTIONS') env[k] = v;
    const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(root, 'bin/tdx.mjs'), 'mcp', '--url', p.url, '--key', `tdx_${'B'.repeat(43)}`], env, cwd: root, stderr: 'pipe' });
    const c = new Client({ name: 'tdx-test-stdio', version: '1.0.0' });
    await expect(c.connect(transport)).rejects.toThrow(/401|nauthorized/);
    await c.close();
  });
});
