import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseConfigText, type ConfigFileOptions } from '../../../src/admin/config-file.ts';
import { x12ImplementationEngine as x12Engine } from '../../../src/domain/x12-implementation-engine.ts';
import { TdxError } from '../../../src/errors.ts';
import { demoEnv, readableEd25519KeyPair } from '../../support/demo-config.ts';

const demoText = readFileSync('deploy/demo/config.yaml', 'utf8');

function problems(text: string, file = 'cfg.yaml', options: ConfigFileOptions = { env: demoEnv(), baseDir: '.' }) {
  try {
    parseConfigText(file, text, x12Engine, options);
  } catch (err) {
    expect(err).toBeInstanceOf(TdxError);
    const e = err as TdxError;
    expect(e.code).toBe('config_file_invalid');
    return e.details['problems'] as { file: string; line: number; column: number; field: string; message: string }[];
  }
  return [];
}

describe('parseConfigText', () => {
  it('accepts the demo configuration', () => {
    const doc = parseConfigText('demo.yaml', demoText, x12Engine, { env: demoEnv(), baseDir: '.' });
    expect(doc.partners?.map((p) => [p.key, p.deliveryMethod])).toEqual([
      ['ACME', 'webhook'],
      ['GLOBEX', 'polling'],
      ['GADGET', 'polling'],
    ]);
  });

  it('names file, line and field of a schema violation', () => {
    const text = demoText.replace('deliveryMethod: polling', 'deliveryMethod: pigeon');
    const line = text.split('\n').findIndex((l) => l.includes('pigeon')) + 1;
    expect(problems(text)).toEqual([{ file: 'cfg.yaml', line, column: expect.any(Number), field: 'partners[1].deliveryMethod', message: 'must be one of "webhook", "polling"' }]);
  });

  it('names an unknown field and a missing one', () => {
    const text = 'partners:\n  - key: A\n    name: a\n    colour: red\n';
    const ps = problems(text);
    expect(ps.map((p) => [p.line, p.field, p.message])).toEqual([
      [2, 'partners[0].deliveryMethod', 'required field is missing'],
      [4, 'partners[0].colour', 'unknown field'],
    ]);
  });

  it('reports unresolved references and duplicate keys with their lines', () => {
    const text = 'partners:\n  - key: A\n    name: a\n    deliveryMethod: polling\n    connection: nope\n  - key: a\n    name: b\n    deliveryMethod: polling\n';
    expect(problems(text).map((p) => [p.line, p.field])).toEqual([
      [5, 'partners[0].connection'],
      [6, 'partners[1].key'],
    ]);
  });

  it('reports a JSONata syntax error in a transformation', () => {
    const text = demoText.replace('"orderNumber": $beg.purchase_order_number_03,', '"orderNumber": $beg.purchase_order_number_03 +,');
    const ps = problems(text);
    expect(ps).toHaveLength(1);
    expect(ps[0]!.field).toBe('mappings[0].transformation');
    expect(ps[0]!.message).toMatch(/not a valid JSONata expression/);
  });

  it('reads JSON with line numbers too', () => {
    const ps = problems('{\n  "webhooks": [\n    {"name": "w", "url": "ftp://x"}\n  ]\n}\n', 'cfg.json');
    expect(ps.map((p) => [p.file, p.line, p.field])).toEqual([['cfg.json', 3, 'webhooks[0].url']]);
  });

  it('reports YAML syntax errors', () => {
    expect(problems('partners: [\n')[0]!.field).toBe('(syntax)');
  });
});

