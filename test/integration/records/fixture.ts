/**
 * The documents the records API tests read, sent through the real pipeline: a configuration
 * with two partners (GLOBEX over SFTP with automatic 997s, ACME on the partner endpoint), a
 * second organization for isolation checks, and interchanges that end delivered, in error,
 * with warnings, or unreadable.
 *
 * The flow of a partner with an SFTP connection starts at an `sftp_fetch` node; a submitted
 * interchange enters that node (DESIGN §3: processed as if the partner sent it). The input step
 * is shared by every input service (src/nodes/partner_endpoint/step.ts), so the tests serve
 * `sftp_fetch` with it; polling SFTP is not what they exercise.
 */
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { Client, type SFTPWrapper } from 'ssh2';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import { partnerEndpointNode } from '../../../src/nodes/partner_endpoint/node.ts';
import { defaultParts, type ServiceParts } from '../../../src/service.ts';
import { nodeDeps } from '../../../src/compose.ts';
import { stackEnv, uniqueId } from '../helpers/env.ts';
import { interchange, po850, type SetSpec } from '../pipeline/support.ts';

/** Service parts with the shared input step serving `sftp_fetch` too. */
export const partsWithSftpInput: ServiceParts = {
  ...defaultParts,
  nodes: { ...defaultParts.nodes, sftp_fetch: async (r) => partnerEndpointNode(await nodeDeps(r)) },
};

const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));

/** A fresh folder on the test SFTP server (with `in` and `out` inside); `remove` deletes it. */
export async function sftpFolder(): Promise<{ host: string; port: number; username: string; privateKey: string; dir: string; remove(): Promise<void> }> {
  const s = stackEnv().sftp;
  const privateKey = s.privateKeyPath ? readFileSync(s.privateKeyPath, 'utf8') : '';
  const connect = (): Promise<{ sftp: SFTPWrapper; end(): void }> =>
    new Promise((resolve, reject) => {
      const conn = new Client();
      conn
        .on('ready', () => conn.sftp((err, sftp) => (err ? reject(err) : resolve({ sftp, end: () => conn.end() }))))
        .on('error', reject)
        .connect({ host: s.host, port: s.port, username: s.username, ...(s.password ? { password: s.password } : {}), ...(privateKey ? { privateKey } : {}), readyTimeout: 20_000 });
    });
  const dir = posix.join(s.baseDir, uniqueId('rec'));
  const session = await connect();
  try {
    for (const d of [dir, `${dir}/in`, `${dir}/out`]) await call<void>((cb) => session.sftp.mkdir(d, cb));
  } finally {
    session.end();
  }
  const removeTree = async (sftp: SFTPWrapper, d: string): Promise<void> => {
    const entries = await call<{ filename: string; attrs: { isDirectory(): boolean } }[]>((cb) => sftp.readdir(d, cb));
    for (const e of entries) {
      const p = posix.join(d, e.filename);
      if (e.attrs.isDirectory()) await removeTree(sftp, p);
      else await call<void>((cb) => sftp.unlink(p, cb));
    }
    await call<void>((cb) => sftp.rmdir(d, cb));
  };
  return {
    host: s.host,
    port: s.port,
    username: s.username,
    privateKey,
    dir,
    remove: async () => {
      const x = await connect();
      try {
        await removeTree(x.sftp, dir);
      } finally {
        x.end();
      }
    },
  };
}

/** Two partners: GLOBEX (SFTP, 997s on) and ACME (partner endpoint, polling); both take 850 004010 P. */
export function recordsDoc(sftp: { host: string; port: number; username: string; privateKey: string; dir: string }): ConfigDocument {
  const setting = { transactionSetIdentifier: '850', release: '004010', direction: 'inbound' as const, usageIndicator: 'P' as const, implementation: 'po-850' };
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'globex', external: true, interchangeExtid: 'GLOBEX', interchangeExtidQualifier: 'ZZ', applicationCode: 'GLOBEX' },
      { name: 'acme', external: true, interchangeExtid: 'ACME', interchangeExtidQualifier: 'ZZ', applicationCode: 'ACME' },
    ],
    connections: [
      { name: 'globex-sftp', kind: 'sftp', host: sftp.host, port: sftp.port, username: sftp.username, privateKey: sftp.privateKey, inboundDirectory: `${sftp.dir}/in`, outboundDirectory: `${sftp.dir}/out` },
    ],
    implementations: [{ name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: [
      {
        key: 'GLOBEX',
        name: 'Globex Inc',
        deliveryMethod: 'polling',
        generateAcknowledgments: true,
        trackAcknowledgments: false,
        connection: 'globex-sftp',
        frequency: 0,
        envelopes: { internal: 'us', external: 'globex' },
        transactionSets: [setting],
      },
      { key: 'ACME', name: 'Acme Corp', deliveryMethod: 'polling', generateAcknowledgments: false, trackAcknowledgments: false, envelopes: { internal: 'us', external: 'acme' }, transactionSets: [setting] },
    ],
  };
}

/** The second organization: one partner on the partner endpoint. */
export function otherOrgDoc(): ConfigDocument {
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'THEM2', interchangeExtidQualifier: 'ZZ', applicationCode: 'THEM2' },
      { name: 'initech', external: true, interchangeExtid: 'INITECH', interchangeExtidQualifier: 'ZZ', applicationCode: 'INITECH' },
    ],
    implementations: [{ name: 'po-850', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } }],
    partners: [
      {
        key: 'INITECH',
        name: 'Initech',
        deliveryMethod: 'polling',
        generateAcknowledgments: false,
        trackAcknowledgments: false,
        envelopes: { internal: 'us', external: 'initech' },
        transactionSets: [{ transactionSetIdentifier: '850', release: '004010', direction: 'inbound', usageIndicator: 'P', implementation: 'po-850' }],
      },
    ],
  };
}

/** An 810 (no partner has a setting for it: its transaction ends in error). */
export function invoice810(number: string): SetSpec {
  return { id: '810', segments: [{ id: 'BIG', elements: ['20260301', number] }, { id: 'TDS', elements: ['1000'] }] };
}

export const from = (id: string): { qualifier: string; id: string } => ({ qualifier: 'ZZ', id });

export { interchange, po850 };
