/**
 * Versioned migration files shared by the Cassandra (CQL) and ClickHouse (SQL) runners: files
 * `NNNN_name.<ext>` applied in numeric order, each once, with `{{name}}` placeholders; scripts
 * split into statements outside literals and comments. Each store records what it applied in
 * its own `schema_migrations` table and hands `applyPending` what it already has.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { TdxError } from '../errors.ts';

export interface MigrationFile {
  readonly version: number;
  readonly name: string;
  readonly file: string;
  readonly text: string;
  readonly checksum: string;
}

const FILE_RE = /^(\d{4,})_([a-z0-9_]+)\.(cql|sql)$/;

/**
 * Splits a script into statements on `;` outside '...' strings (with '' escapes), "..."
 * identifiers, $$...$$ blocks, -- and // line comments and block comments. Comments are
 * dropped; empty statements are skipped. `backslashEscapes` (ClickHouse) lets a backslash
 * escape a quote inside '...'; CQL has no backslash escapes.
 */
export function splitStatements(script: string, opts: { backslashEscapes?: boolean } = {}): string[] {
  const out: string[] = [];
  let cur = '';
  let i = 0;
  const n = script.length;
  while (i < n) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      for (;;) {
        if (j >= n) throw new TdxError('migration_failed', `Unterminated ${c} literal starting at offset ${i}.`, { details: { offset: i } });
        if (script[j] === c) {
          if (script[j + 1] === c) {
            j += 2;
            continue;
          }
          break;
        }
        if (script[j] === '\\' && (c !== "'" || opts.backslashEscapes === true)) j += 1;
        j += 1;
      }
      cur += script.slice(i, j + 1);
      i = j + 1;
    } else if (c === '$' && next === '$') {
      const end = script.indexOf('$$', i + 2);
      if (end < 0) throw new TdxError('migration_failed', `Unterminated $$ block starting at offset ${i}.`, { details: { offset: i } });
      cur += script.slice(i, end + 2);
      i = end + 2;
    } else if ((c === '-' && next === '-') || (c === '/' && next === '/')) {
      const end = script.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      cur += '\n';
    } else if (c === '/' && next === '*') {
      const end = script.indexOf('*/', i + 2);
      if (end < 0) throw new TdxError('migration_failed', `Unterminated comment starting at offset ${i}.`, { details: { offset: i } });
      i = end + 2;
      cur += ' ';
    } else if (c === ';') {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      i += 1;
    } else {
      cur += c;
      i += 1;
    }
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** Replaces `{{name}}` placeholders; an unknown placeholder is an error naming the file. */
export function substitute(text: string, values: Readonly<Record<string, string | number>>, file: string): string {
  return text.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (_m, name: string) => {
    const v = values[name];
    if (v === undefined) throw new TdxError('migration_failed', `${file}: unknown placeholder {{${name}}}.`, { details: { file, placeholder: name } });
    return String(v);
  });
}

/** Reads and orders the migration files of `dir`; rejects bad names and duplicate versions. */
export async function readMigrations(dir: string, ext: 'cql' | 'sql'): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((f) => f.endsWith(`.${ext}`));
  const files: MigrationFile[] = [];
  for (const file of names) {
    const m = FILE_RE.exec(file);
    if (!m) throw new TdxError('migration_failed', `${file}: migration files are named NNNN_lowercase_name.${ext}.`, { details: { file } });
    const text = await readFile(path.join(dir, file), 'utf8');
    files.push({ version: Number(m[1]), name: m[2]!, file, text, checksum: createHash('sha256').update(text).digest('hex').slice(0, 16) });
  }
  return orderMigrations(files);
}

/** Sorts by version; two files with one version are an error. */
export function orderMigrations(files: readonly MigrationFile[]): MigrationFile[] {
  const sorted = [...files].sort((a, b) => a.version - b.version);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.version === sorted[i - 1]!.version) {
      throw new TdxError('migration_failed', `Two migrations with version ${sorted[i]!.version}: ${sorted[i - 1]!.file} and ${sorted[i]!.file}.`, {
        details: { version: sorted[i]!.version },
      });
    }
  }
  return sorted;
}

export interface MigrationOutcome {
  readonly applied: string[];
  readonly skipped: string[];
  /** Applied files whose content changed since (reported, not re-applied). */
  readonly changed: string[];
}

/** How one store runs a statement and records an applied file. */
export interface MigrationTarget {
  /** Placeholder values for `substitute`. */
  readonly values: Readonly<Record<string, string | number>>;
  /** ClickHouse lets a backslash escape a quote; CQL does not. */
  readonly backslashEscapes?: boolean;
  execute(statement: string): Promise<void>;
  record(file: MigrationFile): Promise<void>;
}

/**
 * Applies every file whose version is not in `applied` (version → checksum), in order, and
 * records each after all its statements ran. A file changed after it was applied is reported
 * in `changed`, never re-applied. A failing statement stops the run with `migration_failed`
 * naming the file and the statement's position.
 */
export async function applyPending(files: readonly MigrationFile[], applied: ReadonlyMap<number, string>, target: MigrationTarget): Promise<MigrationOutcome> {
  const outcome: MigrationOutcome = { applied: [], skipped: [], changed: [] };
  for (const f of files) {
    const had = applied.get(f.version);
    if (had !== undefined) {
      outcome.skipped.push(f.file);
      if (had !== f.checksum) outcome.changed.push(f.file);
      continue;
    }
    const statements = splitStatements(substitute(f.text, target.values, f.file), { backslashEscapes: target.backslashEscapes === true });
    for (const [i, stmt] of statements.entries()) {
      try {
        await target.execute(stmt);
      } catch (err) {
        throw new TdxError('migration_failed', `${f.file}: statement ${i + 1} failed: ${(err as Error).message}`, {
          details: { file: f.file, statement: i + 1 },
          cause: err,
        });
      }
    }
    await target.record(f);
    outcome.applied.push(f.file);
  }
  return outcome;
}
