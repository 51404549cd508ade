/**
 * Operator key files (docs/secrets.md): one `id:base64` key a line, the first the active one.
 * `addKeyToFile` puts a new key first (it then encrypts; the keys below keep decrypting until
 * `tdx admin secrets rotate` has re-encrypted everything under the new one).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newKeyLine } from '../domain/secret-envelope.ts';

/** A key id from the time: `k20261126T134512Z`. */
export function keyIdAt(now: Date): string {
  return `k${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
}

/**
 * Writes a new key at the top of `file` (created with mode 0600, its folder too). With
 * `ifMissing`, an existing file is left as it is. Returns the new key's id, or undefined when
 * nothing was written.
 */
export function addKeyToFile(file: string, id: string, opts: { ifMissing?: boolean } = {}): string | undefined {
  const exists = existsSync(file);
  if (exists && opts.ifMissing) return undefined;
  const line = newKeyLine(id);
  const old = exists ? readFileSync(file, 'utf8') : '';
  if (old.split('\n').some((l) => l.trim().startsWith(`${id}:`))) throw new Error(`${file} already holds a key "${id}"`);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const header = exists ? '' : '# tdx operator keys for partners\' secrets (docs/secrets.md): one id:base64 a line, the first encrypts.\n';
  const body = old.replace(/^(#[^\n]*\n)*/, '');
  const head = exists ? old.slice(0, old.length - body.length) : header;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${head}${line}\n${body}`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return id;
}
