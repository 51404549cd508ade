import { parseArgs } from 'node:util';
import type { CliCommand } from '../tdx.ts';
import { loadConfig } from '../../config.ts';
import { TdxError } from '../../errors.ts';
import { KEY_KINDS, type KeyKind } from '../../domain/api-keys.ts';
import { createApiKey, createOrganization, requireOrganization } from '../../admin/admin-service.ts';
import { openAdminSession } from '../../admin/cassandra-session.ts';
import { CassandraOrganizationStore } from '../../adapters/cassandra/organization-store.ts';

const USAGE = `usage:
  tdx admin org create NAME                                   prints the new organization's id
  tdx admin key create --org ORG --kind standard|read-only|sandbox [--name NAME]
                                                              prints the key (shown this once only)
  tdx admin key list --org ORG [--json]
  tdx admin key revoke --org ORG KEY_ID
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
