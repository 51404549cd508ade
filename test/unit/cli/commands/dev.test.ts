/**
 * `tdx dev webhook-receiver` as a newcomer runs it: spawned through bin/tdx.mjs, fed one
 * delivery signed by the service's own sender with the demo secret, one signed with another
 * secret and one unsigned; its output read back; stopped with Ctrl-C (SIGINT).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sendWebhook, webhookMessageId } from '../../../../src/adapters/webhook/index.ts';
import { demoSigningSecrets, formatDelivery } from '../../../../src/cli/commands/dev.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const DEMO_SECRET = 'whsec_ZGVtby13ZWJob29rLXNpZ25pbmctc2VjcmV0';

interface Running {
  child: ChildProcessWithoutNullStreams;
  port: number;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

async function startReceiver(...args: string[]): Promise<Running> {
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  const child = spawn(process.execPath, ['bin/tdx.mjs', 'dev', 'webhook-receiver', '--port', '0', ...args], { cwd: root, env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  const port = await new Promise<number>((ok, fail) => {
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) ok(Number(m[1]));
    });
    void exit.then((code) => fail(new Error(`receiver exited ${code}: ${err}`)));
  });
  return { child, port, stdout: () => out, stderr: () => err, exit };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
};

const body = JSON.stringify({ resultId: 'r-0001', traceGuid: 't-0001', ediTransactionId: 'e-1', partnerKey: 'ACME', transactionSetIdentifier: '850', usageIndicator: 'P', document: { orderNumber: 'PO-1' } });

describe('tdx dev webhook-receiver', () => {
  it('defaults to the demo webhooks\' secret', () => {
    expect(demoSigningSecrets()).toEqual([DEMO_SECRET]);
  });

  it('prints verified deliveries as JSON lines, rejects bad signatures with 401, and stops on SIGINT', async () => {
    const r = await startReceiver('--json');
    try {
      expect(r.stderr()).toContain('verifying with 1 secret from deploy/demo/config.yaml');
      const url = `http://127.0.0.1:${r.port}/edi/inbound`;
      const id = webhookMessageId('r-0001', 'erp-inbound');
      const good = await sendWebhook({ url, secret: DEMO_SECRET, messageId: id, body });
      expect(good).toMatchObject({ kind: 'delivered', statusCode: 200 });
      const bad = await sendWebhook({ url, secret: 'whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldA==', messageId: id, body });
      expect(bad).toMatchObject({ kind: 'final', statusCode: 401 });
      const unsigned = await fetch(url, { method: 'POST', body: '{}' });
      expect(unsigned.status).toBe(401);
      await until(() => r.stdout().trim().split('\n').length >= 3);
      const lines = r.stdout().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines[0]).toEqual({
        at: expect.any(String),
        verified: true,
        method: 'POST',
        path: '/edi/inbound',
        webhookId: id,
        webhookTimestamp: String(good.timestamp),
        size: Buffer.byteLength(body),
        partnerKey: 'ACME',
        transactionSetIdentifier: '850',
        resultId: 'r-0001',
        traceGuid: 't-0001',
      });
      expect(lines[1]).toMatchObject({ verified: false, webhookId: id, error: 'No matching signature found' });
      expect(lines[2]).toMatchObject({ verified: false, webhookId: null, error: 'Missing required headers' });
      // the document itself is never printed
      expect(r.stdout()).not.toContain('PO-1');
    } finally {
      r.child.kill('SIGINT');
    }
    expect(await r.exit).toBe(0);
  });

  it('prints readable lines, verifies with a given secret, and answers --status', async () => {
    const secret = 'whsec_bXktb3duLXJlY2VpdmVyLXNlY3JldA==';
    const r = await startReceiver('--secret', secret, '--status', '503');
    try {
      const o = await sendWebhook({ url: `http://127.0.0.1:${r.port}/edi/notifications`, secret, messageId: 'msg_1', body: JSON.stringify({ event: 'document.failed', resultId: 'r-9', traceGuid: 't-9' }) });
      expect(o).toMatchObject({ kind: 'retryable', statusCode: 503 });
      await until(() => r.stdout().includes('\n'));
      expect(r.stdout()).toMatch(/^\S+ {2}verified {2}POST \/edi\/notifications {2}webhook-id=msg_1 {2}event=document\.failed {2}resultId=r-9 {2}trace=t-9 {2}size=\d+ B\n$/);
    } finally {
      r.child.kill('SIGINT');
    }
    expect(await r.exit).toBe(0);
  });

  it('formats a rejected delivery with its reason', () => {
    expect(formatDelivery({ at: 'T', verified: false, method: 'POST', path: '/x', webhookId: 'msg_2', webhookTimestamp: '1', size: 3, error: 'Message timestamp too old' })).toBe(
      'T  REJECTED  POST /x  webhook-id=msg_2  size=3 B  verification failed: Message timestamp too old',
    );
  });
});
