/** AS2 key and certificate files named in a configuration file, read relative to it. */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigText } from '../../../src/admin/config-file.ts';
import { x12ImplementationEngine as x12Engine } from '../../../src/domain/x12-implementation-engine.ts';
import { TdxError } from '../../../src/errors.ts';
import { keyPair } from '../../support/as2-keys.ts';

const dir = mkdtempSync(join(tmpdir(), 'tdx-as2-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ours = keyPair('ours');
const partner = keyPair('partner');
mkdirSync(join(dir, 'keys'));
writeFileSync(join(dir, 'keys', 'ours.key.pem'), ours.privateKeyPem);
writeFileSync(join(dir, 'keys', 'ours.cert.pem'), ours.certificatePem);
writeFileSync(join(dir, 'keys', 'acme.cert.pem'), partner.certificatePem);
writeFileSync(join(dir, 'keys', 'notes.txt'), 'not a certificate');
const file = join(dir, 'org.yaml');

const text = (as2Extra: string, connExtra = ''): string => `connections:
  - name: acme-as2
    kind: as2${connExtra}
    as2:
      localId: US
      partnerId: ACME
      url: https://acme.example/as2${as2Extra}
`;

function problems(t: string): { line: number; field: string; message: string }[] {
  try {
    parseConfigText(file, t, x12Engine);
  } catch (err) {
    expect(err).toBeInstanceOf(TdxError);
    return ((err as TdxError).details['problems'] as { line: number; field: string; message: string }[]).map((p) => ({ line: p.line, field: p.field, message: p.message }));
  }
  return [];
}

describe('AS2 files in a configuration file', () => {
  it('reads the key and certificates relative to the file into the connection, and drops the paths', () => {
    const doc = parseConfigText(file, text('\n      privateKeyFile: keys/ours.key.pem\n      certificateFile: keys/ours.cert.pem\n      partnerCertificateFile: ./keys/acme.cert.pem'), x12Engine);
    const c = doc.connections![0]!;
    expect(c.privateKey).toBe(ours.privateKeyPem);
    expect(c.certificate).toBe(ours.certificatePem);
    expect(c.partnerCertificate).toBe(partner.certificatePem);
    expect(Object.keys(c.as2!).sort()).toEqual(['localId', 'partnerId', 'url']);
  });

  it('names the line and field of a missing file, a file without PEM, and a key given twice', () => {
    expect(problems(text('\n      certificateFile: keys/missing.pem'))).toEqual([{ line: 8, field: 'connections[0].as2.certificateFile', message: `cannot read ${join(dir, 'keys', 'missing.pem')}: ENOENT` }]);
    expect(problems(text('\n      partnerCertificateFile: keys/notes.txt'))).toEqual([{ line: 8, field: 'connections[0].as2.partnerCertificateFile', message: `${join(dir, 'keys', 'notes.txt')} is not a PEM file (no -----BEGIN ...----- line)` }]);
    expect(problems(text('\n      privateKeyFile: keys/ours.key.pem', '\n    privateKey: inline'))).toEqual([{ line: 9, field: 'connections[0].as2.privateKeyFile', message: 'privateKey is also given inline; give it once' }]);
  });

  it('refuses setupStatus in the file (it is computed) and an async receipt without its URL', () => {
    expect(problems(text('\n      setupStatus: ready'))).toEqual([{ line: 8, field: 'connections[0].as2.setupStatus', message: 'unknown field' }]);
    expect(problems(text('\n      mdn: { mode: async }'))[0]).toMatchObject({ field: 'connections[0].as2.mdn.asyncUrl', message: expect.stringMatching(/POST \/as2\/mdn/) });
  });
});
