/**
 * AS2 interoperability with an implementation nobody here wrote: pyas2lib (PyPI), run as a
 * separate Python HTTP peer (scripts/as2-peer/peer.py in the environment setup.sh creates).
 *
 * - pyas2lib sends to our receive entry point (served here over HTTP) and verifies our MDNs;
 * - we send to a pyas2lib peer and verify its MDNs;
 * - tampered content, wrong certificates and an unknown AS2-To get the right negative MDN.
 *
 * Skipped, with a message, only when PyPI cannot be reached to build the peer's environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import {
  InMemoryReceivedMessages,
  isMdnRequest,
  postAsyncMdn,
  receiveAs2Message,
  receiveAsyncMdn,
  sendAs2Message,
  type As2Accepted,
  type As2ConnectionMaterial,
  type As2ReceiveOutcome,
  type As2SendOutcome,
  type PendingMdn,
} from '../../../src/adapters/as2/index.ts';
import { as2SettingsOf } from '../../../src/domain/as2-settings.ts';
import type { As2Doc } from '../../../src/domain/configuration.ts';
import { credentials, keyPair } from '../../support/as2-keys.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const PEER = join(ROOT, 'scripts/as2-peer/peer.py');

// the peer's environment: cached by setup.sh, so this takes well under a second after the first run
const setup = spawnSync('bash', [join(ROOT, 'scripts/as2-peer/setup.sh')], { encoding: 'utf8', timeout: 600_000 });
const python = setup.status === 0 ? setup.stdout.trim().split('\n').pop()! : null;
if (setup.status === 3) {
  process.stderr.write('AS2 interoperability tests skipped: PyPI cannot be reached, so the pyas2lib peer cannot be installed (scripts/as2-peer/setup.sh exit 3)\n');
} else if (setup.status !== 0) {
  throw new Error(`scripts/as2-peer/setup.sh failed (exit ${setup.status}):\n${setup.stderr}`);
}

// AS2 identifiers with a space: both sides must quote them in headers (RFC 4130 §6.2)
const US = 'TDX AS2';
const PEER_ID = 'PYAS2 PEER';
const ours = keyPair('ours');
const partner = keyPair('partner');
const stranger = keyPair('stranger');
const dir = mkdtempSync(join(tmpdir(), 'tdx-as2-interop-'));
const path = (name: string): string => join(dir, name);
for (const [name, k] of Object.entries({ ours, partner, stranger })) {
  writeFileSync(path(`${name}.key.pem`), k.privateKeyPem);
  writeFileSync(path(`${name}.cert.pem`), k.certificatePem);
}
const X12 = Buffer.from(
  'ISA*00*          *00*          *ZZ*PYAS2PEER      *ZZ*TDXAS2         *261124*1200*U*00401*000000101*0*P*>~\r\n' +
    'GS*PO*PYAS2PEER*TDXAS2*20261124*1200*101*X*004010~\r\nST*850*0001~\r\nBEG*00*SA*PO-4711**20261124~\r\nSE*3*0001~\r\nGE*1*101~\r\nIEA*1*000000101~\r\n',
);
writeFileSync(path('po.edi'), X12);
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

// --- our side: the receive entry point and the async MDN endpoint over HTTP ------------------
const strict = as2SettingsOf({ localId: US, partnerId: PEER_ID, url: 'http://127.0.0.1:9/' }, { status: 'ready', reason: null });
const relaxed = as2SettingsOf({ localId: US, partnerId: PEER_ID, url: 'http://127.0.0.1:9/', requireSignature: false, requireEncryption: false }, { status: 'ready', reason: null });
const connections: Record<string, As2ConnectionMaterial> = {
  'c-strict': { connectionId: 'c-strict', settings: strict, credentials: credentials(ours, partner) },
  'c-relaxed': { connectionId: 'c-relaxed', settings: relaxed, credentials: credentials(ours, partner) },
};
const lookup = (id: string): Promise<As2ConnectionMaterial | null> => Promise.resolve(connections[id] ?? null);
const received = new InMemoryReceivedMessages();
const outcomes: As2ReceiveOutcome[] = [];
const pending = new Map<string, PendingMdn>();
const asyncReceipts: Awaited<ReturnType<typeof receiveAsyncMdn>>[] = [];
let server: Server;
let base = '';

function serve(): Promise<void> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method ?? 'GET', headers: req.headers, body: Buffer.concat(chunks) };
      const id = decodeURIComponent((req.url ?? '').replace(/^\/as2\//, ''));
      const work = async (): Promise<void> => {
        if (id === 'mdn' || isMdnRequest(request)) {
          const o = await receiveAsyncMdn(request, { get: (m) => Promise.resolve(pending.get(m) ?? null) }, lookup);
          asyncReceipts.push(o);
          res.writeHead(o.reply.status, o.reply.headers);
          res.end(o.reply.body);
          return;
        }
        const out = await receiveAs2Message(id, request, lookup, received);
        outcomes.push(out);
        // what the pipeline does: store the payload, remember the id, then answer
        if (out.ok && !out.duplicate) received.remember(id, out.messageId);
        res.writeHead(out.reply.status, out.reply.headers);
        res.end(out.reply.body);
        if (out.asyncMdn) await postAsyncMdn(out.asyncMdn, 10_000);
      };
      work().catch((err: unknown) => {
        res.writeHead(500);
        res.end(String(err));
      });
    });
  });
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () => {
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`;
      r();
    }),
  );
}

// --- the pyas2lib peer ----------------------------------------------------------------------

interface PeerSendResult {
  messageId: string;
  mic: string | null;
  httpStatus: number;
  mdnStatus: string | null;
  mdnDetail: string | null;
  mdnSigned?: boolean;
  mdnOriginalMessageId?: string;
}

/** pyas2lib sends po.edi to one of our connections; returns what it concluded from our MDN. */
function peerSends(connection: string, ...options: string[]): Promise<PeerSendResult> {
  const args = [PEER, 'send', '--url', `${base}/${connection}`, '--file', path('po.edi'), '--as2-from', PEER_ID, '--as2-to', US, '--key', path('partner.key.pem'), '--cert', path('partner.cert.pem'), '--partner-cert', path('ours.cert.pem'), '--wait', '20'];
  // later options override (argparse keeps the last value)
  return new Promise((res, rej) => {
    const p = spawn(python!, [...args, ...options], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    p.on('close', (code) => {
      if (code !== 0) return rej(new Error(`peer.py send exited ${code}: ${err}${out}`));
      res(JSON.parse(out) as PeerSendResult);
    });
  });
}

interface PeerEvent {
  event: string;
  messageId?: string;
  status?: string;
  detail?: string | null;
  mic?: string | null;
  digestAlg?: string | null;
  signed?: boolean;
  encrypted?: boolean;
  compressed?: boolean;
  payloadSha256?: string;
  httpStatus?: number;
  originalMessageId?: string;
}

/** A pyas2lib receiver ("PYAS2 PEER") answering MDNs. */
class PeerServer {
  readonly events: PeerEvent[] = [];
  url = '';
  private proc: ChildProcess | null = null;
  async start(partnerCert: string): Promise<void> {
    const p = spawn(python!, [PEER, 'serve', '--as2-id', PEER_ID, '--key', path('partner.key.pem'), '--cert', path('partner.cert.pem'), '--partner-id', US, '--partner-cert', partnerCert], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.proc = p;
    const lines = createInterface({ input: p.stdout });
    await new Promise<void>((res, rej) => {
      p.on('exit', (code) => rej(new Error(`peer.py serve exited ${code}`)));
      lines.on('line', (l) => {
        const o = JSON.parse(l) as PeerEvent & { listening?: string };
        if (o.listening) {
          this.url = `${o.listening}as2`;
          res();
        } else this.events.push(o);
      });
    });
  }
  stop(): void {
    this.proc?.kill();
  }
  eventFor(messageId: string, kind = 'received'): PeerEvent | undefined {
    return this.events.find((e) => e.event === kind && (e.messageId === messageId || e.originalMessageId === messageId));
  }
}

const peer = new PeerServer();
const peerWithWrongCert = new PeerServer();

/** We send po.edi to a pyas2lib peer with these options. */
function weSend(to: PeerServer, doc: Partial<As2Doc>, over: { partnerCert?: string } = {}): Promise<As2SendOutcome> {
  const settings = as2SettingsOf({ localId: US, partnerId: PEER_ID, url: to.url, ...doc }, { status: 'ready', reason: null });
  return sendAs2Message({ payload: X12, filename: 'po.edi', connectionId: 'c-strict', settings, credentials: { ...credentials(ours, partner), ...(over.partnerCert ? { partnerCertificatePem: over.partnerCert } : {}) } });
}

const lastOutcome = (): As2ReceiveOutcome => outcomes[outcomes.length - 1]!;

describe.skipIf(python === null)('AS2 with pyas2lib', () => {
  beforeAll(async () => {
    await serve();
    await peer.start(path('ours.cert.pem'));
    await peerWithWrongCert.start(path('stranger.cert.pem'));
  });
  afterAll(async () => {
    peer.stop();
    peerWithWrongCert.stop();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  describe('pyas2lib sends, we receive and answer', () => {
    const cases: [string, string, string[], { signed: string | null; encrypted: string | null; compressed: boolean; mdn: 'sync' | 'async'; mdnSigned: boolean }][] = [
      ['signed (SHA-256)', 'c-relaxed', ['--sign', 'sha256', '--mdn-sign', 'sha256'], { signed: 'sha256', encrypted: null, compressed: false, mdn: 'sync', mdnSigned: true }],
      ['encrypted (AES-128), unsigned MDN', 'c-relaxed', ['--encrypt', 'aes_128_cbc'], { signed: null, encrypted: 'aes128-cbc', compressed: false, mdn: 'sync', mdnSigned: false }],
      ['signed and encrypted (SHA-256, AES-256)', 'c-strict', ['--sign', 'sha256', '--encrypt', 'aes_256_cbc', '--mdn-sign', 'sha256'], { signed: 'sha256', encrypted: 'aes256-cbc', compressed: false, mdn: 'sync', mdnSigned: true }],
      ['signed, encrypted, compressed (SHA-1, 3DES)', 'c-strict', ['--sign', 'sha1', '--encrypt', 'tripledes_192_cbc', '--compress', '--mdn-sign', 'sha1'], { signed: 'sha1', encrypted: '3des-cbc', compressed: true, mdn: 'sync', mdnSigned: true }],
      ['signed and encrypted (SHA-512, AES-192), RSA-OAEP key transport', 'c-strict', ['--sign', 'sha512', '--encrypt', 'aes_192_cbc', '--key-enc', 'rsaes_oaep', '--mdn-sign', 'sha512'], { signed: 'sha512', encrypted: 'aes192-cbc', compressed: false, mdn: 'sync', mdnSigned: true }],
      ['signed and encrypted (SHA-384, AES-256), async signed MDN', 'c-strict', ['--sign', 'sha384', '--encrypt', 'aes_256_cbc', '--mdn', 'async', '--mdn-sign', 'sha384'], { signed: 'sha384', encrypted: 'aes256-cbc', compressed: false, mdn: 'async', mdnSigned: true }],
      ['compressed and signed, async unsigned MDN', 'c-relaxed', ['--sign', 'sha256', '--compress', '--mdn', 'async'], { signed: 'sha256', encrypted: null, compressed: true, mdn: 'async', mdnSigned: false }],
    ];
    it.each(cases)('%s: pyas2lib accepts our MDN and its MIC; the payload arrives intact', async (_name, connection, options, want) => {
      const r = await peerSends(connection, ...options);
      expect(r.httpStatus).toBe(200);
      // pyas2lib reports "processed/warning" when the MIC differs and an error for a bad signature
      expect([r.mdnStatus, r.mdnDetail]).toEqual(['processed', null]);
      expect(r.mdnSigned).toBe(want.mdnSigned);
      expect(r.mdnOriginalMessageId).toBe(r.messageId);
      const out = lastOutcome();
      expect(out.ok).toBe(true);
      const a = out as As2Accepted;
      expect(a.payload.equals(X12)).toBe(true);
      expect(a.messageId).toBe(r.messageId);
      expect(a.detail).toMatchObject({ as2From: PEER_ID, as2To: US, signed: want.signed, encrypted: want.encrypted, compressed: want.compressed, mdnMode: want.mdn, duplicate: false });
      // pyas2lib computes a MIC only for signed messages; it is the one we returned
      if (want.signed) expect(a.mic.value).toBe(r.mic);
    });

    it('a message id received twice is acknowledged again and not taken in twice', async () => {
      const first = await peerSends('c-strict', '--sign', 'sha256', '--encrypt', 'aes_256_cbc', '--mdn-sign', 'sha256', '--message-id', 'dup-1');
      const firstOutcome = lastOutcome() as As2Accepted;
      const again = await peerSends('c-strict', '--sign', 'sha256', '--encrypt', 'aes_256_cbc', '--mdn-sign', 'sha256', '--message-id', 'dup-1');
      const againOutcome = lastOutcome() as As2Accepted;
      expect(again.messageId).toBe(first.messageId);
      expect([first.mdnStatus, again.mdnStatus]).toEqual(['processed', 'processed']);
      expect([firstOutcome.duplicate, againOutcome.duplicate]).toEqual([false, true]);
    });

    const negative: [string, string, string, string[]][] = [
      ['a tampered message', 'integrity-check-failed', 'c-relaxed', ['--sign', 'sha256', '--mdn-sign', 'sha256', '--tamper']],
      ['a signature by a certificate we do not hold', 'authentication-failed', 'c-strict', ['--sign', 'sha256', '--encrypt', 'aes_256_cbc', '--mdn-sign', 'sha256', '--key', path('stranger.key.pem'), '--cert', path('stranger.cert.pem')]],
      ['encryption to a certificate that is not ours', 'decryption-failed', 'c-strict', ['--sign', 'sha256', '--encrypt', 'aes_256_cbc', '--mdn-sign', 'sha256', '--encrypt-cert', path('stranger.cert.pem')]],
      ['an unknown AS2-To', 'unknown-trading-partner', 'c-strict', ['--sign', 'sha256', '--encrypt', 'aes_256_cbc', '--mdn-sign', 'sha256', '--as2-to', 'NOT US']],
      ['an unsigned message where a signature is required', 'insufficient-message-security', 'c-strict', ['--encrypt', 'aes_256_cbc', '--mdn-sign', 'sha256']],
    ];
    it.each(negative)('%s gets a signed negative MDN (%s) that pyas2lib reads', async (_name, modifier, connection, options) => {
      const r = await peerSends(connection, ...options);
      expect(r.httpStatus).toBe(200);
      expect(r.mdnStatus).toBe('processed/error');
      expect(r.mdnDetail).toBe(modifier);
      expect(r.mdnSigned).toBe(true);
      expect(lastOutcome()).toMatchObject({ ok: false, modifier, messageId: r.messageId });
    });
  });

  describe('we send, pyas2lib receives and answers', () => {
    const cases: [string, Partial<As2Doc>, { digest: string | null; compressed: boolean }][] = [
      ['signed and encrypted (SHA-256, AES-256), signed MDN', { signing: 'sha256', encryption: 'aes256-cbc' }, { digest: 'sha256', compressed: false }],
      ['signed, encrypted, compressed (SHA-1, 3DES), signed MDN', { signing: 'sha1', encryption: '3des-cbc', compression: true }, { digest: 'sha1', compressed: true }],
      ['signed and encrypted (SHA-512, AES-128), unsigned MDN', { signing: 'sha512', encryption: 'aes128-cbc', mdn: { signed: false } }, { digest: 'sha512', compressed: false }],
      ['encrypted only (AES-192)', { signing: 'none', encryption: 'aes192-cbc' }, { digest: null, compressed: false }],
    ];
    it.each(cases)('%s: we verify its MDN and MIC; pyas2lib got the payload intact', async (_name, doc, want) => {
      const out = await weSend(peer, doc);
      expect(out.error).toBeNull();
      expect(out.mdnStatus).toBe('processed');
      expect(out.httpStatus).toBe(200);
      const e = peer.eventFor(out.messageId)!;
      expect(e).toMatchObject({ status: 'processed', signed: want.digest !== null, encrypted: true, compressed: want.compressed, payloadSha256: sha256(X12), mdnMode: 'SYNC' } as Partial<PeerEvent>);
      if (want.digest) {
        expect(e.digestAlg).toBe(want.digest);
        expect(e.mic).toBe(out.mic?.value);
        expect(out.detail.micMatched).toBe(true);
      } else {
        // an unsigned message: pyas2lib returns no MIC
        expect(out.detail.returnedMic).toBeNull();
      }
      expect(out.mdn?.signed).toBe(doc.mdn?.signed ?? true);
    });

    it('an asynchronous signed MDN is posted back and verified against what we sent', async () => {
      const out = await weSend(peer, { mdn: { mode: 'async', asyncUrl: `${base}/mdn` } });
      expect(out.mdnStatus).toBe('pending-async');
      pending.set(out.messageId, out.pending!);
      await expect.poll(() => asyncReceipts.find((r) => r.ok && r.messageId === out.messageId), { timeout: 15_000 }).toBeTruthy();
      const receipt = asyncReceipts.find((r) => r.ok && r.messageId === out.messageId)!;
      expect(receipt).toMatchObject({ ok: true, connectionId: 'c-strict', mdnStatus: 'processed', late: false });
      expect(receipt.ok && receipt.verdict).toMatchObject({ signed: true, micMatched: true });
      expect(peer.eventFor(out.messageId)).toMatchObject({ status: 'processed', mdnMode: 'ASYNC' });
    });

    it('a peer holding a wrong certificate for us answers authentication-failed, and we record the failure', async () => {
      const out = await weSend(peerWithWrongCert, {});
      expect(out).toMatchObject({ mdnStatus: 'failed', retryable: false, httpStatus: 200 });
      expect(out.mdn?.modifier).toBe('authentication-failed');
      expect(out.error).toContain('authentication-failed');
      expect(peerWithWrongCert.eventFor(out.messageId)).toMatchObject({ status: 'processed/Error' });
    });

    it('an AS2-To the peer does not know is answered unknown-trading-partner', async () => {
      const out = await weSend(peer, { partnerId: 'NOBODY' });
      expect(out.mdnStatus).toBe('failed');
      expect(out.mdn?.modifier).toBe('unknown-trading-partner');
    });

    it('an MDN whose signature does not verify (we hold a wrong certificate for the peer) is a failed delivery', async () => {
      const out = await weSend(peer, { encryption: 'none' }, { partnerCert: stranger.certificatePem });
      expect(out.mdnStatus).toBe('failed');
      expect(out.error).toMatch(/MDN signature is not valid/);
    });
  });
});
