import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { X509Certificate } from 'node:crypto';
import { as2Command } from '../../../../src/cli/commands/as2.ts';
import { checkAs2Credentials } from '../../../../src/domain/as2-settings.ts';
import { TdxError } from '../../../../src/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'tdx-as2-keygen-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]) {
  const parts: string[] = [];
  const stdout = new Writable({
    write(chunk: Buffer, _enc, cb) {
      parts.push(chunk.toString());
      cb();
    },
  });
  const code = await as2Command(args, { stdout, stderr: stdout });
  return { code, stdout: parts.join('') };
}

describe('tdx as2 keygen', () => {
  it('writes a private key (mode 0600) and a matching self-signed certificate named for the AS2 id', async () => {
    const r = await run('keygen', '--id', 'DEMO Corp', '--out', dir, '--bits', '2048', '--days', '30', '--organization', 'Demo');
    expect(r.code).toBe(0);
    const key = join(dir, 'demo-corp.key.pem');
    const cert = join(dir, 'demo-corp.cert.pem');
    expect(statSync(key).mode & 0o777).toBe(0o600);
    const x = new X509Certificate(readFileSync(cert));
    expect(x.subject).toBe('CN=DEMO Corp\nO=Demo');
    expect(x.issuer).toBe(x.subject);
    expect(Date.parse(x.validTo) - Date.parse(x.validFrom)).toBe(30 * 86_400_000);
    expect(x.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    // usable as-is for a connection whose partner is itself
    expect(checkAs2Credentials({ privateKey: readFileSync(key, 'utf8'), certificate: readFileSync(cert, 'utf8'), partnerCertificate: readFileSync(cert, 'utf8') }, new Date())).toEqual({ status: 'ready', reason: null });
    expect(r.stdout).toContain('fingerprint  SHA-256 ');
    expect(r.stdout).toContain(x.fingerprint256);
    expect(r.stdout).toContain('privateKeyFile:');
  });

  it('refuses to overwrite without --force and checks its arguments', async () => {
    await expect(run('keygen', '--id', 'DEMO Corp', '--out', dir, '--bits', '2048')).rejects.toThrow(/exists; pass --force/);
    expect((await run('keygen', '--id', 'DEMO Corp', '--out', dir, '--bits', '2048', '--force')).code).toBe(0);
    await expect(run('keygen')).rejects.toThrow(TdxError);
    await expect(run('keygen', '--id', 'X', '--bits', '1024')).rejects.toThrow(/--bits must be an integer from 2048/);
    await expect(run('keygen', '--id', 'bad\u0001id')).rejects.toThrow(/printable ASCII/);
    await expect(run('rotate')).rejects.toThrow(/unknown as2 command/);
  });
});
