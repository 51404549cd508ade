/**
 * The other side of the chaos run: what the organization's systems and its partners see.
 *
 * - `startFlakyReceiver`: the organization's webhook receiver, which verifies every call with
 *   the `standardwebhooks` package and fails at random (500s and reset connections), so
 *   deliveries go through the retry schedule while processes die around them.
 * - `SftpSide`: the partners' SFTP folders (one session, reconnected when it drops): dropping
 *   interchanges for the poller, listing and reading what the service uploaded.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { posix } from 'node:path';
import { readFileSync } from 'node:fs';
import { Client, type SFTPWrapper } from 'ssh2';
import { Webhook } from 'standardwebhooks';
import { stackEnv } from '../integration/helpers/env.ts';

export interface WebhookCall {
  readonly webhookId: string;
  readonly bodySha: string;
  readonly ediTransactionId: string | null;
  readonly verified: boolean;
  /** What the receiver answered: a status, or `reset`. */
  readonly answer: number | 'reset';
}

export interface FlakyReceiver {
  readonly url: string;
  readonly calls: WebhookCall[];
  /** Calls per path. */
  readonly byPath: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Answers 500 with probability `p500`, resets the connection with probability `pReset`, else
 * 200. `random` is the run's seeded generator, so a run can be repeated.
 */
export async function startFlakyReceiver(secret: string, opts: { p500: number; pReset: number; random: () => number }): Promise<FlakyReceiver> {
  const verifier = new Webhook(secret);
  const calls: WebhookCall[] = [];
  const byPath = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const webhookId = String(req.headers['webhook-id'] ?? '');
      let verified = false;
      let payload: Record<string, unknown> | undefined;
      try {
        payload = verifier.verify(body, {
          'webhook-id': webhookId,
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        }) as Record<string, unknown>;
        verified = true;
      } catch {
        /* recorded as unverified */
      }
      const path = req.url ?? '/';
      byPath.set(path, (byPath.get(path) ?? 0) + 1);
      const r = opts.random();
      const answer: number | 'reset' = !verified ? 400 : r < opts.p500 ? 500 : r < opts.p500 + opts.pReset ? 'reset' : 200;
      calls.push({
        webhookId,
        bodySha: createHash('sha256').update(body).digest('hex'),
        ediTransactionId: typeof payload?.['ediTransactionId'] === 'string' ? payload['ediTransactionId'] : null,
        verified,
        answer,
      });
      if (answer === 'reset') return void req.socket.destroy();
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 200 ? 'ok' : 'try again');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    byPath,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));

export interface SftpFile {
  readonly name: string;
  readonly size: number;
}

/** The SFTP server of the local stack, as the partners use it. */
export class SftpSide {
  private session: Promise<{ conn: Client; sftp: SFTPWrapper }> | undefined;
  readonly settings = stackEnv().sftp;

  /** The private key and other connection fields for a configuration's SFTP connection. */
  connectionFields(): { host: string; port: number; username: string; privateKey?: string; password?: string } {
    const s = this.settings;
    return {
      host: s.host,
      port: s.port,
      username: s.username,
      ...(s.privateKeyPath ? { privateKey: readFileSync(s.privateKeyPath, 'utf8') } : {}),
      ...(s.password ? { password: s.password } : {}),
    };
  }

  /** A folder path under the server's writable base folder. */
  path(...parts: string[]): string {
    return posix.join(this.settings.baseDir, ...parts);
  }

  private open(): Promise<{ conn: Client; sftp: SFTPWrapper }> {
    this.session ??= new Promise((resolve, reject) => {
      const s = this.settings;
      const conn = new Client();
      conn
        .on('ready', () => conn.sftp((err, sftp) => (err ? (conn.end(), reject(err)) : resolve({ conn, sftp }))))
        .on('error', (err) => {
          this.session = undefined;
          reject(err);
        })
        .on('close', () => {
          this.session = undefined;
        })
        .connect({
          host: s.host,
          port: s.port,
          username: s.username,
          ...(s.password !== undefined ? { password: s.password } : {}),
          ...(s.privateKeyPath !== undefined ? { privateKey: readFileSync(s.privateKeyPath) } : {}),
          readyTimeout: 30_000,
        });
    });
    return this.session;
  }

  private async withSftp<T>(fn: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
    for (let i = 0; ; i++) {
      try {
        const { sftp } = await this.open();
        return await fn(sftp);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        // a missing file or folder is an answer; a dropped session is tried again
        if (code === 2 || code === 4 || i >= 4) throw err;
        this.close();
        await new Promise((r) => setTimeout(r, 500 * (i + 1)));
      }
    }
  }

  async mkdirs(...dirs: string[]): Promise<void> {
    await this.withSftp(async (s) => {
      for (const d of dirs) await call<void>((cb) => s.mkdir(d, cb)).catch(() => undefined);
    });
  }

  /** Writes `name` into `dir` the way partners do: under a dot-name first, then renamed. */
  async drop(dir: string, name: string, data: string): Promise<void> {
    await this.withSftp(async (s) => {
      const temp = posix.join(dir, `.${name}.part`);
      await call<void>((cb) => s.writeFile(temp, data, cb));
      await call<void>((cb) => s.rename(temp, posix.join(dir, name), cb));
    });
  }

  async list(dir: string): Promise<SftpFile[]> {
    return this.withSftp(async (s) => {
      const entries = await call<{ filename: string; attrs: { size: number; isFile(): boolean } }[]>((cb) => s.readdir(dir, cb));
      return entries.filter((e) => e.attrs.isFile()).map((e) => ({ name: e.filename, size: e.attrs.size }));
    });
  }

  async read(file: string): Promise<string> {
    return this.withSftp(async (s) => (await call<Buffer>((cb) => s.readFile(file, cb))).toString('utf8'));
  }

  /** Removes a folder tree (best effort). */
  async removeTree(dir: string): Promise<void> {
    await this.withSftp(async (s) => {
      const walk = async (d: string): Promise<void> => {
        const entries = await call<{ filename: string; attrs: { isDirectory(): boolean } }[]>((cb) => s.readdir(d, cb)).catch(() => []);
        // a folder's entries all at once over the session (one by one, a small chaos run's few
        // hundred files took 6.5 s of round trips)
        await Promise.all(
          entries.map(async (e) => {
            const p = posix.join(d, e.filename);
            if (e.attrs.isDirectory()) await walk(p);
            else await call<void>((cb) => s.unlink(p, cb)).catch(() => undefined);
          }),
        );
        await call<void>((cb) => s.rmdir(d, cb)).catch(() => undefined);
      };
      await walk(dir);
    }).catch(() => undefined);
  }

  close(): void {
    const s = this.session;
    this.session = undefined;
    void s?.then(({ conn }) => conn.end()).catch(() => undefined);
  }
}
