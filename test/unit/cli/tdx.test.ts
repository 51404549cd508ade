import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/tdx.ts';
import { captured } from '../support/cli-io.ts';

const run = (...argv: string[]) => captured((io) => runCli(argv, io));

describe('tdx command line', () => {
  it('refuses an unknown option of a command with a usage error naming it, not a stack trace', async () => {
    const r = await run('migrate', '--bogus');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("tdx migrate: Unknown option '--bogus'");
    expect(r.stderr).toContain('create topics, register schemas');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('answers --help on a command that has no help of its own with its summary, exit 0', async () => {
    const r = await run('migrate', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('tdx migrate: create topics, register schemas, apply Cassandra and ClickHouse migrations (idempotent)\n');
    expect(r.stderr).toBe('');
  });

  it('names an unknown command and lists the commands', async () => {
    const r = await run('bogus');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('tdx: unknown command "bogus"');
    expect(r.stderr).toContain('  migrate ');
  });
});
