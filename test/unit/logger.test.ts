import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, loadPrettyLogs, wantsPrettyLogs } from '../../src/logger.ts';

function sink(isTTY: boolean): Writable & { isTTY: boolean; text(): string } {
  const chunks: Buffer[] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(Buffer.from(chunk));
      cb();
    },
  });
  return Object.assign(w, { isTTY, text: () => Buffer.concat(chunks).toString('utf8') });
}

describe('logger format', () => {
  const base = { logLevel: 'info' as const, serviceName: 'tdx' };

  it('writes JSON lines to a pipe in auto mode, and asks for pretty lines only at a terminal or when told', () => {
    expect(wantsPrettyLogs({ ...base, logFormat: 'auto' }, sink(false))).toBe(false);
    expect(wantsPrettyLogs({ ...base, logFormat: 'auto' }, sink(true))).toBe(true);
    expect(wantsPrettyLogs({ ...base, logFormat: 'pretty' }, sink(false))).toBe(true);
    expect(wantsPrettyLogs({ ...base, logFormat: 'json' }, sink(true))).toBe(false);
    const out = sink(false);
    createLogger({ ...base, logFormat: 'auto' }, out).info({ event: 'x:y' }, 'hello');
    expect(JSON.parse(out.text())).toMatchObject({ msg: 'hello', event: 'x:y' });
  });

  it('writes readable lines once pino-pretty was loaded for a configuration that wants them', async () => {
    const config = { ...base, logFormat: 'pretty' as const };
    const out = sink(false);
    await loadPrettyLogs(config, out);
    createLogger(config, out).info({ event: 'x:y' }, 'hello');
    expect(out.text()).toMatch(/INFO.*x:y hello/);
    expect(() => JSON.parse(out.text()) as unknown).toThrow();
  });
});
