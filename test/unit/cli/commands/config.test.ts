import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configCommand } from '../../../../src/cli/commands/config.ts';
import { captured } from '../../support/cli-io.ts';
import { demoEnv } from '../../../support/demo-config.ts';

const run = (...args: string[]) => captured((io) => configCommand(args, io));

// The demo file takes its SFTP user from the environment (the stack's, when applied for real),
// and its AS2 key and certificates from the paths deploy/demo/as2-keys.sh prints.
const { DEMO_AS2_PRIVATE_KEY_PATH, DEMO_AS2_CERTIFICATE_PATH, DEMO_AS2_PARTNER_CERTIFICATE_PATH } = demoEnv();
const DEMO_ENV = { SFTP_USERNAME: 'demo-user', DEMO_AS2_PRIVATE_KEY_PATH, DEMO_AS2_CERTIFICATE_PATH, DEMO_AS2_PARTNER_CERTIFICATE_PATH };
const AS2_READY = 'connection gadget-as2: AS2 setup ready\n';

describe('tdx config check', () => {
  // the command reads the environment of this process; what it sets is taken back afterwards, so
  // the files that run after this one in the same worker see the environment they started with
  const added: string[] = [];
  beforeAll(() => {
    for (const [k, v] of Object.entries(DEMO_ENV)) {
      if (process.env[k] !== undefined) continue;
      process.env[k] = v;
      added.push(k);
    }
  });
  afterAll(() => {
    for (const k of added) delete process.env[k];
  });

  it('runs the demo mappings and finds nothing to warn about', { timeout: 30_000 }, async () => {
    const r = await run('check', 'deploy/demo/config.yaml');
    expect(r).toEqual({ code: 0, stdout: `deploy/demo/config.yaml: valid\n${AS2_READY}`, stderr: '' });
  });

  it('warns about a mapping that cannot produce valid output, naming file, line, mapping, path and problem', { timeout: 30_000 }, async () => {
    const text = readFileSync('deploy/demo/config.yaml', 'utf8').replace('"invoice_number_02": invoiceNumber,', '"invoice_number": invoiceNumber,');
    const file = join(mkdtempSync(join(tmpdir(), 'tdx-config-')), 'broken.yaml');
    writeFileSync(file, text);
    const r = await run('check', file);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${file}: valid, with 3 mapping warnings\n${AS2_READY}`);
    const lines = text.split('\n');
    const line = lines.findIndex((l, i) => l.includes('transformation: |') && i > lines.findIndex((x) => x.includes('- name: demo-erp-to-810'))) + 1;
    const prefix = `${file}:${line}:21: warning: mappings[1].transformation: mapping "demo-erp-to-810" on the sample of source "erp-invoice": $.heading.beginning_segment_for_invoice_BIG`;
    expect(r.stderr.trim().split('\n')).toEqual([
      `${prefix}.invoice_number_02: is required but missing`,
      `${prefix}.invoice_number: is not allowed here (the schema has no such property)`,
      `${prefix}.invoice_number: cannot be written as X12: is not an element of segment BIG`,
    ]);
  });

  it('ends its process once the check is done (idle mapping workers hold nothing open)', { timeout: 60_000 }, () => {
    const r = spawnSync(process.execPath, ['bin/tdx.mjs', 'config', 'check', 'deploy/demo/config.yaml'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...DEMO_ENV } });
    expect(r.stdout).toBe(`deploy/demo/config.yaml: valid\n${AS2_READY}`);
    expect(r.status).toBe(0);
  });
});
