import type { CliCommand } from '../tdx.ts';

/** `tdx admin`: not built yet. */
export const adminCommand: CliCommand = (_args, io) => {
  io.stderr.write('tdx admin: not available in this build\n');
  return Promise.resolve(2);
};
