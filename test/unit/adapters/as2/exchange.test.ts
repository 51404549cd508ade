/**
 * Our send side against our receive side over loopback HTTP, then the receive side's answers to
 * messages that must be refused, and the send side's classification of transport failures.
 * (Interoperability with an independent implementation: test/integration/as2.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InMemoryReceivedMessages,
  isMdnRequest,
  mimeHeadersOf,
  payloadSha256,
  postAsyncMdn,
  receiveAs2Message,
  receiveAsyncMdn,
  sendAs2Message,
  type As2Accepted,
  type As2ConnectionMaterial,
  type As2ReceiveOutcome,
  type PendingMdn,
} from '../../../../src/adapters/as2/index.ts';
import { loadCredentials } from '../../../../src/adapters/as2/keys.ts';
import { buildMessage } from '../../../../src/adapters/as2/message.ts';
import { evaluateMdn, parseMdn } from '../../../../src/adapters/as2/mdn.ts';
import { as2MessageId } from '../../../../src/domain/as2-delivery.ts';
import { as2SettingsOf } from '../../../../src/domain/as2-settings.ts';
import type { As2Doc, As2Settings } from '../../../../src/domain/configuration.ts';
import { credentials, keyPair } from '../../../support/as2-keys.ts';

const ours = keyPair('ours');
const partner = keyPair('partner');
const stranger = keyPair('stranger');
const X12 = Buffer.from('ISA*00*          *00*          *ZZ*PARTNER        *ZZ*OURS           *261124*1200*U*00401*000000001*0*P*>~\r\nIEA*0*000000001~\r\n');

const ready = { status: 'ready', reason: null } as const;
const settings = (doc: Partial<As2Doc>, url = 'http://127.0.0.1:9/'): As2Settings => as2SettingsOf({ localId: 'OURS', partnerId: 'PARTNER', url, ...doc }, ready);

// --- the receiving side: "OURS" on connection c-ours ---------------------------------------
let receiverSettings: As2Settings = settings({});
const received = new InMemoryReceivedMessages();
const outcomes: As2ReceiveOutcome[] = [];
const lookup = (id: string): Promise<As2ConnectionMaterial | null> =>
  Promise.resolve(id === 'c-ours' ? { connectionId: id, settings: receiverSettings, credentials: credentials(ours, partner) } : null);
const asyncPosts: { url: string; status: number | null }[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const connectionId = (req.url ?? '').split('/').pop() ?? '';
      void receiveAs2Message(connectionId, { method: req.method ?? 'GET', headers: req.headers, body: Buffer.concat(chunks) }, lookup, received).then(async (out) => {
        outcomes.push(out);
        if (out.ok && !out.duplicate) received.remember(connectionId, out.messageId, payloadSha256(out.payload));
        res.writeHead(out.reply.status, out.reply.headers);
        res.end(out.reply.body);
        if (out.asyncMdn) {
          const r = await postAsyncMdn(out.asyncMdn, 5000);
          asyncPosts.push({ url: out.asyncMdn.url, status: r.httpStatus });
        }
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/as2`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** The partner sends to us. */
async function partnerSends(doc: Partial<As2Doc>, extra: { messageId?: string; connection?: string; creds?: ReturnType<typeof credentials> } = {}) {
  const before = outcomes.length;
  const out = await sendAs2Message({
    payload: X12,
    filename: 'po-1.edi',
    connectionId: 'c-partner',
    settings: as2SettingsOf({ localId: 'PARTNER', partnerId: 'OURS', url: `${base}/${extra.connection ?? 'c-ours'}`, ...doc }, ready),
    credentials: extra.creds ?? credentials(partner, ours),
    ...(extra.messageId ? { messageId: extra.messageId } : {}),
  });
  return { send: out, receive: outcomes[before]! };
}

