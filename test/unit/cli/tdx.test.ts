import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { runCli } from '../../../src/cli/tdx.ts';

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (parts: string[]) =>
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        parts.push(chunk.toString());
        cb();
      },
    });
  const code = await runCli(argv, { stdout: sink(out), stderr: sink(err) });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

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
