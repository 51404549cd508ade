// ESLint rule `tdx/no-cycle`: an import of one of the project's own modules that leads back, through
// the modules it imports at run time, to the importing file is an error. Imports of packages
// (anything but a relative path) and type-only imports (`import type`, `export type … from`,
// imports whose every name is a type) are not followed, since they cannot make a cycle at run time.
//
// The module graph behind a linted file is read from disk with the TypeScript parser alone (no
// ESTree conversion, no resolver plugins): each module's import list is kept while its size and
// modification time stay the same, so a lint of the whole tree reads every module once.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';

/** path -> { key, deps } (key: size and mtime when read; deps: resolved paths of run-time imports) */
const graph = new Map();
/** path -> stat key or null (absent), for the duration of one linted file */
let stats = new Map();

function statKey(path) {
  let key = stats.get(path);
  if (key !== undefined) return key;
  try {
    const s = statSync(path);
    key = s.isFile() ? `${s.size}:${s.mtimeMs}` : null;
  } catch {
    key = null;
  }
  stats.set(path, key);
  return key;
}

const suffixes = ['', '.ts', '.tsx', '.js', '.mjs', '/index.ts', '/index.js'];

/** The file a relative specifier names (NodeNext style `.js` for `.ts` too), or null. */
function resolveSpecifier(from, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../') && specifier !== '.' && specifier !== '..') return null;
  const base = resolve(dirname(from), specifier);
  if (base.includes('/node_modules/')) return null;
  for (const suffix of suffixes) if (statKey(base + suffix) !== null) return base + suffix;
  const js = /\.(m?)js$/.exec(base);
  if (js) {
    const ts = base.slice(0, -js[0].length) + (js[1] ? '.mts' : '.ts');
    if (statKey(ts) !== null) return ts;
  }
  return null;
}

const scriptKind = (path) => (path.endsWith('.tsx') ? ts.ScriptKind.TSX : path.endsWith('.ts') || path.endsWith('.mts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);

/** Run-time import specifiers of a module's source text (static imports, re-exports, import()). */
function runtimeSpecifiers(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, scriptKind(path));
  const out = [];
  for (const st of source.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const clause = st.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : null;
      if (clause && !clause.name && named && named.length > 0 && named.every((e) => e.isTypeOnly)) continue;
      out.push(st.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      if (st.isTypeOnly) continue;
      const named = st.exportClause && ts.isNamedExports(st.exportClause) ? st.exportClause.elements : null;
      if (named && named.length > 0 && named.every((e) => e.isTypeOnly)) continue;
      out.push(st.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(st) && !st.isTypeOnly && ts.isExternalModuleReference(st.moduleReference) && ts.isStringLiteral(st.moduleReference.expression)) {
      out.push(st.moduleReference.expression.text);
    }
  }
  if (/\bimport\s*\(/.test(text)) {
    const visit = (node) => {
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [arg] = node.arguments;
        if (arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** The resolved run-time imports of a module on disk (empty when it cannot be read). */
function depsOf(path) {
  const key = statKey(path);
  const known = graph.get(path);
  if (known && known.key === key) return known.deps;
  let deps = [];
  if (key !== null) {
    try {
      const specifiers = runtimeSpecifiers(path, readFileSync(path, 'utf8'));
      deps = [...new Set(specifiers.map((s) => resolveSpecifier(path, s)).filter((p) => p !== null))];
    } catch {
      deps = [];
    }
  }
  graph.set(path, { key, deps });
  return deps;
}

const isTypeOnlyImport = (node) =>
  node.importKind === 'type' || (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type'));
const isTypeOnlyExport = (node) =>
  node.exportKind === 'type' || (node.type === 'ExportNamedDeclaration' && node.specifiers.length > 0 && node.specifiers.every((s) => s.exportKind === 'type'));

// eslint-disable-next-line @typescript-eslint/explicit-module-boundary-types -- a JavaScript module: ESLint gives the rule its context
function create(context) {
  const filename = context.physicalFilename;
  if (!filename || filename === '<text>' || filename === '<input>') return {};
  stats = new Map();
  /** modules known to lead back to this file, and modules known not to */
  const live = new Set([filename]);
  const dead = new Set();
  // A search that finds no way back proves it for every module it visited; one that finds a way
  // back proves it only for the modules on that path (the others may have been cut short by a
  // module still on the path), so only the first kind is kept as `dead`.
  const reaches = (target) => {
    const seen = new Set();
    const walk = (path) => {
      if (live.has(path)) return true;
      if (dead.has(path) || seen.has(path)) return false;
      seen.add(path);
      for (const dep of depsOf(path)) {
        if (walk(dep)) {
          live.add(path);
          return true;
        }
      }
      return false;
    };
    if (walk(target)) return true;
    for (const path of seen) dead.add(path);
    return false;
  };
  const check = (node, specifier) => {
    if (typeof specifier !== 'string') return;
    const target = resolveSpecifier(filename, specifier);
    if (target === null || target === filename) return;
    if (reaches(target)) context.report({ node, messageId: 'cycle', data: { target: specifier } });
  };
  return {
    ImportDeclaration(node) {
      if (!isTypeOnlyImport(node)) check(node, node.source.value);
    },
    ExportNamedDeclaration(node) {
      if (node.source && !isTypeOnlyExport(node)) check(node, node.source.value);
    },
    ExportAllDeclaration(node) {
      if (!isTypeOnlyExport(node)) check(node, node.source.value);
    },
    ImportExpression(node) {
      if (node.source.type === 'Literal') check(node, node.source.value);
    },
    TSImportEqualsDeclaration(node) {
      if (node.importKind !== 'type' && node.moduleReference.type === 'TSExternalModuleReference') check(node, node.moduleReference.expression.value);
    },
  };
}

const meta = {
  type: 'problem',
  docs: { description: "Forbid an import of the project's own modules that leads back to the importing file" },
  schema: [],
  messages: { cycle: 'Dependency cycle: {{target}} leads back to this file through its imports' },
};

export default { meta: { name: 'tdx' }, rules: { 'no-cycle': { meta, create } } };
