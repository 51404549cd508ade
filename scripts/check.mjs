// `npm run check`: the type-check of both TypeScript projects (tsconfig.json and
// console/tsconfig.json, as `tsc -p … --noEmit`) and the lint (as `eslint --max-warnings 0 .`) in
// one process. ESLint's type-aware rules ask the programs the type-check built and checked for
// their types, instead of building and checking every module a second time (eslint.config.js
// alone, as `npm run lint` runs it, builds its own through the project service). Prints each
// part's time on stderr; exits 1 when a type error, a lint error or a lint warning was found.
import { ESLint } from 'eslint';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../', import.meta.url));
process.chdir(root);
let failed = false;
const t0 = performance.now();
const since = (t) => `${((performance.now() - t) / 1000).toFixed(1)} s`;

const host = {
  getCanonicalFileName: (f) => (ts.sys.useCaseSensitiveFileNames ? f : f.toLowerCase()),
  getCurrentDirectory: () => root,
  getNewLine: () => ts.sys.newLine,
};
const print = (diagnostics) => {
  if (diagnostics.length === 0) return;
  const pretty = process.stdout.isTTY;
  process.stdout.write(pretty ? ts.formatDiagnosticsWithColorAndContext(diagnostics, host) : ts.formatDiagnostics(diagnostics, host));
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  process.stdout.write(`\n${errors} type error(s)\n`);
};

/** The program of one tsconfig, type-checked as `tsc -p <config> --noEmit` would. */
function typecheck(config) {
  const t = performance.now();
  let unrecoverable = null;
  const parsed = ts.getParsedCommandLineOfConfigFile(config, { noEmit: true }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => (unrecoverable = d) });
  if (!parsed) {
    print([unrecoverable]);
    failed = true;
    return null;
  }
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences, configFileParsingDiagnostics: parsed.errors });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  print(diagnostics);
  if (diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error)) failed = true;
  process.stderr.write(`check: typecheck ${config}: ${diagnostics.length === 0 ? 'ok' : 'FAILED'} (${since(t)})\n`);
  return program;
}

const programs = ['tsconfig.json', 'console/tsconfig.json'].map(typecheck).filter((p) => p !== null);

if (programs.length === 2) {
  const t = performance.now();
  const eslint = new ESLint({
    cwd: root,
    // the import-cycle test of test/unit/lint writes two files there while it runs, beside this
    // check: they are not the project's (tsconfig.json excludes them too)
    ignorePatterns: ['test/unit/lint/cycle-fixture-*/**'],
    // every TypeScript file linted belongs to one of the two projects; a file that belongs to
    // neither is an error of the parser (as it is for the project service)
    overrideConfig: [{ files: ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'], languageOptions: { parserOptions: { projectService: false, programs } } }],
  });
  const results = await eslint.lintFiles(['.']);
  const formatter = await eslint.loadFormatter('stylish');
  const out = await formatter.format(results);
  if (out) process.stdout.write(`${out}\n`);
  const errors = results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0);
  const warnings = results.reduce((n, r) => n + r.warningCount, 0);
  if (errors > 0) failed = true;
  if (errors === 0 && warnings > 0) {
    process.stdout.write(`ESLint found too many warnings (maximum: 0).\n`);
    failed = true;
  }
  process.stderr.write(`check: lint (${results.length} files): ${errors + warnings === 0 ? 'ok' : 'FAILED'} (${since(t)})\n`);
}
process.stderr.write(`check: ${failed ? 'FAILED' : 'ok'} (${since(t0)})\n`);
process.exitCode = failed ? 1 : 0;
