/**
 * SFTP isolation: a folder per test under the server's writable base folder, removed when the
 * test finishes. Credentials come from SFTP_* (the native stack writes them to .stack/env: key
 * authentication with .stack/sshd/client_ed25519_key; docker-compose uses a password).
 */
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { Client, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { onTestFinished } from 'vitest';
import { stackEnv, uniqueId, type SftpSettings } from './env.ts';

export function sftpSettings(): SftpSettings {
  return stackEnv().sftp;
}

/** ssh2 connection options for the test SFTP server. */
export function sftpConnectConfig(s: SftpSettings = sftpSettings()): ConnectConfig {
  return {
    host: s.host,
    port: s.port,
    username: s.username,
    ...(s.password !== undefined ? { password: s.password } : {}),
    ...(s.privateKeyPath !== undefined ? { privateKey: readFileSync(s.privateKeyPath) } : {}),
    readyTimeout: 20_000,
  };
}

export interface SftpSession {
  readonly sftp: SFTPWrapper;
  end(): void;
}

export function connectSftp(config: ConnectConfig = sftpConnectConfig()): Promise<SftpSession> {
  return new Promise((resolve, reject) => {
    const conn = new Client();
    conn
      .on('ready', () => {
        conn.sftp((err, sftp) => (err ? (conn.end(), reject(err)) : resolve({ sftp, end: () => conn.end() })));
      })
      .on('error', reject)
      .connect(config);
  });
}

/**
 * One SFTP session a test file reuses for its own looks at the server (an SSH handshake costs a
 * connection's key exchange: far more than the look itself when a test polls a folder), opened
 * on first use and again after an error. `close` ends it.
 */
export function reusableSftp(config?: ConnectConfig): { use<T>(fn: (sftp: SFTPWrapper) => Promise<T>): Promise<T>; close(): Promise<void> } {
  let session: Promise<SftpSession> | undefined;
  const end = (s: Promise<SftpSession>): Promise<void> => s.then((x) => x.end(), () => undefined);
  return {
    async use(fn) {
      const current = (session ??= connectSftp(config));
      try {
        return await fn((await current).sftp);
      } catch (err) {
        if (session === current) session = undefined;
        void end(current);
        throw err;
      }
    },
    async close() {
      const s = session;
      session = undefined;
      if (s) await end(s);
    },
  };
}

const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> =>
  new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));

async function removeTree(sftp: SFTPWrapper, dir: string): Promise<void> {
  const entries = await call<{ filename: string; attrs: { isDirectory(): boolean } }[]>((cb) => sftp.readdir(dir, cb));
  for (const e of entries) {
    const p = posix.join(dir, e.filename);
    if (e.attrs.isDirectory()) await removeTree(sftp, p);
    else await call<void>((cb) => sftp.unlink(p, cb));
  }
  await call<void>((cb) => sftp.rmdir(dir, cb));
}

/** Creates `<baseDir>/t<random>` on the SFTP server; returns its path (relative to the login folder). */
export async function createTestSftpDir(): Promise<string> {
  const dir = posix.join(sftpSettings().baseDir, uniqueId());
  const session = await connectSftp();
  try {
    await call<void>((cb) => session.sftp.mkdir(dir, cb));
  } finally {
    session.end();
  }
  onTestFinished(async () => {
    const s = await connectSftp();
    try {
      await removeTree(s.sftp, dir);
    } finally {
      s.end();
    }
  });
  return dir;
}
