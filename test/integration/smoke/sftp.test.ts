/** The SFTP server is real: a file uploaded and fetched back through ssh2. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectSftp, createTestSftpDir, sftpSettings } from '../helpers/index.ts';

describe('sftp', () => {
  it('uploads a file and fetches it back', async () => {
    const dir = await createTestSftpDir();
    const remote = `${dir}/850_${Date.now()}.edi`;
    const body = Buffer.from('ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *240101*1200*U*00401*000000001*0*T*>~\n');

    const session = await connectSftp();
    try {
      const { sftp } = session;
      await new Promise<void>((ok, fail) => sftp.writeFile(remote, body, (e) => (e ? fail(e) : ok())));
      const listed = await new Promise<string[]>((ok, fail) =>
        sftp.readdir(dir, (e, list) => (e ? fail(e) : ok(list.map((f) => f.filename)))),
      );
      expect(listed).toEqual([path.posix.basename(remote)]);
      const fetched = await new Promise<Buffer>((ok, fail) => sftp.readFile(remote, (e, b) => (e ? fail(e) : ok(b))));
      expect(fetched.equals(body)).toBe(true);
      await expect(
        new Promise((ok, fail) => sftp.readFile(`${dir}/missing.edi`, (e, b) => (e ? fail(e) : ok(b)))),
      ).rejects.toThrow(/No such file/);
    } finally {
      session.end();
    }

    // With the native stack the file is on this machine's disk under the SFTP root.
    const root = sftpSettings().localRoot;
    if (root !== undefined) {
      const local = path.join(root, remote);
      expect(existsSync(local)).toBe(true);
      expect(readFileSync(local).equals(body)).toBe(true);
    }
  });
});
