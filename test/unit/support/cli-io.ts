/** Runs a `tdx` command (or the whole command line) with its stdout and stderr captured as text. */
import { Writable } from 'node:stream';
import type { CliIo } from '../../../src/cli/tdx.ts';

export interface Captured {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function captured(run: (io: CliIo) => Promise<number>): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (parts: string[]) =>
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        parts.push(chunk.toString());
        cb();
      },
    });
  const code = await run({ stdout: sink(out), stderr: sink(err) });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
