/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
/**
 * Cross-organization probing on the real stack: two organizations with something of every kind
 * (test/integration/records/populated.ts), and over every id-taking path of the API (records,
 * replays, partners and partner submissions, every configuration resource and its sub-paths)
 * organization A's standard key asks for organization B's ids, for malformed ids, and for ids
 * of other resource kinds (its own and B's). Each answers 404 `not_found`, and on one path every
 * such answer has the same body once the id is taken out (same code, reason, keys and message
 * text) and the same headers: nothing tells an id of another organization from one that never
 * existed.
 *
 * Then every response body and header this test received (the probes, and full reads of both
 * organizations' records and configuration with their own keys) is searched for every stored
 * secret: SFTP passwords, private keys (and each line of their base64), passphrases, sandbox
 * tokens, webhook signing secrets, and every API key of both organizations (and its SHA-256):
 * none appears.
 *
 * The test service runs with TDX_RATE_LIMIT_PER_MINUTE and TDX_REPLAY_RATE_LIMIT_PER_MINUTE
 * raised: one key makes several hundred probes, and a 429 would answer before the id is looked
 * at (the limits have their own tests in records-api.test.ts).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline, type Pipeline, type Tenant } from '../pipeline/support.ts';
import { from, interchange, partsWithSftpInput, po850, sftpFolder } from './fixture.ts';
import { newSecrets, populate, populatedDoc, webhookSink, type Populated, type Secrets } from './populated.ts';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: [string, string][];
  readonly text: string;
}

let p: Pipeline;
let b: Tenant;
let A: Populated;
let B: Populated;
let secretsA: Secrets;
let secretsB: Secrets;
let sink: Awaited<ReturnType<typeof webhookSink>>;
const folders: Awaited<ReturnType<typeof sftpFolder>>[] = [];
const seen: Seen[] = [];

async function call(key: string, method: string, path: string, body?: { type: string; data: string }, extra: Record<string, string> = {}): Promise<Seen & { json: any }> {
  const res = await fetch(`${p.url}${path}`, {
    method,
    headers: { authorization: `Key ${key}`, ...(body ? { 'content-type': body.type } : {}), ...extra },
    ...(body ? { body: body.data } : {}),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  const s: Seen = { method, path, status: res.status, headers: [...res.headers.entries()], text };
  seen.push(s);
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { ...s, json };
}

/** Ids of every kind an organization holds, by kind. */
function idsOf(d: Populated): Record<string, string[]> {
  return {
    transaction: d.transactions.map((t) => t.id),
    result: d.results.map((r) => r.id),
    artifact: d.artifactIds,
    trace: d.traces,
    ...d.config,
  };
}

/** Every id-taking path of the API: the kind of id it takes, how to call it. */
interface IdPath {
  readonly template: string;
  readonly method: 'GET' | 'POST';
  readonly kind: string;
  readonly path: (id: string) => string;
  readonly body?: { type: string; data: string };
}

