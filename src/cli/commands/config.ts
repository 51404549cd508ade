import type { CliCommand } from '../tdx.ts';

/** `tdx config`: not built yet. */
export const configCommand: CliCommand = (_args, io) => {
  io.stderr.write('tdx config: not available in this build\n');
  return Promise.resolve(2);
};
