/**
 * The SFTP client against the stack's real sshd: every operation in a folder of the test's
 * own, a large file streamed with flat memory, an upload never visible half-written, and each
 * failure class (credentials, unreachable, silent peer, missing directory) with its retry
 * decision and a message naming where it happened.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHash, randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { SftpClient, settledFiles, isTemporaryUploadName, Sha256Tap, sha256Hex, type SftpEndpoint } from '../../../src/adapters/sftp/index.ts';
import { TdxError } from '../../../src/errors.ts';
import { connectSftp, createTestSftpDir, sftpSettings } from '../helpers/index.ts';
import { readableEd25519Key } from '../../support/demo-config.ts';

function endpoint(): SftpEndpoint {
  const s = sftpSettings();
  return {
    host: s.host,
    port: s.port,
    username: s.username,
    ...(s.password !== undefined ? { password: s.password } : {}),
    ...(s.privateKeyPath !== undefined ? { privateKey: readFileSync(s.privateKeyPath, 'utf8') } : {}),
  };
}

const clients: SftpClient[] = [];
function client(options: ConstructorParameters<typeof SftpClient>[0] = {}): SftpClient {
  const c = new SftpClient({ connectTimeoutMs: 10_000, operationTimeoutMs: 20_000, ...options });
  clients.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/**
 * Heap and buffer bytes still reachable: measured after two full collections, the second of
 * which waits for the first's release of buffer memory (done in the background; after one
 * collection the figure still counted up to 60 MiB of freed buffers). The flag is set at run
 * time, so the test needs no --expose-gc; a collection takes a few ms here.
 */
const collect: () => void =
  (globalThis as { gc?: () => void }).gc ??
  (() => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  })();
function live(): number {
  collect();
  collect();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

async function caught(p: Promise<unknown>): Promise<TdxError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TdxError);
    return err as TdxError;
  }
  throw new Error('expected a failure');
}

/**
 * Deterministic pseudo-random bytes, produced chunk by chunk (never held whole in memory): one
 * random block, each chunk of it stamped with its index so no two chunks are equal.
 */
const BLOCK = (() => {
  const out = Buffer.alloc(1024 * 1024);
  let seed = createHash('sha256').update('tdx-sftp-big-file').digest();
  for (let i = 0; i < out.length; i += 32) {
    seed = createHash('sha256').update(seed).digest();
    seed.copy(out, i);
  }
  return out;
})();
function* chunks(total: number, size = 256 * 1024): Generator<Buffer> {
  for (let sent = 0, n = 0; sent < total; sent += size, n++) {
    const len = Math.min(size, total - sent);
    const out = Buffer.from(BLOCK.subarray(sent % BLOCK.length, (sent % BLOCK.length) + len));
    out.writeUInt32BE(n, 0);
    yield out;
  }
}

