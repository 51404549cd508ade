import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The Node versions package.json's engines accept: ^22.20.0 || >=24. */
function supported(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major >= 24 || (major === 22 && minor >= 20);
}

describe('runtime', () => {
  it('runs on a Node that package.json accepts, whose OpenSSL decrypts PKCS#1 v1.5 key transport', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('^22.20.0 || >=24');
    expect(supported('v20.20.2')).toBe(false);
    expect(supported('v22.19.0')).toBe(false);
    expect(supported(process.version), `running on ${process.version}; run tests with bash deploy/test.sh or bash deploy/node.sh`).toBe(true);
  });

  // npm test (deploy/test.sh) exports the version it chose; the vitest workers and every process
  // a test starts (process.execPath, or `node` on PATH) must be that one
  it.runIf(process.env['TDX_NODE_VERSION_USED'])('runs the test workers and the processes tests start on the Node npm test chose', () => {
    const chosen = process.env['TDX_NODE_VERSION_USED'];
    expect(process.versions.node).toBe(chosen);
    const child = spawnSync(process.execPath, ['--version'], { encoding: 'utf8' });
    const onPath = spawnSync('node', ['--version'], { encoding: 'utf8' });
    process.stderr.write(`runtime: vitest worker ${process.version}, child ${child.stdout.trim()}, node on PATH ${onPath.stdout.trim()} (${process.execPath})\n`);
    expect(child.stdout.trim()).toBe(`v${chosen}`);
    expect(onPath.stdout.trim()).toBe(`v${chosen}`);
  });
});
