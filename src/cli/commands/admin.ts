import { parseArgs } from 'node:util';
import type { CliCommand } from '../tdx.ts';
import { loadConfig, requireSecretKeys } from '../../config.ts';
import { TdxError } from '../../errors.ts';
import { KEY_KINDS, type KeyKind } from '../../domain/api-keys.ts';
import { createApiKey, createOrganization, requireOrganization } from '../../admin/admin-service.ts';
import { openAdminSession } from '../../admin/cassandra-session.ts';
import { CassandraOrganizationStore } from '../../adapters/cassandra/organization-store.ts';
import { rotateSecrets, secretKeyUsage, verifySecretKeys } from '../../adapters/cassandra/secret-store.ts';
import { addKeyToFile, keyIdAt } from '../../admin/secret-keys.ts';
import { newKeyLine } from '../../domain/secret-envelope.ts';
import type { CliIo } from '../tdx.ts';

const USAGE = `usage:
  tdx admin org create NAME                                   prints the new organization's id
  tdx admin key create --org ORG --kind standard|read-only|sandbox [--name NAME]
                                                              prints the key (shown this once only)
  tdx admin key list --org ORG [--json]
  tdx admin key revoke --org ORG KEY_ID
  tdx admin secrets keygen [--id ID] [--file PATH] [--if-missing] [--print]
                                                              adds a new operator key first in the key file
                                                              (it encrypts from then on); --print only prints it
  tdx admin secrets status                                    stored secrets per key id, registered keys
  tdx admin secrets rotate                                    re-encrypts every secret under the active key
                                                              (resumable, idempotent; plain values included)
`;

function usageError(message: string): TdxError {
  return new TdxError('invalid_parameter', `${message}\n${USAGE}`);
}

/** `tdx admin`: organizations and API keys. */
export const adminCommand: CliCommand = async (args, io) => {
  const [noun, verb, ...rest] = args;
  if (noun === undefined || noun === '--help' || noun === 'help') {
    io.stdout.write(USAGE);
    return noun === undefined ? 2 : 0;
  }
  if (noun === 'secrets') return secretsCommand(verb, rest, io);
  const { values, positionals } = parseArgs({
    args: rest,
    options: { org: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const key = `${noun} ${verb ?? ''}`;
  if (!['org create', 'key create', 'key list', 'key revoke'].includes(key)) throw usageError(`unknown admin command "${key.trim()}"`);
  const config = loadConfig();
  const client = await openAdminSession(config);
  try {
    const store = new CassandraOrganizationStore(client);
    if (key === 'org create') {
      const name = positionals.join(' ');
      if (!name) throw usageError('org create needs a NAME');
      const org = await createOrganization(store, name);
      io.stdout.write(`${org.id}\n`);
      return 0;
    }
    const orgId = values.org;
    if (!orgId) throw usageError('--org ORG is required');
    if (key === 'key create') {
      const kind = values.kind as KeyKind | undefined;
      if (!kind || !(KEY_KINDS as readonly string[]).includes(kind)) throw usageError(`--kind must be one of ${KEY_KINDS.join(', ')}`);
      const { key: plain, record } = await createApiKey(store, orgId, kind, values.name ?? null);
      io.stdout.write(`${plain}\n`);
      io.stderr.write(`key ${record.id} (${record.kind}) created; store it now, it is not shown again\n`);
      return 0;
    }
    await requireOrganization(store, orgId);
    if (key === 'key list') {
      const keys = (await store.listKeys(orgId)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      if (values.json) io.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
      else {
        io.stdout.write('id\tkind\tprefix\tname\tcreated\tlast used\trevoked\n');
        for (const k of keys) io.stdout.write(`${k.id}\t${k.kind}\t${k.prefix}…\t${k.name ?? '-'}\t${k.createdAt}\t${k.lastUsedAt ?? '-'}\t${k.revokedAt ?? '-'}\n`);
      }
      return 0;
    }
    const keyId = positionals[0];
    if (!keyId) throw usageError('key revoke needs a KEY_ID');
    if (!(await store.revokeKey(orgId, keyId, new Date().toISOString()))) {
      throw new TdxError('not_found', `Organization ${orgId} has no key ${keyId}.`, { reason: 'api_key' });
    }
    io.stdout.write(`revoked ${keyId}\n`);
    return 0;
  } finally {
    await client.shutdown();
  }
};

const countsOf = (rows: Readonly<Record<string, number>>): string =>
  Object.entries(rows)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none';

/** `tdx admin secrets keygen|status|rotate` (docs/secrets.md). */
async function secretsCommand(verb: string | undefined, args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { id: { type: 'string' }, file: { type: 'string' }, 'if-missing': { type: 'boolean', default: false }, print: { type: 'boolean', default: false } },
    strict: true,
  });
  if (verb === 'keygen') {
    const id = values.id ?? keyIdAt(new Date());
    if (values.print) {
      io.stdout.write(`${newKeyLine(id)}\n`);
      return 0;
    }
    // the key file of the configuration (TDX_SECRETS_KEY_FILE, else <data dir>/secret-keys), unless --file names another
    const file = values.file ?? loadConfig().secrets.keyFile;
    const written = addKeyToFile(file, id, { ifMissing: values['if-missing'] });
    io.stderr.write(written === undefined ? `${file} exists; left as it is\n` : `key ${written} written first in ${file} (mode 600); it encrypts from now on. Run \`tdx admin secrets rotate\` to re-encrypt the stored secrets under it.\n`);
    return 0;
  }
  if (verb !== 'status' && verb !== 'rotate') throw usageError(`unknown admin command "secrets ${verb ?? ''}"`);
  const config = loadConfig();
  const ring = requireSecretKeys(config);
  const client = await openAdminSession(config);
  try {
    if (verb === 'status') {
      const usage = await secretKeyUsage(client);
      io.stdout.write(`active key: ${ring.active}; configured: ${ring.ids.join(', ')}\n`);
      io.stdout.write(`stored secrets per key: ${countsOf(usage.rows)}\n`);
      io.stdout.write(`registered keys: ${usage.registered.join(', ') || 'none'}\n`);
      return 0;
    }
    // every key that sealed something must be here (and the same) before anything is rewritten
    await verifySecretKeys(client, ring);
    io.stderr.write(`rotate: re-encrypting under key ${ring.active}\n`);
    const outcome = await rotateSecrets(client, ring, (p) => {
      io.stderr.write(`rotate: ${p.scanned}/${p.total} scanned, ${p.resealed} re-encrypted, ${p.current} already under ${ring.active}${p.skipped ? `, ${p.skipped} changed meanwhile` : ''}\n`);
    });
    io.stdout.write(
      `rotated: ${outcome.resealed} re-encrypted, ${outcome.current} already under ${outcome.activeKey}, ${outcome.skipped} changed meanwhile (run again); before: ${countsOf(outcome.before)}; retired keys: ${outcome.retired.join(', ') || 'none'}\n`,
    );
    return outcome.skipped > 0 ? 1 : 0;
  } finally {
    await client.shutdown();
  }
}