describe('SftpClient against the stack sshd', () => {
  it('lists, stats, uploads, reads, renames into an archive folder and removes', async () => {
    const dir = await createTestSftpDir();
    const sftp = client();
    const ep = endpoint();
    await sftp.mkdirs(ep, posix.join(dir, 'inbox/archive/2026'));
    await sftp.mkdirs(ep, posix.join(dir, 'inbox/archive')); // existing: fine
    const body = 'ISA*00*          *00*          *ZZ*ACME~';
    const up = await sftp.upload(ep, posix.join(dir, 'inbox'), 'po-1.edi', body);
    expect(up).toEqual({ filename: 'po-1.edi', directory: posix.join(dir, 'inbox'), path: posix.join(dir, 'inbox/po-1.edi'), size: body.length, sha256: sha256Hex(body), alreadyPresent: false });

    const listing = await sftp.list(ep, posix.join(dir, 'inbox'));
    expect(listing.map((e) => [e.name, e.isFile, e.isDirectory])).toEqual([
      ['archive', false, true],
      ['po-1.edi', true, false],
    ]);
    const file = listing.find((e) => e.name === 'po-1.edi')!;
    expect(file.size).toBe(body.length);
    expect(file.path).toBe(posix.join(dir, 'inbox/po-1.edi'));
    expect(Math.abs(file.mtime - Date.now() / 1000)).toBeLessThan(120);
    expect(await sftp.stat(ep, file.path)).toEqual(file);

    expect((await sftp.readFile(ep, file.path)).toString()).toBe(body);
    const small = await caught(sftp.readFile(ep, file.path, { maxBytes: 10 }));
    expect([small.code, small.reason]).toEqual(['sftp_failed', 'too_large']);

    const archived = posix.join(dir, 'inbox/archive/2026/po-1.edi');
    await sftp.rename(ep, file.path, archived);
    expect((await sftp.list(ep, posix.join(dir, 'inbox'))).map((e) => e.name)).toEqual(['archive']);
    expect((await sftp.readFile(ep, archived)).toString()).toBe(body);

    // a rename never replaces a file
    await sftp.upload(ep, posix.join(dir, 'inbox'), 'po-1.edi', 'other');
    const clash = await caught(sftp.rename(ep, posix.join(dir, 'inbox/po-1.edi'), archived));
    expect(clash.code).toBe('sftp_target_exists');
    expect((await sftp.readFile(ep, archived)).toString()).toBe(body);

    await sftp.remove(ep, archived);
    expect(await sftp.list(ep, posix.join(dir, 'inbox/archive/2026'))).toEqual([]);
    const gone = await caught(sftp.stat(ep, archived));
    expect([gone.code, gone.retriable]).toEqual(['sftp_not_found', false]);
    // every call above went through one cached session
    expect(sftp.openSessions).toBe(1);
  });

  it('an upload whose name exists: identical bytes are "already present", other bytes are refused and the file kept', async () => {
    const dir = await createTestSftpDir();
    const sftp = client();
    const ep = endpoint();
    expect((await sftp.upload(ep, dir, 'inv.edi', 'first')).alreadyPresent).toBe(false);
    expect((await sftp.upload(ep, dir, 'inv.edi', 'first')).alreadyPresent).toBe(true);
    // streamed: the hash is known only after the bytes went through
    expect((await sftp.upload(ep, dir, 'inv.edi', Readable.from([Buffer.from('fir'), Buffer.from('st')]))).alreadyPresent).toBe(true);
    for (const other of ['second', 'frist', Readable.from([Buffer.from('other bytes')])]) {
      const e = await caught(sftp.upload(ep, dir, 'inv.edi', other));
      expect([e.code, e.retriable]).toEqual(['sftp_target_exists', false]);
      expect(e.message).toContain(`"${posix.join(dir, 'inv.edi')}"`);
    }
    expect((await sftp.readFile(ep, posix.join(dir, 'inv.edi'))).toString()).toBe('first');
    // no temporary file left behind by any of the refused uploads
    expect((await sftp.list(ep, dir)).map((e) => e.name)).toEqual(['inv.edi']);
  });

  it('a resend replaces the file of that name: posix-rename atomically (the name never missing), remove-then-rename too', async () => {
    const dir = await createTestSftpDir();
    const sftp = client();
    const ep = endpoint();
    const path = posix.join(dir, 'inv.edi');
    await sftp.upload(ep, dir, 'inv.edi', 'first');
    // the same bytes again are written again (a new file), other bytes replace the old ones
    expect((await sftp.upload(ep, dir, 'inv.edi', 'first', { replace: 'auto' })).alreadyPresent).toBe(false);
    await sftp.upload(ep, dir, 'inv.edi', 'second', { replace: 'posix-rename' });
    expect((await sftp.readFile(ep, path)).toString()).toBe('second');
    await sftp.upload(ep, dir, 'inv.edi', 'third', { replace: 'remove-then-rename' });
    expect((await sftp.readFile(ep, path)).toString()).toBe('third');
    // a partner listing the folder while posix-rename replaces the file always finds it
    let missing = 0;
    let looking = true;
    const watcher = (async () => {
      const other = client();
      while (looking) if (!(await other.list(ep, dir)).some((e) => e.name === 'inv.edi')) missing++;
    })();
    for (let i = 0; i < 20; i++) await sftp.upload(ep, dir, 'inv.edi', `version ${i}`, { replace: 'posix-rename' });
    looking = false;
    await watcher;
    expect(missing).toBe(0);
    expect((await sftp.readFile(ep, path)).toString()).toBe('version 19');
    expect((await sftp.list(ep, dir)).map((e) => e.name)).toEqual(['inv.edi']);
  });

  it('streams a 96 MiB file up and down with flat memory', async () => {
    const dir = await createTestSftpDir();
    const sftp = client();
    const ep = endpoint();
    const size = 96 * 1024 * 1024;
    const expected = new Sha256Tap();
    await pipeline(Readable.from(chunks(size)), expected, new Writable({ write: (_c, _e, done) => done() }));
    const want = expected.digest();

    // Live memory (heap and buffers) at a quarter, half, three quarters and the end of each
    // transfer, each taken right after a full collection: what the client holds at that point,
    // not garbage awaiting collection (which made a sampled peak vary from run to run, up to
    // 51 MiB). A client that buffered the file would hold at least the part it had read.
    const base = live();
    const samples: string[] = [];
    let most = 0;
    let measuring = 0;
    const at = (what: string): void => {
      const began = Date.now();
      const held = live() - base;
      measuring += Date.now() - began;
      most = Math.max(most, held);
      samples.push(`${what} ${(held / 2 ** 20).toFixed(1)}`);
    };
    const quarters = (label: string) => {
      let seen = 0;
      let next = 1;
      return (n: number): void => {
        seen += n;
        while (next <= 4 && seen >= (size * next) / 4) at(`${label} ${next++}/4`);
      };
    };
    const sent = quarters('up');
    const up = await sftp.upload(
      ep,
      dir,
      'big.bin',
      Readable.from(
        (function* () {
          for (const c of chunks(size)) {
            yield c;
            sent(c.length);
          }
        })(),
      ),
    );
    expect([up.size, up.sha256]).toEqual([size, want]);
    const handle = await sftp.openRead(ep, posix.join(dir, 'big.bin'));
    expect(handle.size).toBe(size);
    const tap = new Sha256Tap();
    const received = quarters('down');
    await pipeline(
      handle.stream,
      tap,
      new Writable({
        write: (c: Buffer, _e, done) => {
          received(c.length);
          done();
        },
      }),
    );
    expect([tap.bytes, tap.digest()]).toEqual([size, want]);
    console.log(`sftp 96 MiB: live MiB over the base at ${samples.join(', ')} (the collections took ${measuring} ms)`);
    expect(samples).toHaveLength(8);
    // a few MiB of buffers in flight whatever the size (measured: at most 14 MiB); a client
    // holding what it had read would hold 48 MiB at the half and 72 MiB at three quarters
    expect(most).toBeLessThan(32 * 1024 * 1024);
  });

  it('an upload is never visible half-written under its name', async () => {
    const dir = await createTestSftpDir();
    const writer = client();
    const watcher = client();
    const ep = endpoint();
    const size = 6 * 1024 * 1024;
    // a slow producer, so the watcher gets many looks while the bytes travel
    const slow = Readable.from(
      (async function* () {
        for (const c of chunks(size, 128 * 1024)) {
          await new Promise((r) => setTimeout(r, 15));
          yield c;
        }
      })(),
    );
    let done = false;
    const seen: { name: string; size: number }[] = [];
    const watching = (async () => {
      while (!done) for (const e of await watcher.list(ep, dir)) seen.push({ name: e.name, size: e.size });
    })();
    const up = await writer.upload(ep, dir, 'slow.edi', slow);
    done = true;
    await watching;
    for (const e of await watcher.list(ep, dir)) seen.push({ name: e.name, size: e.size });

    expect(up.size).toBe(size);
    const underName = seen.filter((e) => e.name === 'slow.edi');
    expect(underName.length).toBeGreaterThan(0);
    expect(underName.every((e) => e.size === size)).toBe(true);
    // the watcher did look while the bytes were on their way: it saw the temporary file grow
    const temp = seen.filter((e) => isTemporaryUploadName(e.name));
    expect(temp.length).toBeGreaterThan(3);
    expect(temp.some((e) => e.size > 0 && e.size < size)).toBe(true);
    expect((await watcher.list(ep, dir)).map((e) => e.name)).toEqual(['slow.edi']);
  });

  it('tells a file still being written from a settled one over two real listings', async () => {
    const dir = await createTestSftpDir();
    const sftp = client();
    const ep = endpoint();
    await sftp.upload(ep, dir, 'done.edi', 'complete');
    // a partner writing in place, in two steps
    const raw = await connectSftp();
    onTestFinished(() => raw.end());
    const p = posix.join(dir, 'growing.edi');
    const handle = await new Promise<Buffer>((ok, fail) => raw.sftp.open(p, 'w', (e, h) => (e ? fail(e) : ok(h))));
    const write = (text: string, at: number) => new Promise<void>((ok, fail) => raw.sftp.write(handle, Buffer.from(text), 0, text.length, at, (e) => (e ? fail(e) : ok())));
    await write('ISA*00*', 0);
    const first = await sftp.list(ep, dir);
    await write('GS*PO*', 7);
    const second = await sftp.list(ep, dir);
    const look1 = settledFiles(first, second);
    expect(look1.ready.map((e) => e.name)).toEqual(['done.edi']);
    expect(look1.changing.map((e) => e.name)).toEqual(['growing.edi']);
    await new Promise<void>((ok, fail) => raw.sftp.close(handle, (e) => (e ? fail(e) : ok())));
    const third = await sftp.list(ep, dir);
    expect(settledFiles(second, third).ready.map((e) => e.name)).toEqual(['done.edi', 'growing.edi']);
  });

  it('wrong key: an authentication failure, not retried, naming user, host and port', async () => {
    const ep = { ...endpoint(), password: undefined, privateKey: readableEd25519Key() } as SftpEndpoint;
    const e = await caught(client().list(ep, '.'));
    expect([e.code, e.retriable, e.reason]).toEqual(['sftp_auth_failed', false, 'credentials']);
    expect(e.message).toContain(`${ep.username}@${ep.host}:${ep.port}`);
    expect(e.message).toContain('not retried');
    expect(e.message).not.toContain('PRIVATE KEY');
  });

  it('a key that is not a key: an authentication failure that does not quote it', async () => {
    const ep = { ...endpoint(), password: undefined, privateKey: 'not-a-key-SECRETMATERIAL' } as SftpEndpoint;
    const e = await caught(client().list(ep, '.'));
    expect([e.code, e.retriable]).toEqual(['sftp_auth_failed', false]);
    expect(e.message).not.toContain('SECRETMATERIAL');
  });

  it('unreachable port: retryable, naming host and port', async () => {
    const port = await new Promise<number>((ok) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => ok(p));
      });
    });
    const ep = { ...endpoint(), host: '127.0.0.1', port };
    const e = await caught(client().list(ep, 'inbox'));
    expect([e.code, e.retriable, e.reason]).toEqual(['sftp_unreachable', true, 'refused']);
    expect(e.message).toContain(`@127.0.0.1:${port}`);
    expect(e.message).toContain('connection refused');
  });

  it('a peer that accepts and never speaks: a retryable timeout within the connect bound', async () => {
    const sockets: Socket[] = [];
    const server: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    onTestFinished(() => {
      for (const s of sockets) s.destroy();
      server.close();
    });
    const ep = { ...endpoint(), host: '127.0.0.1', port: (server.address() as { port: number }).port };
    const started = Date.now();
    const e = await caught(client({ connectTimeoutMs: 1_500 }).list(ep, '.'));
    expect([e.code, e.retriable]).toEqual(['sftp_unreachable', true]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('missing directory: not retried, the message names the directory', async () => {
    const dir = await createTestSftpDir();
    const sftp = client();
    const ep = endpoint();
    const missing = posix.join(dir, 'no-such-outbox');
    const e = await caught(sftp.list(ep, missing));
    expect([e.code, e.retriable]).toEqual(['sftp_not_found', false]);
    expect(e.message).toContain(`"${missing}"`);
    expect(e.message).toContain('not retried');
    expect(e.details).toMatchObject({ path: missing, operation: 'list', host: ep.host, port: ep.port, username: ep.username });
    const up = await caught(sftp.upload(ep, missing, 'x.edi', 'x'));
    expect([up.code, up.details['path']]).toEqual(['sftp_not_found', missing]);
    // the session survived the failures
    expect(await sftp.list(ep, dir)).toEqual([]);
  });

  it('reuses one session per endpoint, closes idle ones, and opens a new one after close()', async () => {
    const dir = await createTestSftpDir();
    const ep = endpoint();
    const sftp = client({ sessionIdleMs: 300 });
    await Promise.all([sftp.list(ep, dir), sftp.list(ep, dir), sftp.upload(ep, dir, `${randomBytes(3).toString('hex')}.edi`, 'x')]);
    expect(sftp.openSessions).toBe(1);
    await new Promise((r) => setTimeout(r, 800));
    expect(sftp.openSessions).toBe(0);
    await sftp.list(ep, dir);
    expect(sftp.openSessions).toBe(1);
    await sftp.close();
    expect(sftp.openSessions).toBe(0);
    expect((await sftp.list(ep, dir)).length).toBe(1);
  });
});