describe('send → receive over HTTP', () => {
  const matrix: Partial<As2Doc>[] = [
    { signing: 'sha256', encryption: 'aes256-cbc' },
    { signing: 'sha1', encryption: '3des-cbc', compression: true },
    { signing: 'sha384', encryption: 'aes192-cbc', mdn: { signed: false } },
    { signing: 'sha512', encryption: 'aes128-cbc', compression: true },
  ];
  it.each(matrix)('%j: the payload arrives intact and both sides agree on the MIC', async (doc) => {
    receiverSettings = settings({});
    const { send, receive } = await partnerSends(doc);
    expect(send.error).toBeNull();
    expect(send.mdnStatus).toBe('processed');
    expect(receive.ok).toBe(true);
    const r = receive as As2Accepted;
    expect(r.payload.equals(X12)).toBe(true);
    expect(r.filename).toBe('po-1.edi');
    expect(r.contentType).toBe('application/edi-x12');
    expect(r.mic).toEqual(send.mic);
    expect(send.detail.micMatched).toBe(true);
    expect(r.detail).toMatchObject({ as2MessageId: send.messageId, as2From: 'PARTNER', as2To: 'OURS', signed: doc.signing, encrypted: doc.encryption, compressed: doc.compression ?? false, mdnMode: 'sync', mdnSigned: doc.mdn?.signed ?? true, duplicate: false });
  });

  it('acknowledges a repeated message id again without taking it in twice', async () => {
    receiverSettings = settings({});
    const first = await partnerSends({}, { messageId: '<repeat-1@partner>' });
    const again = await partnerSends({}, { messageId: '<repeat-1@partner>' });
    expect([first.send.mdnStatus, again.send.mdnStatus]).toEqual(['processed', 'processed']);
    expect([(first.receive as As2Accepted).duplicate, (again.receive as As2Accepted).duplicate]).toEqual([false, true]);
    expect(again.send.detail.micMatched).toBe(true);
  });

  it('a repeated message id with other content is refused with an error disposition, never a plain processed', async () => {
    receiverSettings = settings({ requireEncryption: false });
    const creds = loadCredentials(credentials(partner, ours));
    const build = (payload: Buffer) => buildMessage({ payload, filename: 'x.edi', contentType: 'application/edi-x12', from: 'PARTNER', to: 'OURS', messageId: '<same-id-other-content@partner>', signing: 'sha256', encryption: null, compression: false, receipt: { signed: true, asyncUrl: null }, credentials: creds });
    const first = await build(X12);
    const taken = await receiveAs2Message('c-ours', { method: 'POST', headers: first.headers, body: first.body }, lookup, received);
    expect(taken.ok).toBe(true);
    received.remember('c-ours', 'same-id-other-content@partner', payloadSha256((taken as As2Accepted).payload));
    const same = await build(X12);
    const repeat = await receiveAs2Message('c-ours', { method: 'POST', headers: same.headers, body: same.body }, lookup, received);
    expect(repeat).toMatchObject({ ok: true, duplicate: true });
    const other = await build(Buffer.from(X12.toString('latin1').replace('000000001', '000000002'), 'latin1'));
    const refused = await receiveAs2Message('c-ours', { method: 'POST', headers: other.headers, body: other.body }, lookup, received);
    expect(refused).toMatchObject({ ok: false, modifier: 'unexpected-processing-error' });
    const mdn = parseMdn(mimeHeadersOf(refused.reply.headers), refused.reply.body);
    expect(mdn.disposition).toMatchObject({ type: 'processed', modifierKind: 'error' });
    expect(refused.reply.body.toString('latin1')).toContain('received before with other content');
  });

  it('a required MIC algorithm this side cannot use is answered failed, not replaced by another', async () => {
    receiverSettings = settings({ requireEncryption: false });
    const msg = await buildMessage({ payload: X12, filename: 'x.edi', contentType: 'application/edi-x12', from: 'PARTNER', to: 'OURS', messageId: '<md5-required@partner>', signing: 'sha256', encryption: null, compression: false, receipt: { signed: true, asyncUrl: null }, credentials: loadCredentials(credentials(partner, ours)) });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(msg.headers)) if (k.toLowerCase() !== 'disposition-notification-options') headers[k] = v;
    headers['Disposition-Notification-Options'] = 'signed-receipt-protocol=required, pkcs7-signature; signed-receipt-micalg=required, md5';
    const out = await receiveAs2Message('c-ours', { method: 'POST', headers, body: msg.body }, lookup, received);
    expect(out.ok).toBe(false);
    expect(out.detail.disposition).toBe('failed/Failure: unsupported MIC-algorithms');
    const mdn = parseMdn(mimeHeadersOf(out.reply.headers), out.reply.body);
    expect(mdn.disposition).toMatchObject({ type: 'failed', modifierKind: 'failure' });
    expect(mdn.disposition?.modifier?.toLowerCase()).toBe('unsupported mic-algorithms');
    // optional: the receipt is signed with a digest this side supports instead
    headers['Disposition-Notification-Options'] = 'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, md5, sha-256';
    const ok = await receiveAs2Message('c-ours', { method: 'POST', headers, body: msg.body }, lookup, received);
    expect(ok.ok).toBe(true);
  });

  it('outgoing Message-IDs are RFC 5322 msg-ids whatever the local AS2 identifier holds', () => {
    const atext = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
    const msgId = new RegExp(`^<${atext}(\\.${atext})*@${atext}(\\.${atext})*>$`);
    for (const local of ['OURS', 'TDX US', '<a>@"b"', 'x..y', '...', ' ', 'Ünïcode id', 'a.b.', '.lead']) expect(as2MessageId(local, 'token-1')).toMatch(msgId);
  });

  it('an asynchronous receipt is posted to the sender and judged against what was sent', async () => {
    receiverSettings = settings({});
    const pending = new Map<string, PendingMdn>();
    const judged: Awaited<ReturnType<typeof receiveAsyncMdn>>[] = [];
    const mdnServer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = { headers: req.headers, body: Buffer.concat(chunks) };
        expect(isMdnRequest(request)).toBe(true);
        void receiveAsyncMdn(request, { get: (id) => Promise.resolve(pending.get(id) ?? null) }, (id) => Promise.resolve({ connectionId: id, settings: settings({}), credentials: credentials(partner, ours) })).then((o) => {
          judged.push(o);
          res.writeHead(o.reply.status, o.reply.headers);
          res.end(o.reply.body);
        });
      });
    });
    await new Promise<void>((r) => mdnServer.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(mdnServer.address() as AddressInfo).port}/as2/mdn`;
      const { send, receive } = await partnerSends({ mdn: { mode: 'async', asyncUrl: url, waitSeconds: 60 } });
      expect(send.mdnStatus).toBe('pending-async');
      expect(send.pending).toMatchObject({ connectionId: 'c-partner', messageId: send.messageId, signedReceipt: true, micRequired: true });
      expect(Date.parse(send.pending!.deadline) - Date.parse(send.pending!.sentAt)).toBe(60_000);
      expect(receive.reply.body.length).toBe(0);
      pending.set(send.messageId, send.pending!);
      await expect.poll(() => judged.length, { timeout: 5000 }).toBe(1);
      expect(judged[0]).toMatchObject({ ok: true, connectionId: 'c-partner', messageId: send.messageId, mdnStatus: 'processed', late: false });
      // a receipt for a message nobody waits for
      const stray = await receiveAsyncMdn({ headers: {}, body: Buffer.alloc(0) }, { get: () => Promise.resolve(null) }, lookup);
      expect(stray.ok).toBe(false);
    } finally {
      await new Promise<void>((r) => mdnServer.close(() => r()));
    }
  });
});

describe('refused messages', () => {
  async function modifierOf(p: Promise<{ send: Awaited<ReturnType<typeof sendAs2Message>>; receive: As2ReceiveOutcome }>) {
    const { send, receive } = await p;
    expect(send.mdnStatus).toBe('failed');
    expect(send.retryable).toBe(false);
    expect(receive.ok).toBe(false);
    return { modifier: (receive as { modifier: string }).modifier, mdnModifier: send.mdn?.modifier, signed: send.mdn?.signed };
  }

  it('an AS2-To that is not this connection: unknown-trading-partner, in a signed receipt', async () => {
    receiverSettings = settings({ localId: 'SOMEONE-ELSE' });
    expect(await modifierOf(partnerSends({}))).toEqual({ modifier: 'unknown-trading-partner', mdnModifier: 'unknown-trading-partner', signed: true });
  });

  it('an AS2-From that is not the partner, and an unknown connection: unknown-trading-partner', async () => {
    receiverSettings = settings({ partnerId: 'OTHER' });
    expect((await modifierOf(partnerSends({}))).modifier).toBe('unknown-trading-partner');
    receiverSettings = settings({});
    const unknown = await partnerSends({ mdn: { signed: false } }, { connection: 'c-nobody' });
    expect(unknown.receive).toMatchObject({ ok: false, modifier: 'unknown-trading-partner' });
    expect(unknown.send.mdn?.signed).toBe(false);
  });

  it('a signature by a key other than the partner’s: authentication-failed', async () => {
    receiverSettings = settings({});
    expect((await modifierOf(partnerSends({}, { creds: credentials(stranger, ours) }))).modifier).toBe('authentication-failed');
  });

  it('a message encrypted for another certificate: decryption-failed', async () => {
    receiverSettings = settings({});
    // the partner holds a wrong certificate for us
    const creds = { ...credentials(partner, stranger) };
    const { receive } = await partnerSends({}, { creds });
    expect(receive).toMatchObject({ ok: false, modifier: 'decryption-failed' });
  });

  it('an unencrypted or unsigned message where the agreement requires it: insufficient-message-security', async () => {
    receiverSettings = settings({});
    expect((await modifierOf(partnerSends({ encryption: 'none' })))).toMatchObject({ modifier: 'insufficient-message-security' });
    expect((await modifierOf(partnerSends({ signing: 'none' })))).toMatchObject({ modifier: 'insufficient-message-security' });
    receiverSettings = settings({ requireEncryption: false, requireSignature: false });
    const plain = await partnerSends({ encryption: 'none', signing: 'none', mdn: { signed: false } });
    expect(plain.send.mdnStatus).toBe('processed');
    // unsigned and unencrypted: the MIC covers the content alone
    expect((plain.receive as As2Accepted).payload.equals(X12)).toBe(true);
    expect(plain.send.detail.micMatched).toBe(true);
  });

  it('a changed signed content: integrity-check-failed', async () => {
    receiverSettings = settings({ requireEncryption: false });
    const msg = await buildMessage({ payload: X12, filename: 'x.edi', contentType: 'application/edi-x12', from: 'PARTNER', to: 'OURS', messageId: '<tampered-1@partner>', signing: 'sha256', encryption: null, compression: false, receipt: { signed: true, asyncUrl: null }, credentials: loadCredentials(credentials(partner, ours)) });
    const body = Buffer.from(msg.body);
    const at = body.indexOf('ISA*00');
    body[at + 1] = 'X'.charCodeAt(0);
    const out = await receiveAs2Message('c-ours', { method: 'POST', headers: msg.headers, body }, lookup, received);
    expect(out).toMatchObject({ ok: false, modifier: 'integrity-check-failed' });
    expect(out.reply.status).toBe(200);
    const verdict = await evaluateMdn(mimeHeadersOf(out.reply.headers), out.reply.body, { messageId: msg.messageId, mic: msg.mic, micRequired: true, signedReceipt: true }, loadCredentials(credentials(partner, ours)).pkiPartnerCertificate);
    expect(verdict).toMatchObject({ status: 'failed', modifier: 'integrity-check-failed', signed: true });
  });

  it('without a receipt request a refusal is a plain HTTP error; an unauthenticated sender never gets an async post', async () => {
    receiverSettings = settings({});
    const msg = await buildMessage({ payload: X12, filename: null, contentType: 'application/edi-x12', from: 'PARTNER', to: 'OURS', messageId: '<no-receipt@partner>', signing: 'sha256', encryption: null, compression: false, receipt: null, credentials: loadCredentials(credentials(stranger, ours)) });
    const out = await receiveAs2Message('c-ours', { method: 'POST', headers: msg.headers, body: msg.body }, lookup, received);
    expect(out.ok).toBe(false);
    expect(out.reply.status).toBe(400);
    expect(out.reply.body.toString()).toContain('authentication-failed');

    const asyncMsg = await buildMessage({ payload: X12, filename: null, contentType: 'application/edi-x12', from: 'PARTNER', to: 'OURS', messageId: '<forged-async@partner>', signing: 'sha256', encryption: 'aes128-cbc', compression: false, receipt: { signed: false, asyncUrl: 'http://169.254.169.254/latest' }, credentials: loadCredentials(credentials(stranger, ours)) });
    const forged = await receiveAs2Message('c-ours', { method: 'POST', headers: asyncMsg.headers, body: asyncMsg.body }, lookup, received);
    expect(forged).toMatchObject({ ok: false, modifier: 'authentication-failed', asyncMdn: null });
    expect(forged.detail.mdnMode).toBe('sync');
    expect(parseMdn(mimeHeadersOf(forged.reply.headers), forged.reply.body).disposition?.modifier).toBe('authentication-failed');

    // accepted but unsigned (a connection that allows it): still no post to the named URL
    receiverSettings = settings({ requireSignature: false });
    const unsigned = await buildMessage({ payload: X12, filename: null, contentType: 'application/edi-x12', from: 'PARTNER', to: 'OURS', messageId: '<unsigned-async@partner>', signing: null, encryption: 'aes128-cbc', compression: false, receipt: { signed: false, asyncUrl: 'http://169.254.169.254/latest' }, credentials: loadCredentials(credentials(stranger, ours)) });
    const taken = await receiveAs2Message('c-ours', { method: 'POST', headers: unsigned.headers, body: unsigned.body }, lookup, received);
    expect(taken).toMatchObject({ ok: true, asyncMdn: null });
    expect(taken.detail.mdnMode).toBe('sync');
    expect(parseMdn(mimeHeadersOf(taken.reply.headers), taken.reply.body).disposition?.type).toBe('processed');
  });

  it('a message taken in whose storing then fails is answered with unexpected-processing-error', async () => {
    receiverSettings = settings({});
    const msg = await buildMessage({ payload: X12, filename: null, contentType: 'application/edi-x12', from: 'PARTNER', to: 'OURS', messageId: '<store-fails@partner>', signing: 'sha256', encryption: 'aes256-cbc', compression: false, receipt: { signed: true, asyncUrl: null }, credentials: loadCredentials(credentials(partner, ours)) });
    const out = await receiveAs2Message('c-ours', { method: 'POST', headers: msg.headers, body: msg.body }, lookup, new InMemoryReceivedMessages());
    expect(out.ok).toBe(true);
    const failed = await (out as As2Accepted).fail('the artifact store is unavailable');
    const mdn = parseMdn(mimeHeadersOf(failed.reply.headers), failed.reply.body);
    expect(mdn.disposition?.modifier).toBe('unexpected-processing-error');
    expect(mdn.text).toContain('the artifact store is unavailable');
  });

  it('a connection whose setup is not ready takes nothing in and sends nothing', async () => {
    receiverSettings = { ...settings({}), setupStatus: 'pending' };
    expect((await modifierOf(partnerSends({ mdn: { signed: false } }))).modifier).toBe('unexpected-processing-error');
    const out = await sendAs2Message({ payload: X12, filename: null, connectionId: 'c', settings: { ...settings({}), setupStatus: 'failed', setupReason: 'our certificate expired' }, credentials: credentials(ours, partner) });
    expect(out).toMatchObject({ mdnStatus: 'failed', retryable: false, httpStatus: null });
    expect(out.error).toContain('our certificate expired');
  });
});

describe('transport failures', () => {
  async function sendTo(url: string, timeoutMs = 5000) {
    return sendAs2Message({ payload: X12, filename: null, connectionId: 'c', settings: settings({}, url), credentials: credentials(ours, partner), timeoutMs });
  }
  async function withServer(handler: Parameters<typeof createServer>[1], f: (url: string) => Promise<void>) {
    const s = createServer(handler);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    try {
      await f(`http://127.0.0.1:${(s.address() as AddressInfo).port}/as2`);
    } finally {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  }

  it('a refused connection and a 503 or 429 are retryable; a 503 Retry-After is passed on', async () => {
    const refused = await sendTo('http://127.0.0.1:1/as2');
    expect(refused).toMatchObject({ mdnStatus: 'failed', retryable: true, httpStatus: null });
    expect(refused.error).toContain('ECONNREFUSED');
    await withServer(
      (_req, res) => {
        res.writeHead(503, { 'Retry-After': '42' });
        res.end('busy');
      },
      async (url) => expect(await sendTo(url)).toMatchObject({ mdnStatus: 'failed', retryable: true, httpStatus: 503, retryAfterSeconds: 42 }),
    );
    await withServer(
      (_req, res) => {
        res.writeHead(429);
        res.end();
      },
      async (url) => expect(await sendTo(url)).toMatchObject({ retryable: true, httpStatus: 429 }),
    );
  });

  it('a timeout is retryable; a redirect, a 4xx and a 200 without a receipt are not', async () => {
    await withServer(
      () => undefined,
      async (url) => {
        const t = await sendTo(url, 300);
        expect(t).toMatchObject({ mdnStatus: 'failed', retryable: true });
        expect(t.error).toMatch(/no complete response within 300 ms/);
      },
    );
    await withServer(
      (_req, res) => {
        res.writeHead(302, { Location: 'http://elsewhere.example/' });
        res.end();
      },
      async (url) => {
        const r = await sendTo(url);
        expect(r).toMatchObject({ retryable: false, httpStatus: 302 });
        expect(r.error).toMatch(/redirects are not followed/);
      },
    );
    await withServer(
      (_req, res) => {
        res.writeHead(403);
        res.end();
      },
      async (url) => expect(await sendTo(url)).toMatchObject({ retryable: false, httpStatus: 403 }),
    );
    await withServer(
      (req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200);
          res.end();
        });
      },
      async (url) => {
        const r = await sendTo(url);
        expect(r).toMatchObject({ mdnStatus: 'failed', retryable: false, httpStatus: 200 });
        expect(r.error).toMatch(/without the synchronous MDN/);
      },
    );
  });

  it('every transmission gets a fresh Message-ID unless a retry names it', async () => {
    const a = await sendTo('http://127.0.0.1:1/as2');
    const b = await sendTo('http://127.0.0.1:1/as2');
    expect(a.messageId).not.toBe(b.messageId);
    expect(a.messageId).toMatch(/^tdx-[0-9a-f-]{36}@ours$/);
    const retry = await sendAs2Message({ payload: X12, filename: null, connectionId: 'c', settings: settings({}, 'http://127.0.0.1:1/'), credentials: credentials(ours, partner), messageId: `<${a.messageId}>` });
    expect(retry.messageId).toBe(a.messageId);
  });
});
