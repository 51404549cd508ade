/**
 * Versioned CQL migrations. Files `migrations/NNNN_name.cql` (NNNN a number; 0001-0099 the
 * core store, 0100 on the organization and configuration tables) are applied in numeric order,
 * each once: the `schema_migrations` table records the version, name and checksum of every
 * applied file. A file holds one or more statements separated by `;`, split outside string
 * literals, quoted identifiers, `$$` blocks and comments. Placeholders: `{{retention_seconds}}`
 * (config.cassandra.retentionSeconds) and `{{keyspace}}`.
 *
 * DDL is not transactional in Cassandra, so statements are written idempotently
 * (`IF NOT EXISTS`): a run interrupted inside a file applies the whole file again next time
 * and only then records it.
 */
import { fileURLToPath } from 'node:url';
import type cassandra from 'cassandra-driver';
import type { Config } from '../../config.ts';
import { applyPending, readMigrations, type MigrationOutcome } from '../migrations.ts';

/** How long one schema statement may take: a loaded node can take far longer than a query's timeout. */
const DDL_TIMEOUT_MS = 60_000;
/** Attempts of one schema statement that timed out (every migration statement is idempotent). */
const DDL_ATTEMPTS = 3;

/**
 * Runs one schema statement, again when the client gave up waiting: the node may still apply
 * it, and since every statement is written `IF NOT EXISTS`/`IF EXISTS` (a unit test checks),
 * running it again is harmless.
 */
async function executeDdl(client: cassandra.Client, statement: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.execute(statement, [], { prepare: false, readTimeout: DDL_TIMEOUT_MS });
      return;
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'OperationTimedOutError' || /did not reply before timeout/.test(err.message));
      if (!timedOut || attempt >= DDL_ATTEMPTS) throw err;
    }
  }
}

export const CQL_MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * Creates the keyspace (SimpleStrategy with the configured replication factor when it does
 * not exist) and applies every pending migration. The client switches to the keyspace (`USE`).
 */
export async function migrateCassandra(client: cassandra.Client, config: Config, dir: string = CQL_MIGRATIONS_DIR): Promise<MigrationOutcome> {
  const ks = config.cassandra.keyspace;
  const files = await readMigrations(dir, 'cql');
  await executeDdl(client, `CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': ${config.cassandra.replicationFactor}}`);
  const applied = new Map<number, string>();
  const exists = await client.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?', [ks, 'schema_migrations'], {
    prepare: true,
  });
  if (exists.rowLength > 0) {
    const rows = await client.execute(`SELECT version, checksum FROM ${ks}.schema_migrations`, [], { prepare: false });
    for (const r of rows.rows) applied.set(Number(r['version']), String(r['checksum']));
  }
  await client.execute(`USE ${ks}`, [], { prepare: false });
  return applyPending(files, applied, {
    values: { retention_seconds: config.cassandra.retentionSeconds, keyspace: ks },
    execute: (statement) => executeDdl(client, statement),
    record: async (f) => {
      await client.execute(
        `INSERT INTO ${ks}.schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, toTimestamp(now()))`,
        [f.version, f.name, f.checksum],
        { prepare: true },
      );
    },
  });
}
