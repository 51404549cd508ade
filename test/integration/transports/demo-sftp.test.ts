/**
 * The demo configuration's SFTP connections really work against the stack's SFTP server: the
 * file resolved as `tdx config apply` resolves it (with this environment's SFTP_* variables),
 * each connection's user, key or password, host and port open a session, and a file goes up,
 * is listed, read and removed under relative folders like the demo's.
 */
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../../src/admin/config-file.ts';
import { x12ImplementationEngine } from '../../../src/domain/x12-implementation-engine.ts';
import { SftpClient, sftpEndpoint } from '../../../src/adapters/sftp/index.ts';
import { createTestSftpDir } from '../helpers/index.ts';

const sftp = new SftpClient({ connectTimeoutMs: 10_000 });
afterEach(() => sftp.close());

describe('demo SFTP connections', () => {
  it('resolve to the stack server and carry traffic there', async () => {
    const doc = readConfigFile('deploy/demo/config.yaml', x12ImplementationEngine, { env: process.env });
    const conns = (doc.connections ?? []).filter((c) => c.kind === 'sftp');
    expect(conns.map((c) => c.name)).toEqual(['acme-sftp', 'globex-sftp']);
    const keyPath = process.env['SFTP_PRIVATE_KEY_PATH'];
    const dir = await createTestSftpDir();
    for (const c of conns) {
      expect(c).toMatchObject({ host: process.env['SFTP_HOST'], port: Number(process.env['SFTP_PORT']), username: process.env['SFTP_USERNAME'] });
      if (keyPath) expect(c.privateKey).toBe(readFileSync(keyPath, 'utf8'));
      else expect(c.password).toBe(process.env['SFTP_PASSWORD']);
      expect(c.inboundDirectory).toMatch(/^[a-z]+\/outbox$/);
      expect(c.outboundDirectory).toMatch(/^[a-z]+\/inbox$/);
      const ep = sftpEndpoint({ host: c.host ?? null, port: c.port ?? null, username: c.username ?? null }, c);
      // the demo's folder layout, inside the test's own folder
      const outbound = posix.join(dir, c.outboundDirectory!);
      await sftp.mkdirs(ep, outbound);
      await sftp.upload(ep, outbound, 'INV-1.edi', `ISA*${c.name}~`);
      expect((await sftp.list(ep, outbound)).map((e) => e.name)).toEqual(['INV-1.edi']);
      expect((await sftp.readFile(ep, posix.join(outbound, 'INV-1.edi'))).toString()).toBe(`ISA*${c.name}~`);
      await sftp.remove(ep, posix.join(outbound, 'INV-1.edi'));
    }
  });
});
