/**
 * The demo configuration file (deploy/demo/config.yaml) as unit tests read it: through the real
 * file reader, with a fixed environment for its `${SFTP_*}` references, a throwaway private
 * key generated once per process for `privateKeyFile`, and throwaway AS2 key pairs for the
 * `${DEMO_AS2_*}` paths (no key is kept in the repository).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ssh2 from 'ssh2';
import { parseConfigText } from '../../src/admin/config-file.ts';
import type { ConfigDocument } from '../../src/domain/configuration.ts';
import { x12ImplementationEngine } from '../../src/domain/x12-implementation-engine.ts';
import { keyPair } from './as2-keys.ts';

export const DEMO_CONFIG_PATH = 'deploy/demo/config.yaml';

let keyPath: string | undefined;
let as2: Record<string, string> | undefined;

/**
 * A private key ssh2 can read back: ssh2's own generator makes an ed25519 key that its parser
 * refuses as "Malformed OpenSSH private key" about once in 200 (14 of 3,000 here).
 */
export function readableEd25519Key(): string {
  return readableEd25519KeyPair().private;
}

/** An ed25519 key pair (OpenSSH format) whose private key ssh2 can read back. */
export function readableEd25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519');
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
}

/** The environment the demo file resolves with in unit tests. */
export function demoEnv(): Record<string, string> {
  if (keyPath === undefined) {
    keyPath = path.join(mkdtempSync(path.join(tmpdir(), 'tdx-demo-key-')), 'id_ed25519');
    writeFileSync(keyPath, readableEd25519Key(), { mode: 0o600 });
  }
  if (as2 === undefined) {
    // the AS2 connection's key pairs, as deploy/demo/as2-keys.sh makes them for the demo
    const dir = path.dirname(keyPath);
    const ours = keyPair('democorp');
    const partner = keyPair('gadgetas2');
    as2 = {
      DEMO_AS2_PRIVATE_KEY_PATH: path.join(dir, 'democorp.key.pem'),
      DEMO_AS2_CERTIFICATE_PATH: path.join(dir, 'democorp.cert.pem'),
      DEMO_AS2_PARTNER_CERTIFICATE_PATH: path.join(dir, 'gadgetas2.cert.pem'),
    };
    writeFileSync(as2['DEMO_AS2_PRIVATE_KEY_PATH']!, ours.privateKeyPem, { mode: 0o600 });
    writeFileSync(as2['DEMO_AS2_CERTIFICATE_PATH']!, ours.certificatePem);
    writeFileSync(as2['DEMO_AS2_PARTNER_CERTIFICATE_PATH']!, partner.certificatePem);
  }
  return { SFTP_HOST: '127.0.0.1', SFTP_PORT: '2222', SFTP_USERNAME: 'tdx', SFTP_PRIVATE_KEY_PATH: keyPath, ...as2 };
}

/** A fresh copy of the demo document, resolved and checked as `tdx config apply` does. */
export function demoDoc(): ConfigDocument {
  return parseConfigText(DEMO_CONFIG_PATH, readFileSync(DEMO_CONFIG_PATH, 'utf8'), x12ImplementationEngine, { env: demoEnv() });
}
