/* eslint-disable @typescript-eslint/no-unsafe-call -- response bodies are untyped JSON */
/**
 * An AS2 connection configured end to end with the command line: `tdx as2 keygen` makes our
 * key pair, `tdx config apply` reads the PEM files by path, the API shows the computed setup
 * status (never the key material), flows follow it, and the stored secrets load as the
 * credentials the AS2 entry points take.
 */
import type { Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/http/app.ts';
import { platformRouterOverCassandra } from '../../../src/compose.ts';
import { createLogger } from '../../../src/logger.ts';
import { credentialsFromSecrets } from '../../../src/adapters/as2/index.ts';
import { storedOf } from '../../../src/adapters/cassandra/secret-store.ts';
import { loadCredentials } from '../../../src/adapters/as2/keys.ts';
import { cassandraEnv, orgWithKeys, type Env } from '../platform/support.ts';
import { apiGet } from '../../support/api-get.ts';
import { keyPair } from '../../support/as2-keys.ts';

let env: Env;
let server: Server;
let base = '';
const dir = mkdtempSync(path.join(tmpdir(), 'tdx-as2-config-'));
const partner = keyPair('partner');
const expired = keyPair('expired-partner', { notBefore: new Date('2020-01-01T00:00:00Z'), days: 30 });
writeFileSync(path.join(dir, 'acme.cert.pem'), partner.certificatePem);
writeFileSync(path.join(dir, 'expired.cert.pem'), expired.certificatePem);

const file = (partnerCertificateFile: string | null): string => `connections:
  - name: acme-as2
    kind: as2
    as2:
      localId: DEMOCORP
      partnerId: ACMEAS2
      url: https://as2.acme.example/as2
      privateKeyFile: keys/democorp.key.pem
      certificateFile: keys/democorp.cert.pem${partnerCertificateFile ? `\n      partnerCertificateFile: ${partnerCertificateFile}` : ''}
envelopes:
  - { name: us, external: false, interchangeExtid: DEMOCORP, interchangeExtidQualifier: ZZ, applicationCode: DEMOCORP }
  - { name: acme, external: true, interchangeExtid: ACMEEDI, interchangeExtidQualifier: ZZ, applicationCode: ACMEEDI }
implementations:
  - { name: po, version: "1", transactionSet: { identifier: "850", release: "004010" }, definition: { base: true, adjustments: [] } }
partners:
  - key: ACME
    name: Acme
    deliveryMethod: polling
    connection: acme-as2
    envelopes: { internal: us, external: acme }
    transactionSets:
      - { transactionSetIdentifier: "850", release: "004010", direction: inbound, implementation: po }
`;

async function apply(org: string, name: string, text: string): Promise<string> {
  const f = path.join(dir, `${name}.yaml`);
  writeFileSync(f, text);
  const r = await env.tdx(['config', 'apply', f, '--org', org]);
  if (r.code !== 0) throw new Error(`config apply ${name}: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  // reads only its own organization: the worker's keyspace, migrated once
  env = await cassandraEnv({}, { sharedKeyspace: true });
  const logger = createLogger({ ...env.config, logLevel: 'silent' });
  const app = createApp({ logger, checks: [], routers: [platformRouterOverCassandra(env.config, logger, env.client).router] });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await env.close();
});

describe('an AS2 connection through tdx config apply', () => {
  it('keygen → apply by path → ready on show, flow active, no key material anywhere in the API', async () => {
    const kg = await env.tdx(['as2', 'keygen', '--id', 'DEMOCORP', '--out', path.join(dir, 'keys'), '--bits', '2048']);
    expect(kg.code, kg.stderr).toBe(0);
    const c = await orgWithKeys(env, 'AS2 Org');
    const get = (p: string) => apiGet(base, p, c.standard);

    // without the partner's certificate: pending, and so is the flow
    const out1 = await apply(c.org, 'pending', file(null));
    expect(out1).toContain("connection acme-as2: written (AS2 setup pending: waiting for the partner's certificate (as2.partnerCertificateFile))");
    let conn = (await get('/platform/connections')).body.connections[0];
    expect(conn).toMatchObject({ kind: 'as2', provisioned: false, as2Ready: false });
    let show = (await get(`/platform/connections/${conn.id}`)).body;
    expect(show.as2).toEqual({ localId: 'DEMOCORP', partnerId: 'ACMEAS2', url: 'https://as2.acme.example/as2', setupStatus: 'pending' });
    expect((await get('/platform/flows')).body.flows.map((f: { status: string }) => f.status)).toEqual(['pending']);

    // the partner's certificate arrives: ready, and the flow activates
    const out2 = await apply(c.org, 'ready', file('acme.cert.pem'));
    expect(out2).toContain('connection acme-as2: written (AS2 setup ready)');
    conn = (await get('/platform/connections')).body.connections[0];
    expect(conn).toMatchObject({ provisioned: true, as2Ready: true });
    show = (await get(`/platform/connections/${conn.id}`)).body;
    expect(show.as2.setupStatus).toBe('ready');
    expect((await get('/platform/flows')).body.flows.map((f: { status: string }) => f.status)).toEqual(['active']);
    const flow = (await get(`/platform/flows/${(await get('/platform/flows')).body.flows[0].id}`)).body;
    expect(flow.nodes.map((n: { service?: string; name: string }) => n.name)).toContain('Receive over AS2');
    const all = JSON.stringify([show, conn, flow]);
    expect(all).not.toMatch(/BEGIN|PRIVATE KEY|CERTIFICATE-----/);

    // what the pipeline will load: the secrets of the connection, as credentials that work
    // (stored encrypted: opened with the test's operator key, as the nodes do; docs/secrets.md)
    const rows = await env.client.execute('SELECT owner_kind, owner_id, name, value, key_id FROM config_secrets WHERE org_id = ?', [c.org]);
    const open = (r: (typeof rows.rows)[number]): string =>
      env.config.secrets.keyring.open({ organizationId: c.org, ownerKind: String(r.get('owner_kind')), ownerId: String(r.get('owner_id')), name: String(r.get('name')) }, storedOf(r));
    const creds = credentialsFromSecrets(rows.rows.map((r) => ({ name: String(r.get('name')), value: open(r) })));
    expect(creds).not.toBeNull();
    expect(creds!.partnerCertificatePem).toBe(partner.certificatePem);
    expect(() => loadCredentials(creds!)).not.toThrow();

    // the same file again changes nothing
    expect(await apply(c.org, 'ready-again', file('acme.cert.pem'))).toBe('no changes\n');

    // an expired partner certificate: failed with the reason, not ready, flow pending again
    const out3 = await apply(c.org, 'expired', file('expired.cert.pem'));
    expect(out3).toMatch(/connection acme-as2: written \(AS2 setup failed: the partner's certificate expired on 2020-01-31T00:00:00.000Z\)/);
    conn = (await get('/platform/connections')).body.connections[0];
    expect(conn).toMatchObject({ provisioned: false, as2Ready: false });
    expect((await get(`/platform/connections/${conn.id}`)).body.as2.setupStatus).toBe('failed');
    expect((await get('/platform/flows')).body.flows.map((f: { status: string }) => f.status)).toEqual(['pending']);
  });

  it('config check reports the AS2 setup a file gives', async () => {
    const f = path.join(dir, 'check.yaml');
    writeFileSync(f, file('expired.cert.pem'));
    const r = await env.tdx(['config', 'check', f]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${f}: valid`);
    expect(r.stdout).toMatch(/connection acme-as2: AS2 setup failed: the partner's certificate expired/);
  });
});