describe('environment substitution', () => {
  const conn = (fields: string) => `connections:\n  - name: c\n    kind: sftp\n${fields}`;
  const parse = (text: string, env: Record<string, string>) => parseConfigText('cfg.yaml', text, x12Engine, { env, baseDir: '.' });

  it('replaces ${NAME} and ${NAME:-default}; a whole unquoted reference takes the type of its text', () => {
    const doc = parse(conn('    host: ${H}\n    port: ${P:-2222}\n    username: "${U}"\n    inboundDirectory: ${ROOT:-base}/acme/outbox\n'), { H: 'sftp.example', U: '42' });
    expect(doc.connections![0]).toEqual({ name: 'c', kind: 'sftp', host: 'sftp.example', port: 2222, username: '42', inboundDirectory: 'base/acme/outbox' });
    // an empty variable counts as unset for the default
    expect(parse(conn('    host: h\n    port: ${P:-22}\n'), { P: '' }).connections![0]!.port).toBe(22);
  });

  it('an unset variable names file, line and variable, and nothing else is reported for that value', () => {
    const text = conn('    host: h\n    username: ${SFTP_USERNAME}\n    port: ${SFTP_PORT}\n');
    const ps = problems(text, 'cfg.yaml', { env: {} });
    expect(ps.map((p) => [p.line, p.field])).toEqual([
      [5, 'connections[0].username'],
      [6, 'connections[0].port'],
    ]);
    expect(ps[0]!.message).toMatch(/^environment variable SFTP_USERNAME is not set/);
    try {
      parseConfigText('cfg.yaml', text, x12Engine, { env: {} });
    } catch (err) {
      expect((err as TdxError).message).toContain('cfg.yaml:5:15: connections[0].username: environment variable SFTP_USERNAME is not set');
    }
  });

  it('a whole reference that comes out empty leaves the field out', () => {
    // (inside a flow collection [ ] or { }, a reference must be quoted: braces end it)
    const doc = parse(conn('    host: h\n    password: ${PW:-}\n    privateKeyFile: ${KEY:-}\n    tags:\n      - a\n      - "${T:-b}"\n      - ${T:-}\n'), { PW: 'secret' });
    expect(doc.connections![0]).toEqual({ name: 'c', kind: 'sftp', host: 'h', password: 'secret', tags: ['a', 'b'] });
  });

  it('never changes the structure, never touches JSONata $ names, and $${ writes ${', () => {
    const doc = parse(conn('    host: ${H}\n    username: u\n    password: "pa$$word ${PW} $${NOT}"\n'), { H: 'a: b\n- c', PW: '[x]' });
    expect(doc.connections![0]).toMatchObject({ host: 'a: b\n- c', password: 'pa$$word [x] ${NOT}' });
    const demo = parse(demoText, demoEnv());
    expect(demo.mappings![0]!.transformation).toContain('$beg := heading.beginning_segment_for_purchase_order_BEG;');
  });
});

describe('privateKeyFile', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tdx-keyfile-'));
  const pair = readableEd25519KeyPair();
  writeFileSync(path.join(dir, 'id_ed25519'), pair.private);
  writeFileSync(path.join(dir, 'id_ed25519.pub'), pair.public);
  const text = (file: string, extra = '') => `connections:\n  - name: c\n    kind: sftp\n    host: h\n    username: u\n    privateKeyFile: ${file}\n${extra}`;

  it('reads the key relative to the configuration file and stores it as privateKey', () => {
    const doc = parseConfigText(path.join(dir, 'cfg.yaml'), text('id_ed25519'), x12Engine);
    expect(doc.connections![0]!.privateKey).toBe(pair.private);
    expect(doc.connections![0]).not.toHaveProperty('privateKeyFile');
    // an absolute path, from a file elsewhere
    expect(parseConfigText('cfg.yaml', text(path.join(dir, 'id_ed25519')), x12Engine).connections![0]!.privateKey).toBe(pair.private);
  });

  it('names a missing file, a public key, and a key given twice', () => {
    const at = (t: string) => problems(t, path.join(dir, 'cfg.yaml'), {}).map((p) => [p.line, p.field, p.message]);
    expect(at(text('nope'))).toEqual([[6, 'connections[0].privateKeyFile', `cannot read ${path.join(dir, 'nope')} (ENOENT)`]]);
    expect(at(text('id_ed25519.pub'))).toEqual([[6, 'connections[0].privateKeyFile', `${path.join(dir, 'id_ed25519.pub')} holds a public key; name the private key file`]]);
    expect(at(text('id_ed25519', '    privateKey: inline\n'))).toEqual([[6, 'connections[0].privateKeyFile', 'give privateKey or privateKeyFile, not both']]);
    writeFileSync(path.join(dir, 'junk'), 'not a key');
    expect(at(text('junk'))[0]![2]).toMatch(/junk holds no private key ssh2 can read/);
  });
});

describe('webhook URLs', () => {
  it('refuses a link-local host (cloud metadata) with file, line, column and field', () => {
    const text = 'webhooks:\n  - name: ok\n    url: http://127.0.0.1:9901/x\n  - name: meta\n    url: http://169.254.169.254/latest/meta-data/\n  - name: v6\n    url: "http://[fe80::1%25eth0]/x"\n';
    const ps = problems(text);
    expect(ps.map((p) => [p.line, p.column, p.field])).toEqual([
      [5, 10, 'webhooks[1].url'],
      [7, 10, 'webhooks[2].url'],
    ]);
    expect(ps[0]!.message).toMatch(/^points at the link-local address 169\.254\.169\.254/);
  });
});
