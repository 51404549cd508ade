/**
 * SFTP polling through the whole pipeline, against the stack's real sshd and a real HTTP
 * receiver this test runs: a file dropped into a partner's inbound directory is fetched,
 * delivered by a signed webhook (verified with `standardwebhooks`) and removed, and the 997 is
 * uploaded into the partner's outbound directory; a file still being written waits for the next
 * poll; archiving instead of removing; and unreachable hosts, refused credentials and missing
 * directories each give one error result per poll on a trace of their own, `tdx sftp status`
 * shows them, and polling goes on. Polls run every second here (TDX_SFTP_POLL_UNIT_MS).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusOf } from '../../../src/domain/records.ts';
import type { ConfigDocument, ConnectionDoc, PartnerDoc } from '../../../src/domain/configuration.ts';
import { CassandraSftpPollStore } from '../../../src/adapters/cassandra/sftp-poll-store.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { connectSftp, sftpSettings } from '../helpers/sftp.ts';
import { uniqueId } from '../helpers/env.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { interchange, po850, startPipeline, type Pipeline } from './support.ts';
import { readableEd25519Key } from '../../support/demo-config.ts';

const SECRET = 'whsec_dGR4LXNmdHAtcG9sbGluZy10ZXN0LXNpZ25pbmc=';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const base = uniqueId('poll');
const dir = (partner: string, leaf: string): string => posix.join(base, partner, leaf);

let p: Pipeline;
let rx: Receiver;
let polls: CassandraSftpPollStore;

const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));

async function sftp<T>(fn: (s: Awaited<ReturnType<typeof connectSftp>>['sftp']) => Promise<T>): Promise<T> {
  const session = await connectSftp();
  try {
    return await fn(session.sftp);
  } finally {
    session.end();
  }
}

const list = (d: string): Promise<string[]> => sftp(async (c) => (await call<{ filename: string }[]>((cb) => c.readdir(d, cb))).map((e) => e.filename).sort());

/** Drops a finished file the way partners usually do: written under a hidden name, then renamed. */
async function drop(d: string, name: string, text: string): Promise<void> {
  await sftp(async (c) => {
    await call<void>((cb) => c.writeFile(posix.join(d, `.${name}.part`), text, cb));
    await call<void>((cb) => c.rename(posix.join(d, `.${name}.part`), posix.join(d, name), cb));
  });
}

function connection(name: string, over: Partial<ConnectionDoc> = {}): ConnectionDoc {
  const s = sftpSettings();
  return {
    name,
    kind: 'sftp',
    host: s.host,
    port: s.port,
    username: s.username,
    ...(s.privateKeyPath ? { privateKey: readFileSync(s.privateKeyPath, 'utf8') } : { password: s.password ?? '' }),
    ...over,
  };
}

function partner(key: string, conn: string, over: Partial<PartnerDoc> = {}): PartnerDoc {
  return {
    key,
    name: `${key} Inc`,
    deliveryMethod: 'polling',
    connection: conn,
    frequency: 1,
    // 997s only where the connection has an outbound directory
    generateAcknowledgments: false,
    envelopes: { internal: 'us', external: 'them' },
    transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
    ...over,
  };
}

