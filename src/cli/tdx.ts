/**
 * The `tdx` command line: one entry point for people. Each subcommand lives in
 * src/cli/commands/<name>.ts and is loaded only when called, so `tdx x12 parse` never loads
 * a database driver.
 */
import { isTdxError } from '../errors.ts';

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/** A subcommand: receives its own arguments, returns the process exit code. */
export type CliCommand = (args: string[], io: CliIo) => Promise<number>;

const commands: Record<string, { summary: string; load: () => Promise<CliCommand> }> = {
  start: {
    summary: 'start the service: tdx start [--role api|node:<service>|materializer|scheduler|clickhouse|all]',
    load: async () => (await import('./commands/start.ts')).startCommand,
  },
  migrate: {
    summary: 'create topics, register schemas, apply Cassandra and ClickHouse migrations (idempotent)',
    load: async () => (await import('./commands/migrate.ts')).migrateCommand,
  },
  admin: {
    summary: 'organizations and API keys: tdx admin org create NAME | tdx admin key create|list|revoke',
    load: async () => (await import('./commands/admin.ts')).adminCommand,
  },
  config: {
    summary: "an organization's configuration: tdx config apply FILE --org ORG | tdx config export --org ORG",
    load: async () => (await import('./commands/config.ts')).configCommand,
  },
  as2: {
    summary: 'AS2 tools: tdx as2 keygen --id AS2_ID (key pair and certificate for a new connection)',
    load: async () => (await import('./commands/as2.ts')).as2Command,
  },
  mcp: {
    summary: 'the records MCP server over stdio, relayed to the API: tdx mcp [--url URL] [--key KEY] (or TDX_API_KEY)',
    load: async () => (await import('./commands/mcp.ts')).mcpCommand,
  },
  recover: {
    summary: 'redeliver or resend every failed delivery of a filter, throttled, once: tdx recover [--partner KEY] [--since 6h] [--rate N] [--json]',
    load: async () => (await import('./commands/recover.ts')).recoverCommand,
  },
  x12: {
    summary: 'X12 tools: tdx x12 parse|validate|ack|write FILE',
    load: async () => (await import('./commands/x12.ts')).x12Command,
  },
  sftp: {
    summary: 'the SFTP poller: tdx sftp status [--org ORG] [--json] | tdx sftp poll --org ORG [--connection NAME]',
    load: async () => (await import('./commands/sftp.ts')).sftpCommand,
  },
  dev: {
    summary: 'local tools: tdx dev webhook-receiver [--port 9901] [--secret whsec_...] [--json]',
    load: async () => (await import('./commands/dev.ts')).devCommand,
  },
};

function usage(): string {
  const rows = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`);
  return `usage: tdx <command> [arguments]\n\ncommands:\n${rows.join('\n')}\n`;
}

/** Runs the command line; returns the exit code (2 for usage errors). */
export async function runCli(argv: string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const entry = commands[name];
  if (!entry) {
    io.stderr.write(`tdx: unknown command "${name}"\n${usage()}`);
    return 2;
  }
  try {
    const command = await entry.load();
    return await command(rest, io);
  } catch (err) {
    const argsError = parseArgsError(err);
    if (argsError !== undefined) {
      // A command's arguments refused by node:util parseArgs: a usage error, not a crash.
      const help = rest.length === 1 && (rest[0] === '--help' || rest[0] === '-h');
      if (help) {
        io.stdout.write(`tdx ${name}: ${entry.summary}\n`);
        return 0;
      }
      io.stderr.write(`tdx ${name}: ${argsError}\n  ${entry.summary}\n`);
      return 2;
    }
    if (isTdxError(err)) {
      io.stderr.write(`tdx ${name}: ${err.code}: ${err.message}\n`);
      return err.status >= 500 ? 1 : 2;
    }
    io.stderr.write(`tdx ${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

/** The message of a node:util `parseArgs` refusal (unknown option, missing value...), if `err` is one. */
function parseArgsError(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_') ? err.message : undefined;
}
