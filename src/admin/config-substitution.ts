/**
 * What a configuration file may take from outside itself, resolved before it is checked:
 *
 * - `${NAME}` and `${NAME:-default}` in string values, from the environment of `tdx config`
 *   (so one file serves machines whose users, hosts or ports differ). An unset `${NAME}` is a
 *   problem naming the variable; `$${` writes a literal `${`. An unquoted value that is exactly
 *   one reference takes the type its text reads as (`port: ${SFTP_PORT}` is a number), and is
 *   left out when it comes out empty (so a file can offer `password: ${SFTP_PASSWORD:-}` and
 *   `privateKeyFile: ${SFTP_PRIVATE_KEY_PATH:-}`, whichever the machine has). Keys and other
 *   text are never rewritten, so JSONata's `$name` and `$$` are untouched.
 * - `privateKeyFile` on a connection: a path (relative to the configuration file) whose content
 *   becomes the `privateKey` secret. It must hold a private key ssh2 can read.
 *
 * Substitution works on the parsed document's string values, never on the raw text, so a value
 * cannot change the document's structure and every problem keeps its line.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { isMap, isPair, isScalar, isSeq, Scalar, type Document } from 'yaml';
// ssh2 is CommonJS and Node's ESM loader cannot see its `utils` export by name
import ssh2 from 'ssh2';
import type { ConfigDocument } from '../domain/configuration.ts';
import type { DocPath } from '../domain/config-document.ts';

export type Env = Readonly<Record<string, string | undefined>>;
type Add = (path: DocPath, message: string) => void;

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;

/** The value of one reference, or undefined when the variable is unset and has no default. */
function lookUp(env: Env, name: string, fallback: string | undefined): string | undefined {
  const v = env[name];
  if (fallback !== undefined) return v === undefined || v === '' ? fallback : v;
  return v;
}

/** Replaces `${...}` references in every string value of `doc`, in place. */
export function substituteEnv(doc: Document, env: Env, add: Add): void {
  const visit = (node: unknown, path: DocPath): 'remove' | undefined => {
    if (isScalar(node)) return substituteScalar(node, path);
    if (isMap(node)) {
      for (const pair of [...node.items]) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (visit(pair.value, [...path, key]) === 'remove') node.items.splice(node.items.indexOf(pair), 1);
      }
    } else if (isSeq(node)) {
      const keep: unknown[] = [];
      node.items.forEach((item, i) => {
        if (visit(item, [...path, i]) !== 'remove') keep.push(item);
      });
      node.items.splice(0, node.items.length, ...keep);
    }
    return undefined;
  };

  const substituteScalar = (s: Scalar, path: DocPath): 'remove' | undefined => {
    if (typeof s.value !== 'string' || !s.value.includes('${')) return undefined;
    const text = s.value;
    const whole = s.type === Scalar.PLAIN ? WHOLE.exec(text) : null;
    let missing = false;
    const out = text.replace(REFERENCE, (m, name: string | undefined, fallback: string | undefined) => {
      if (m === '$${') return '${';
      const v = lookUp(env, name!, fallback);
      if (v === undefined) {
        add(path, `environment variable ${name!} is not set (write \${${name!}:-default} to give a default, $\${ for a literal \${)`);
        missing = true;
        return m;
      }
      return v;
    });
    if (missing) return undefined;
    if (whole) {
      if (out === '') return 'remove';
      if (/^-?\d+$/.test(out) && Number.isSafeInteger(Number(out))) s.value = Number(out);
      else if (out === 'true' || out === 'false') s.value = out === 'true';
      else s.value = out;
      return undefined;
    }
    s.value = out;
    return undefined;
  };

  visit(doc.contents, []);
}

/**
 * Replaces each connection's `privateKeyFile` with the `privateKey` it names (read relative to
 * `baseDir`). Problems: both fields given, an unreadable file, a file that holds no private key.
 */
export function readKeyFiles(cfg: ConfigDocument, baseDir: string, add: Add): void {
  (cfg.connections ?? []).forEach((c, i) => {
    if (c.privateKeyFile === undefined) return;
    const path: DocPath = ['connections', i, 'privateKeyFile'];
    const file = c.privateKeyFile;
    delete c.privateKeyFile;
    if (c.privateKey !== undefined) {
      add(path, 'give privateKey or privateKeyFile, not both');
      return;
    }
    const full = isAbsolute(file) ? file : resolve(baseDir, file);
    let text: string;
    try {
      text = readFileSync(full, 'utf8');
    } catch (err) {
      add(path, `cannot read ${full} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      return;
    }
    const parsed = ssh2.utils.parseKey(text, c.passphrase);
    if (parsed instanceof Error) {
      // an encrypted key whose passphrase is kept in the store cannot be checked here
      if (!(c.passphrase === undefined && /passphrase/i.test(parsed.message))) {
        add(path, `${full} holds no private key ssh2 can read (${parsed.message})`);
        return;
      }
    } else if (!parsed.isPrivateKey()) {
      add(path, `${full} holds a public key; name the private key file`);
      return;
    }
    c.privateKey = text;
  });
}
