import { parseArgs } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { CliCommand, CliIo } from '../tdx.ts';
import { loadConfig, requireSecretKeys } from '../../config.ts';
import { TdxError } from '../../errors.ts';
import { applyConfig, exportConfig } from '../../admin/admin-service.ts';
import { fieldName, locateField, readConfigFile } from '../../admin/config-file.ts';
import { checkMappings, describeMappingWarning } from '../../admin/mapping-check.ts';
import { createMappingEngine } from '../../adapters/mapping/worker-pool.ts';
import type { Config } from '../../config.ts';
import type { ConfigDocument } from '../../domain/configuration.ts';
import { checkAs2Credentials } from '../../domain/as2-settings.ts';
import { openAdminSession } from '../../admin/cassandra-session.ts';
import { x12ImplementationEngine as implementationEngine } from '../../domain/x12-implementation-engine.ts';
import { CassandraOrganizationStore } from '../../adapters/cassandra/organization-store.ts';
import { CassandraConfigAdminStore } from '../../adapters/cassandra/config-store.ts';

const USAGE = `usage:
  tdx config apply FILE --org ORG [--author NAME] [--dry-run]   apply a YAML or JSON configuration file
  tdx config export --org ORG [--format yaml|json] [--out FILE] write the configuration back in the same format
  tdx config check FILE                                         validate a file without applying it
The file format is the JSON Schema schemas/config/organization-config.schema.json.
check and apply also run every mapping (on its source's sample, or on a generated document) and
print what is wrong with its output as warnings; warnings never stop an apply.
`;

/**
 * Runs the mapping checks of a valid file and writes each warning to stderr as
 * `FILE:LINE:COLUMN: warning: field: mapping "name" on <input>: <path>: <problem>`; returns
 * how many there were.
 */
async function reportMappingWarnings(file: string, doc: ConfigDocument, settings: Config['mapping'], io: CliIo): Promise<number> {
  if ((doc.mappings ?? []).length === 0) return 0;
  const engine = createMappingEngine(settings);
  try {
    const warnings = await checkMappings(doc, engine, implementationEngine);
    if (warnings.length === 0) return 0;
    const text = readFileSync(file, 'utf8');
    for (const w of warnings) {
      const at = locateField(text, w.field);
      io.stderr.write(`${file}:${at.line}:${at.column}: warning: ${fieldName(w.field)}: ${describeMappingWarning(w)}\n`);
    }
    return warnings.length;
  } finally {
    await engine.close();
  }
}

/** `tdx config`: apply, export or check an organization's declarative configuration. */
export const configCommand: CliCommand = async (args, io) => {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === '--help' || verb === 'help') {
    io.stdout.write(USAGE);
    return verb === undefined ? 2 : 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      org: { type: 'string' },
      author: { type: 'string' },
      format: { type: 'string', default: 'yaml' },
      out: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (verb === 'check') {
    const file = positionals[0];
    if (!file) throw new TdxError('invalid_parameter', `config check needs a FILE\n${USAGE}`);
    const checked = readConfigFile(file, implementationEngine, { env: process.env });
    const warnings = await reportMappingWarnings(file, checked, loadConfig().mapping, io);
    io.stdout.write(warnings === 0 ? `${file}: valid\n` : `${file}: valid, with ${warnings} mapping warning${warnings === 1 ? '' : 's'}\n`);
    // AS2 keys and certificates given in the file are checked now; at apply, stored ones count too
    for (const c of checked.connections ?? []) {
      if (c.kind !== 'as2') continue;
      const r = checkAs2Credentials({ privateKey: c.privateKey, passphrase: c.passphrase, certificate: c.certificate, partnerCertificate: c.partnerCertificate }, new Date());
      io.stdout.write(`connection ${c.name}: AS2 setup ${r.status}${r.reason ? `: ${r.reason}` : ''}\n`);
    }
    return 0;
  }
  if (verb !== 'apply' && verb !== 'export') throw new TdxError('invalid_parameter', `unknown config command "${verb}"\n${USAGE}`);
  if (!values.org) throw new TdxError('invalid_parameter', `--org ORG is required\n${USAGE}`);
  // validate the whole file before touching the database: an invalid file applies nothing
  // `${NAME}` references in the file resolve against this command's environment
  const doc = verb === 'apply' ? readConfigFile(positionals[0] ?? missingFile(), implementationEngine, { env: process.env }) : undefined;
  const config = loadConfig();
  if (doc) await reportMappingWarnings(positionals[0] ?? '', doc, config.mapping, io);
  const client = await openAdminSession(config);
  try {
    const orgs = new CassandraOrganizationStore(client);
    const store = new CassandraConfigAdminStore(client, requireSecretKeys(config));
    if (doc) {
      if (values['dry-run']) {
        const { planOnly } = await import('../../admin/plan-only.ts');
        const summary = await planOnly(orgs, store, values.org, doc, implementationEngine);
        io.stdout.write(summary.length ? `${summary.join('\n')}\n` : 'no changes\n');
        return 0;
      }
      const result = await applyConfig(orgs, store, values.org, doc, implementationEngine, values.author ? { author: values.author } : {});
      io.stdout.write(result.summary.length ? `${result.summary.join('\n')}\n${result.summary.length} change(s) applied\n` : 'no changes\n');
      return 0;
    }
    if (values.format !== 'yaml' && values.format !== 'json') throw new TdxError('invalid_parameter', '--format must be yaml or json');
    const exported = await exportConfig(orgs, store, values.org);
    const text = values.format === 'json' ? `${JSON.stringify(exported, null, 2)}\n` : stringify(exported, { lineWidth: 0 });
    if (values.out) writeFileSync(values.out, text);
    else io.stdout.write(text);
    return 0;
  } finally {
    await client.shutdown();
  }
};

function missingFile(): never {
  throw new TdxError('invalid_parameter', `config apply needs a FILE\n${USAGE}`);
}