const EDI = interchange({ sender: from('GLOBEX'), control: 900, groups: [{ sets: [po850('PO-PROBE')] }] });
const ID_PATHS: IdPath[] = [
  { template: '/platform/edi_transactions/{id}', method: 'GET', kind: 'transaction', path: (id) => `/platform/edi_transactions/${id}` },
  { template: '/platform/edi_transactions/{id}/resend', method: 'POST', kind: 'transaction', path: (id) => `/platform/edi_transactions/${id}/resend` },
  { template: '/platform/edi_transactions/{id}/redeliver', method: 'POST', kind: 'transaction', path: (id) => `/platform/edi_transactions/${id}/redeliver` },
  { template: '/platform/results/{id}', method: 'GET', kind: 'result', path: (id) => `/platform/results/${id}` },
  { template: '/platform/results/{id}/payload', method: 'GET', kind: 'result', path: (id) => `/platform/results/${id}/payload` },
  { template: '/platform/artifacts/{id}', method: 'GET', kind: 'artifact', path: (id) => `/platform/artifacts/${id}` },
  { template: '/platform/traces/{guid}', method: 'GET', kind: 'trace', path: (id) => `/platform/traces/${id}` },
  { template: '/platform/partners/{key}', method: 'GET', kind: 'partner', path: (id) => `/platform/partners/${id}` },
  { template: '/platform/partners/{key}/edi', method: 'POST', kind: 'partner', path: (id) => `/platform/partners/${id}/edi`, body: { type: 'application/edi-x12', data: EDI } },
  {
    template: '/platform/partners/{key}/documents',
    method: 'POST',
    kind: 'partner',
    path: (id) => `/platform/partners/${id}/documents`,
    body: { type: 'application/json', data: JSON.stringify({ transactionSetIdentifier: '850', document: { orderNumber: 'PO-PROBE' } }) },
  },
  { template: '/platform/connections/{id}', method: 'GET', kind: 'connection', path: (id) => `/platform/connections/${id}` },
  { template: '/platform/envelopes/{id}', method: 'GET', kind: 'envelope', path: (id) => `/platform/envelopes/${id}` },
  { template: '/platform/webhooks/{id}', method: 'GET', kind: 'webhook', path: (id) => `/platform/webhooks/${id}` },
  { template: '/platform/flows/{id}', method: 'GET', kind: 'flow', path: (id) => `/platform/flows/${id}` },
  { template: '/platform/mappings/{id}', method: 'GET', kind: 'mapping', path: (id) => `/platform/mappings/${id}` },
  { template: '/platform/mappings/{id}/versions', method: 'GET', kind: 'mapping', path: (id) => `/platform/mappings/${id}/versions` },
  { template: '/platform/mappings/{id}/versions/{number}', method: 'GET', kind: 'mapping', path: (id) => `/platform/mappings/${id}/versions/1` },
  { template: '/platform/implementations/{id}', method: 'GET', kind: 'implementation', path: (id) => `/platform/implementations/${id}` },
  { template: '/platform/implementations/{id}/schema', method: 'GET', kind: 'implementation', path: (id) => `/platform/implementations/${id}/schema` },
  { template: '/platform/implementations/{id}/guide', method: 'GET', kind: 'implementation', path: (id) => `/platform/implementations/${id}/guide` },
  { template: '/platform/implementations/{id}/export', method: 'GET', kind: 'implementation', path: (id) => `/platform/implementations/${id}/export` },
  { template: '/platform/sources/{id}', method: 'GET', kind: 'source', path: (id) => `/platform/sources/${id}` },
  // an extension (docs/api.md): a recovery run's progress; the fixture starts none, so every probe is another kind's id or malformed
  { template: '/platform/recoveries/{id}', method: 'GET', kind: 'recovery', path: (id) => `/platform/recoveries/${id}` },
];

/** Ids no organization has, as sent in the path (percent-encoded where a raw character would not survive). */
const MALFORMED = [
  'not-an-id',
  '0',
  '-1',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-7fff-bfff-ffffffffffff',
  'x'.repeat(300),
  encodeURIComponent("'; DROP TABLE transactions; --"),
  encodeURIComponent('{"$ne": null}'),
  encodeURIComponent('é中\u{1F600}'),
  '%20',
  '%00',
  '%2F',
  '%E0%A4%A',
  '%',
  '%%30',
  encodeURIComponent('../../etc/passwd'),
  'null',
  'undefined',
];

const decoded = (sent: string): string => {
  try {
    return decodeURIComponent(sent);
  } catch {
    return sent;
  }
};

/** A 404 body with the id taken out of it: what must be equal across the probes of one path. */
function shape(r: { json: any; text: string }, sent: string): unknown {
  const e = r.json?.error;
  if (!e || typeof e !== 'object') return { notJson: r.text };
  // every message quotes the id it was given
  let message = String(e.message);
  for (const form of [decoded(sent), sent]) message = message.split(`"${form}"`).join('"<id>"');
  return { keys: Object.keys(e).sort(), code: e.code, reason: e.reason, message };
}

/** Response headers that may differ between two answers (per request or per count). */
const VARYING = new Set(['date', 'x-request-id', 'content-length', 'x-ratelimit-remaining', 'connection', 'keep-alive']);
const headerShape = (s: Seen): string[] =>
  s.headers
    .filter(([k]) => !VARYING.has(k))
    .map(([k, v]) => `${k}: ${v}`)
    .sort();

beforeAll(async () => {
  folders.push(await sftpFolder(), await sftpFolder());
  sink = await webhookSink();
  secretsA = newSecrets(folders[0]!.privateKey);
  secretsB = newSecrets(folders[1]!.privateKey);
  p = await startPipeline(populatedDoc(folders[0]!, sink.url, secretsA), {
    parts: partsWithSftpInput,
    env: { TDX_RATE_LIMIT_PER_MINUTE: '100000', TDX_REPLAY_RATE_LIMIT_PER_MINUTE: '100000' },
    sharedKeyspace: true,
  });
  await p.apply(populatedDoc(folders[0]!, sink.url, secretsA, 'second version'));
  b = await p.tenant('Probing organization B', populatedDoc(folders[1]!, sink.url, secretsB, 'first version', 'INITECH'));
  [A, B] = await Promise.all([populate(p, p.org, p, 100), populate(p, b.org, b, 500)]);
}, 300_000);

