import type { CliCommand } from '../tdx.ts';

/** `tdx x12`: not built yet. */
export const x12Command: CliCommand = (_args, io) => {
  io.stderr.write('tdx x12: not available in this build\n');
  return Promise.resolve(2);
};
