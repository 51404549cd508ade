import type { CliCommand } from '../tdx.ts';

/** `tdx migrate`: not built yet. */
export const migrateCommand: CliCommand = (_args, io) => {
  io.stderr.write('tdx migrate: not available in this build\n');
  return Promise.resolve(2);
};