afterAll(async () => {
  await p?.stop();
  await sink?.close();
  for (const f of folders) await f.remove().catch(() => undefined);
});

describe('cross-organization probing', () => {
  it('the fixture holds ids of every kind in both organizations, and each reads 200 with its own key', async () => {
    for (const [who, d, key] of [
      ['A', A, p.keys.standard],
      ['B', B, b.keys.standard],
    ] as const) {
      const ids = idsOf(d);
      for (const kind of ['transaction', 'result', 'artifact', 'trace', 'connection', 'envelope', 'webhook', 'flow', 'mapping', 'implementation', 'source']) {
        expect(ids[kind]?.length ?? 0, `${who} ${kind}`).toBeGreaterThan(0);
      }
      expect(d.partnerKeys.sort(), who).toEqual(who === 'A' ? ['ACME', 'GLOBEX', 'HOOLI'] : ['ACME', 'GLOBEX', 'HOOLI', 'INITECH']);
      // every GET id path answers the owner (payloads: the results that kept one)
      for (const ip of ID_PATHS.filter((x) => x.method === 'GET')) {
        const own = ip.kind === 'partner' ? d.partnerKeys : (ids[ip.kind] ?? []);
        const answers = await Promise.all(own.map((id) => call(key, 'GET', ip.path(id))));
        const ok = answers.filter((r) => r.status === 200).length;
        if (ip.template.endsWith('/payload')) expect(ok, `${who} ${ip.template}`).toBeGreaterThan(0);
        else expect(answers.map((r) => r.status), `${who} ${ip.template}`).toEqual(own.map(() => 200));
      }
    }
  });

  it('probes every id-taking path the served OpenAPI document names', async () => {
    const doc = (await call(p.keys.standard, 'GET', '/platform/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => (path.includes('{') ? Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`) : []));
    const probed = ID_PATHS.map((x) => `${x.method} ${x.template}`);
    expect(probed.sort()).toEqual(documented.sort());
  });

  for (const ip of ID_PATHS) {
    it(`${ip.method} ${ip.template}: another organization's id, a malformed id, an id of another kind: 404 with one body`, async () => {
      const key = p.keys.standard;
      const mine = idsOf(A);
      const theirs = idsOf(B);
      const probes: { why: string; sent: string }[] = [];
      const sample = (xs: readonly string[] | undefined, n = 3): string[] => (xs ?? []).slice(0, n);
      if (ip.kind === 'partner') {
        // B's partners share A's keys (GLOBEX...) but for INITECH, which only B has
        for (const k of B.partnerKeys.filter((x) => !A.partnerKeys.includes(x))) probes.push({ why: "B's partner", sent: k });
        probes.push({ why: "B's partner, other case", sent: 'initech' });
      } else {
        for (const id of sample(theirs[ip.kind], 5)) probes.push({ why: `B's ${ip.kind}`, sent: id });
      }
      for (const [kind, ids] of Object.entries(mine)) if (kind !== ip.kind) for (const id of sample(ids, 1)) probes.push({ why: `A's ${kind}`, sent: id });
      for (const [kind, ids] of Object.entries(theirs)) if (kind !== ip.kind) for (const id of sample(ids, 1)) probes.push({ why: `B's ${kind}`, sent: id });
      for (const m of MALFORMED) probes.push({ why: 'malformed', sent: m });
      // an own id changed in one character: well formed, absent
      const own = ip.kind === 'partner' ? [] : sample(mine[ip.kind], 1);
      for (const id of own) probes.push({ why: 'altered', sent: `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}` });

      const shapes = new Map<string, string[]>();
      const headers = new Map<string, string[]>();
      for (const probe of probes) {
        const r = await call(key, ip.method, ip.path(probe.sent), ip.body);
        const label = `${probe.why} ${probe.sent.slice(0, 60)}`;
        expect(r.status, `${label}: ${r.text.slice(0, 300)}`).toBe(404);
        expect(r.json?.error?.code, label).toBe('not_found');
        // resend and redeliver name the resource as the transaction detail does
        if (ip.kind === 'transaction') expect(r.json?.error?.reason, label).toBe('transaction');
        const s = JSON.stringify(shape(r, probe.sent));
        shapes.set(s, [...(shapes.get(s) ?? []), label]);
        const h = JSON.stringify(headerShape(r));
        headers.set(h, [...(headers.get(h) ?? []), label]);
      }
      expect([...shapes.entries()].map(([s, who]) => `${s} <- ${who.slice(0, 3).join(' | ')}`), 'one body shape').toHaveLength(1);
      expect([...headers.entries()].map(([h, who]) => `${h} <- ${who.slice(0, 3).join(' | ')}`), 'one header set').toHaveLength(1);
    });
  }

  it('GET /platform/mappings/{id}/versions/{number}: a version number that does not exist or is malformed: 404 with one body', async () => {
    const mapping = A.config['mapping']![0]!;
    const shapes = new Set<string>();
    for (const n of ['999', '0', '-1', 'abc', '1.0', '1e0', '9999999999', '%20', '%']) {
      const r = await call(p.keys.standard, 'GET', `/platform/mappings/${mapping}/versions/${n}`);
      expect(r.status, `${n}: ${r.text}`).toBe(404);
      expect(r.json?.error?.reason, n).toBe('mapping_version');
      shapes.add(JSON.stringify(shape(r, n)));
    }
    expect([...shapes]).toHaveLength(1);
  });

  it('MCP tools that take an id (get_transaction, get_result, result_payload, get_trace): the same probes answer a not_found tool error with one text', async () => {
    const tools = [
      ['get_transaction', 'id', 'transaction'],
      ['get_result', 'id', 'result'],
      ['result_payload', 'id', 'result'],
      ['get_trace', 'guid', 'trace'],
    ] as const;
    let n = 0;
    const mcp = async (name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> => {
      const r = await call(
        p.keys.standard,
        'POST',
        '/platform/mcp',
        {
          type: 'application/json',
          data: JSON.stringify({ jsonrpc: '2.0', id: ++n, method: 'tools/call', params: { name, arguments: args } }),
        },
        { accept: 'application/json, text/event-stream' },
      );
      expect(r.status, r.text).toBe(200);
      const result = r.json?.result as { isError?: boolean; content: { text: string }[] } | undefined;
      expect(result, r.text).toBeDefined();
      return { isError: result!.isError === true, text: result!.content.map((c) => c.text).join('') };
    };
    const own = idsOf(A);
    expect((await mcp('get_transaction', { id: own['transaction']![0]! })).isError).toBe(false);
    for (const [tool, arg, kind] of tools) {
      const probes = [...(idsOf(B)[kind] ?? []).slice(0, 3), ...Object.entries(own).flatMap(([k, ids]) => (k === kind ? [] : ids.slice(0, 1))), ...MALFORMED.map(decoded)];
      const texts = new Set<string>();
      for (const id of probes) {
        const r = await mcp(tool, { [arg]: id });
        expect(r.isError, `${tool} ${id.slice(0, 60)}: ${r.text}`).toBe(true);
        expect(r.text, `${tool} ${id.slice(0, 60)}`).toMatch(/^not_found: /);
        texts.add(r.text.split(`"${id}"`).join('"<id>"'));
      }
      expect([...texts], tool).toHaveLength(1);
    }
  });

  it("B's own key still reads what A's probes were refused (the ids were real)", async () => {
    const r = await call(b.keys.standard, 'GET', `/platform/edi_transactions/${B.transactions[0]!.id}`);
    expect(r.status).toBe(200);
    const c = await call(b.keys.standard, 'GET', `/platform/connections/${B.config['connection']![0]!}`);
    expect(c.status).toBe(200);
  });
});

describe('hostile query values', () => {
  it('answers time bounds before 1900 or after 2254, and trace GUIDs dated anywhere, with 200 (they were a 500)', async () => {
    const key = p.keys.standard;
    const trace = A.traces[0]!;
    const all = await call(key, 'GET', '/platform/edi_transactions?limit=100');
    for (const [path, rows] of [
      ['/platform/edi_transactions?until=0594-04-27T07%3A52%3A58.4Z', 'none'],
      ['/platform/edi_transactions?since=0001-01-01T00%3A00%3A00Z&limit=100', 'all'],
      ['/platform/edi_transactions?until=9999-12-31T23%3A59%3A59Z&limit=100', 'all'],
      ['/platform/feed_entries?since=1010-07-25T09%3A42%3A03.0Z', 'some'],
      ['/platform/feed_entries?since=9999-12-31T23%3A59%3A59Z', 'none'],
      [`/platform/logs?trace=${trace}&since=2977-08-14T16%3A06%3A21.8-08%3A00`, 'none'],
      [`/platform/logs?trace=${trace}&since=1000-01-01T00%3A00%3A00Z`, 'some'],
      ['/platform/results?trace=ffffffff-ffff-7fff-bfff-ffffffffffff', 'none'],
      ['/platform/feed_entries?trace=ffffffff-ffff-7fff-bfff-ffffffffffff', 'none'],
      ['/platform/edi_transactions?trace=00000000-0000-7000-8000-000000000000', 'none'],
    ] as const) {
      const r = await call(key, 'GET', path);
      expect(r.status, `${path}: ${r.text.slice(0, 300)}`).toBe(200);
      const list = (Object.values(r.json as Record<string, unknown>).find(Array.isArray) ?? []) as { id: string }[];
      if (rows === 'none') expect(list, path).toEqual([]);
      if (rows === 'some') expect(list.length, path).toBeGreaterThan(0);
      if (rows === 'all') expect(list.map((x) => x.id), path).toEqual((all.json.ediTransactions as { id: string }[]).map((x) => x.id));
    }
  });
});

describe('no stored secret in any response', () => {
  it('reads every list of both organizations with their own keys (configuration shows included above)', async () => {
    const lists = ['edi_transactions', 'results', 'feed_entries', 'connections', 'envelopes', 'webhooks', 'flows', 'mappings', 'implementations', 'sources', 'partners'];
    for (const key of [p.keys.standard, p.keys.readOnly, b.keys.standard]) {
      for (const l of lists) expect((await call(key, 'GET', `/platform/${l}?limit=100`)).status, l).toBe(200);
    }
    for (const [key, d] of [
      [p.keys.standard, A],
      [b.keys.standard, B],
    ] as const) {
      for (const t of d.traces) {
        await call(key, 'GET', `/platform/logs?trace=${t}`);
        await call(key, 'GET', `/platform/traces/${t}`);
      }
      for (const id of Object.keys(d.mappingVersions)) for (const v of d.mappingVersions[id]!) expect((await call(key, 'GET', `/platform/mappings/${id}/versions/${v}`)).status).toBe(200);
      for (const id of d.config['implementation'] ?? []) expect((await call(key, 'GET', `/platform/implementations/${id}/guide?variant=markdown`)).status).toBe(200);
    }
    expect((await call(p.keys.standard, 'GET', '/platform/openapi.json')).status).toBe(200);
  });

  it('finds no password, private key, passphrase, token, signing secret or API key in any body or header', () => {
    const needles = new Map<string, string>();
    for (const [org, s] of [
      ['A', secretsA],
      ['B', secretsB],
    ] as const) {
      needles.set(s.sftpPassword, `${org} SFTP password`);
      needles.set(s.passphrase, `${org} key passphrase`);
      needles.set(s.sandboxToken, `${org} sandbox token`);
      needles.set(s.signingSecret, `${org} signing secret`);
      needles.set(s.signingSecret.slice('whsec_'.length), `${org} signing secret (base64)`);
      if (s.privateKey) {
        needles.set(s.privateKey.trim(), `${org} private key`);
        for (const line of s.privateKey.split(/\r?\n/)) if (line.length >= 40 && !line.startsWith('-----')) needles.set(line, `${org} private key line`);
      }
    }
    for (const [org, keys] of [
      ['A', p.keys],
      ['B', b.keys],
    ] as const) {
      for (const [kind, k] of Object.entries(keys)) {
        needles.set(k, `${org} ${kind} API key`);
        needles.set(createHash('sha256').update(k).digest('hex'), `${org} ${kind} API key hash`);
        needles.set(k.slice(-24), `${org} ${kind} API key tail`);
      }
    }
    const found: string[] = [];
    const haystacks = [
      ...seen.map((s) => ({ where: `${s.method} ${s.path.slice(0, 80)} ${s.status}`, text: `${s.headers.map(([k, v]) => `${k}: ${v}`).join('\n')}\n${s.text}` })),
      ...p.responses.map((s) => ({ where: `${s.method} ${s.path.slice(0, 80)} ${s.status}`, text: JSON.stringify(s.body) })),
    ];
    const search = (needle: string): string[] => haystacks.filter((h) => h.text.includes(needle) || h.text.includes(JSON.stringify(needle).slice(1, -1))).map((h) => h.where);
    for (const [needle, what] of needles) for (const where of search(needle)) found.push(`${what} in ${where}`);
    expect(found).toEqual([]);
    // the search does find what the shows do return: the non-secret fields beside the secrets
    for (const [org, folder] of [
      ['A', folders[0]!],
      ['B', folders[1]!],
    ] as const) {
      expect(search(`${folder.dir}/in`).length, `${org} connection directory`).toBeGreaterThan(0);
      expect(search(`${sink.url}/in`).length, `${org} webhook url`).toBeGreaterThan(0);
    }
    expect(seen.length).toBeGreaterThan(500);
  });
});