beforeAll(async () => {
  rx = await startReceiver(SECRET);
  await sftp(async (c) => {
    for (const d of [base, posix.join(base, 'drop'), dir('drop', 'outbox'), dir('drop', 'inbox'), posix.join(base, 'arch'), dir('arch', 'outbox'), posix.join(base, 'bad')]) await call<void>((cb) => c.mkdir(d, cb));
  });
  const wrongKey = readableEd25519Key();
  const doc: ConfigDocument = {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
    ],
    connections: [
      connection('drop-sftp', { inboundDirectory: dir('drop', 'outbox'), outboundDirectory: dir('drop', 'inbox') }),
      connection('arch-sftp', { inboundDirectory: dir('arch', 'outbox'), archiveDirectory: dir('arch', 'archive') }),
      connection('nodir-sftp', { inboundDirectory: dir('bad', 'missing') }),
      connection('refused-sftp', { host: '127.0.0.1', port: 1, inboundDirectory: dir('bad', 'outbox') }),
      { ...connection('badkey-sftp', { inboundDirectory: dir('bad', 'outbox') }), privateKey: wrongKey, password: undefined },
    ],
    webhooks: [{ name: 'erp', kind: 'standard', url: `${rx.url}/edi/inbound`, contentType: 'application/json', signingSecret: SECRET }],
    implementations: [{ name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: [
      partner('DROP', 'drop-sftp', { deliveryMethod: 'webhook', webhooks: { inbound: 'erp' }, generateAcknowledgments: true }),
      partner('ARCH', 'arch-sftp'),
      partner('NODIR', 'nodir-sftp', { frequency: 2 }),
      partner('REFUSED', 'refused-sftp', { frequency: 2 }),
      partner('BADKEY', 'badkey-sftp', { frequency: 2 }),
    ],
  };
  p = await startPipeline(doc, { env: { TDX_SFTP_POLL_TICK_MS: '250', TDX_SFTP_POLL_UNIT_MS: '1000', TDX_SFTP_STABILITY_INTERVAL_MS: '400', TDX_SFTP_CONNECT_TIMEOUT_MS: '5000' }, sharedKeyspace: true });
  polls = new CassandraSftpPollStore(await p.reader.cassandra());
}, 240_000);

afterAll(async () => {
  await p?.stop();
  await rx?.close();
  const rm = async (c: Awaited<ReturnType<typeof connectSftp>>['sftp'], d: string): Promise<void> => {
    const entries = await call<{ filename: string; attrs: { isDirectory(): boolean } }[]>((cb) => c.readdir(d, cb)).catch(() => []);
    for (const e of entries) {
      const full = posix.join(d, e.filename);
      if (e.attrs.isDirectory()) await rm(c, full);
      else await call<void>((cb) => c.unlink(full, cb)).catch(() => undefined);
    }
    await call<void>((cb) => c.rmdir(d, cb)).catch(() => undefined);
  };
  await sftp((c) => rm(c, base)).catch(() => undefined);
});

const connectionId = async (name: string): Promise<string> => {
  const r = await p.api('/platform/connections');
  const list = r.body['connections'] as { id: string; name: string }[];
  return list.find((c) => c.name === name)!.id;
};

describe('SFTP polling', () => {
  it('a dropped file is fetched, delivered by a signed webhook, and gone; the 997 lands in the outbound directory', async () => {
    await drop(dir('drop', 'outbox'), 'PO-7001.edi', interchange({ control: 7001, groups: [{ sets: [po850('PO-7001')] }] }));
    const [delivery] = await rx.waitFor('/edi/inbound', 1, 60_000);
    expect(delivery!.error).toBeUndefined();
    expect(JSON.stringify(delivery!.payload!['document'])).toContain('PO-7001');
    const trace = delivery!.payload!['traceGuid'] as string;
    await eventually(async () => ((await list(dir('drop', 'outbox'))).length === 0 ? true : undefined), 30_000, 'the inbound directory to be empty');
    const txs = await p.settled(trace, 2);
    expect(txs.map((t) => [t.transactionSetIdentifier, statusOf(t)]).sort()).toEqual([
      ['850', 'delivered'],
      ['997', 'delivered'],
    ]);
    const acks = await eventually(async () => {
      const files = await list(dir('drop', 'inbox'));
      return files.length > 0 ? files : undefined;
    }, 30_000, 'the 997 in the outbound directory');
    expect(acks).toEqual([`997_${txs.find((t) => t.transactionSetIdentifier === '997')!.interchangeControlNumber}.edi`]);
    const fetch = (await p.results(trace)).find((r) => r.service === 'sftp_fetch')!;
    expect(fetch.status).toBe('success');
    expect(fetch.detail.sftp).toEqual({ filename: 'PO-7001.edi', path: posix.join(dir('drop', 'outbox'), 'PO-7001.edi'), host: sftpSettings().host, directory: dir('drop', 'outbox'), fetchedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/) });
    const input = fetch.detail.artifacts!.find((a) => a.usage === 'input')!;
    expect(input.filename).toBe('PO-7001.edi');
    const state = await polls.pollState(p.org, await connectionId('drop-sftp'));
    expect(state).toMatchObject({ lastPollOk: true, lastError: null });
    expect(state!.filesFetched).toBe(1);
  });

  it('a file still being written (its size changing between two looks) is left for a later poll, then fetched whole, once', async () => {
    const d = dir('drop', 'outbox');
    const edi = Buffer.from(interchange({ control: 7002, groups: [{ sets: [po850('PO-7002A'), po850('PO-7002B', 3)] }] }));
    const id = await connectionId('drop-sftp');
    const before = (await polls.pollState(p.org, id))!.polls;
    const already = rx.callsTo('/edi/inbound').length;
    const started = Date.now();
    await sftp(async (c) => {
      // a slow writer: a chunk every 150 ms for about 3 s, while polls (every second, two looks
      // 400 ms apart) see the size change
      const handle = await call<Buffer>((cb) => c.open(posix.join(d, 'PO-7002.edi'), 'w', cb));
      const chunk = Math.ceil(edi.length / 20);
      for (let at = 0; at < edi.length; at += chunk) {
        const part = edi.subarray(at, Math.min(edi.length, at + chunk));
        await call<void>((cb) => c.write(handle, part, 0, part.length, at, (err) => cb(err)));
        await new Promise((r) => setTimeout(r, 150));
      }
      await call<void>((cb) => c.close(handle, cb));
    });
    const written = Date.now();
    const polledMeanwhile = (await polls.pollState(p.org, id))!.polls - before;
    expect(polledMeanwhile).toBeGreaterThanOrEqual(2);
    const calls = await rx.waitFor('/edi/inbound', already + 2, 60_000);
    const mine = calls.slice(already);
    // nothing was taken before the writer finished, and both sets came from one fetch of the whole file
    expect(Math.min(...mine.map((c) => c.at))).toBeGreaterThan(written);
    expect(mine.map((c) => c.payload!['traceGuid'])).toEqual([mine[0]!.payload!['traceGuid'], mine[0]!.payload!['traceGuid']]);
    expect(mine.map((c) => JSON.stringify(c.payload!['document']).match(/PO-7002[AB]/)?.[0]).sort()).toEqual(['PO-7002A', 'PO-7002B']);
    await eventually(async () => ((await list(d)).length === 0 ? true : undefined), 30_000, 'the file to be removed');
    await new Promise((r) => setTimeout(r, 2000));
    expect(rx.callsTo('/edi/inbound').length).toBe(already + 2);
    console.log(`slow writer: ${written - started} ms writing, ${polledMeanwhile} polls meanwhile, delivered ${Math.min(...mine.map((c) => c.at)) - written} ms after the last write`);
  });

  it('archives instead of removing when the connection has an archive folder', async () => {
    await drop(dir('arch', 'outbox'), 'PO-7003.edi', interchange({ control: 7003, groups: [{ sets: [po850('PO-7003')] }] }));
    const archived = await eventually(async () => {
      const files = await list(dir('arch', 'archive')).catch(() => []);
      return files.length > 0 ? files : undefined;
    }, 60_000, 'the archived file');
    expect(archived).toEqual(['PO-7003.edi']);
    expect(await list(dir('arch', 'outbox'))).toEqual([]);
    // a second file of the same name is archived beside it, never over it
    await drop(dir('arch', 'outbox'), 'PO-7003.edi', interchange({ control: 7004, groups: [{ sets: [po850('PO-7004')] }] }));
    const both = await eventually(async () => {
      const files = await list(dir('arch', 'archive'));
      return files.length === 2 ? files : undefined;
    }, 60_000, 'two archived files');
    expect(both[0]).toBe('PO-7003.edi');
    expect(both[1]).toMatch(/^PO-7003\.edi\.[0-9a-f-]{36}$/);
  });

  it('a missing directory, a refused connection and refused credentials: one error result per poll on a trace of its own, and polling goes on', async () => {
    const ch = await p.reader.clickhouse();
    const cases = [
      ['nodir-sftp', /SFTP listing of directory "[^"]*bad\/missing" on [^ ]+ failed: no such file or directory/],
      ['refused-sftp', /SFTP connection to [^ ]+@127\.0\.0\.1:1 failed: connection refused/],
      ['badkey-sftp', /SFTP connection to [^ ]+ failed: the server refused the credentials/],
    ] as const;
    for (const [name, pattern] of cases) {
      const id = await connectionId(name);
      const state = await eventually(async () => {
        const s = await polls.pollState(p.org, id);
        return s && s.polls >= 2 ? s : undefined;
      }, 60_000, `two polls of ${name}`);
      expect(state.lastPollOk).toBe(false);
      expect(state.lastError).toMatch(pattern);
      expect(state.lastError).not.toContain('PRIVATE KEY');
      const errors = await eventually(async () => {
        const rs = await ch.client.query({
          query: `SELECT trace_guid, error_message, node_name FROM ${ch.database}.results FINAL WHERE org_id = {org:String} AND service = 'sftp_fetch' AND status = 'error' AND partner_key = {key:String}`,
          query_params: { org: p.org, key: state.partnerKey },
          format: 'JSONEachRow',
        });
        const rows = await rs.json<{ trace_guid: string; error_message: string; node_name: string }>();
        return rows.length >= 2 ? rows : undefined;
      }, 30_000, `error results of ${name}`);
      // one per poll, each on a trace of its own
      expect(new Set(errors.map((e) => e.trace_guid)).size).toBe(errors.length);
      for (const e of errors) {
        expect(e.error_message).toMatch(pattern);
        expect(e.node_name).toBe('Fetch from SFTP');
      }
      const logs = await ch.client.query({ query: `SELECT level, message FROM ${ch.database}.logs WHERE org_id = {org:String} AND trace_guid = {t:String}`, query_params: { org: p.org, t: errors[0]!.trace_guid }, format: 'JSONEachRow' });
      expect((await logs.json<{ level: string; message: string }>()).filter((l) => l.level === 'error')).toEqual([expect.objectContaining({ message: errors[0]!.error_message })]);
    }
  }, 150_000);

  it('tdx sftp status shows the last poll, files fetched and the last error of each connection', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...p.iso.env };
    delete env['NODE_OPTIONS'];
    const run = (args: string[]): Promise<{ code: number | null; out: string }> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, ['bin/tdx.mjs', 'sftp', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('exit', (code) => resolve({ code, out }));
      });
    const text = await run(['status', '--org', p.org]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/DROP \/ drop-sftp .* every 1 min/);
    expect(text.out).toMatch(/NODIR \/ nodir-sftp[\s\S]*?last poll .*FAILED[\s\S]*?last error .*no such file or directory/);
    const json = await run(['status', '--org', p.org, '--json']);
    const rows = JSON.parse(json.out) as { connectionName: string; filesFetched: number; lastPollOk: boolean; lastError: string | null; polls: number }[];
    expect(rows.map((r) => r.connectionName).sort()).toEqual(['arch-sftp', 'badkey-sftp', 'drop-sftp', 'nodir-sftp', 'refused-sftp']);
    expect(rows.find((r) => r.connectionName === 'drop-sftp')).toMatchObject({ filesFetched: 2, lastPollOk: true, lastError: null });
    expect(rows.find((r) => r.connectionName === 'refused-sftp')!.lastError).toMatch(/connection refused/);
  }, 60_000);
});
