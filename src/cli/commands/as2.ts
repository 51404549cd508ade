import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { X509Certificate } from 'node:crypto';
import type { CliCommand } from '../tdx.ts';
import { TdxError } from '../../errors.ts';
import { fingerprintOf, generateAs2KeyPair } from '../../adapters/as2/index.ts';

const USAGE = `usage:
  tdx as2 keygen --id AS2_ID [--name NAME] [--out DIR] [--organization ORG] [--days N] [--bits N] [--force]
      writes DIR/NAME.key.pem (our private key, mode 0600) and DIR/NAME.cert.pem (a self-signed
      certificate to give the partner) for a new AS2 connection. NAME defaults to the AS2 id in
      lower case; DIR to the current folder; validity 730 days; RSA 3072 bits.
See docs/as2.md.
`;

function usageError(message: string): TdxError {
  return new TdxError('invalid_parameter', `${message}\n${USAGE}`);
}

function positiveInt(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw usageError(`--${name} must be an integer from ${min} to ${max}`);
  return Number(value);
}

/** `tdx as2`: AS2 tools (key pairs for new connections). */
export const as2Command: CliCommand = (args, io) => {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === 'help') {
    io.stdout.write(USAGE);
    return Promise.resolve(verb === undefined ? 2 : 0);
  }
  if (verb !== 'keygen') throw usageError(`unknown as2 command "${verb}"`);
  const { values } = parseArgs({
    args: rest,
    options: {
      id: { type: 'string' },
      name: { type: 'string' },
      out: { type: 'string', default: '.' },
      organization: { type: 'string' },
      days: { type: 'string' },
      bits: { type: 'string' },
      force: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const id = values.id?.trim();
  if (!id) throw usageError('--id AS2_ID is required (our AS2 identifier; it becomes the certificate name)');
  if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(id) || id.length > 128) throw usageError('--id must be 1 to 128 printable ASCII characters (RFC 4130)');
  const name = values.name ?? id.toLowerCase().replace(/[^a-z0-9._-]+/g, '-');
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw usageError('--name may hold letters, digits, dot, dash and underscore only');
  const days = positiveInt(values.days, 'days', 1, 3650, 730);
  const bits = positiveInt(values.bits, 'bits', 2048, 8192, 3072);
  const keyPath = join(values.out, `${name}.key.pem`);
  const certPath = join(values.out, `${name}.cert.pem`);
  for (const p of [keyPath, certPath]) {
    if (existsSync(p) && !values.force) throw new TdxError('invalid_parameter', `${p} exists; pass --force to replace it (the partner then needs the new certificate)`);
  }
  const pair = generateAs2KeyPair({ commonName: id, bits, days, ...(values.organization ? { organization: values.organization } : {}) });
  mkdirSync(values.out, { recursive: true });
  writeFileSync(keyPath, pair.privateKeyPem, { mode: 0o600 });
  writeFileSync(certPath, pair.certificatePem);
  const cert = new X509Certificate(pair.certificatePem);
  const show = (p: string): string => relative(process.cwd(), p) || p;
  io.stdout.write(
    [
      `AS2 key pair for ${id}`,
      `  private key  ${show(keyPath)}  (RSA ${bits}, PKCS#8, mode 0600: keep it secret)`,
      `  certificate  ${show(certPath)}  (self-signed, SHA-256, valid ${pair.notBefore.toISOString().slice(0, 10)} to ${pair.notAfter.toISOString().slice(0, 10)})`,
      `  fingerprint  SHA-256 ${fingerprintOf(cert)}`,
      'next:',
      `  1. give ${show(certPath)} to the partner (it is public) and get the partner's certificate;`,
      '  2. on the as2 connection of the configuration file (paths relative to that file):',
      `       as2: { localId: ${id}, partnerId: <theirs>, url: <their endpoint>,`,
      `              privateKeyFile: ${show(keyPath)}, certificateFile: ${show(certPath)}, partnerCertificateFile: <theirs> }`,
      '  3. npx tdx config apply FILE --org ORG   (the connection reports AS2 setup ready)',
      '',
    ].join('\n'),
  );
  return Promise.resolve(0);
};
