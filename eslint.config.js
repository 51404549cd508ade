// Lint configuration. Layering (see docs/architecture.md) is enforced with
// no-restricted-imports: domain ← wire ← nodes/*/step ← adapters ← http ← main.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

const drivers = ['kafkajs', '@kafkajs/*', 'cassandra-driver', '@clickhouse/*', 'chdb', 'chdb/*', 'koa', '@koa/*', 'ssh2', 'pino'];
/** Metrics and tracing libraries: reached only through the metrics port (src/domain/metrics.ts), from adapters. */
const telemetry = ['prom-client', '@opentelemetry/*'];
/** Import patterns of one or more layers (folders under src/). */
const layers = (...names) => names.flatMap((n) => [`**/${n}/**`, `**/${n}`]);
/** The composition root and the process entry. */
const top = ['**/service', '**/service.ts', '**/main', '**/main.ts'];
const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.stack/**', '.cluster/**', '.data/**', 'coverage/**', '.tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.mjs', 'deploy/*/*.mjs', 'scripts/*.mjs', 'src/adapters/*/*.mjs', 'console/*.mjs'], maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16 }, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
    },
  },
  // Layers, innermost first. Each block names what the files may NOT import; patterns are given
  // with and without the .ts suffix, because imports here always carry it.
  {
    files: ['src/domain/**/*.ts', 'src/x12/**/*.ts', 'src/errors.ts'],
    rules: restrict([...drivers, ...telemetry, ...layers('wire', 'nodes', 'adapters', 'http', 'roles', 'admin', 'cli'), ...top, 'node:fs', 'node:net', 'node:http', 'node:worker_threads', 'node:child_process'], 'domain and x12 are pure: no drivers, no I/O, no outer layers'),
  },
  {
    files: ['src/wire/**/*.ts'],
    rules: restrict([...drivers.filter((d) => d !== '@kafkajs/*'), ...telemetry, ...layers('nodes', 'adapters', 'http', 'roles', 'admin', 'cli'), ...top], 'wire codecs import only domain'),
  },
  {
    files: ['src/nodes/**/step.ts', 'src/nodes/step.ts', 'src/nodes/outcomes.ts'],
    rules: restrict([...drivers, ...telemetry, ...layers('adapters', 'http', 'roles', 'admin', 'cli'), ...top, 'node:*', '**/runtime', '**/runtime.ts', '**/ports', '**/ports.ts', '**/node', '**/node.ts', '**/config-view', '**/config-view.ts'], 'steps are pure: no drivers, no adapters, no I/O, no ports'),
  },
  {
    files: ['src/nodes/**/*.ts'],
    ignores: ['src/nodes/**/step.ts', 'src/nodes/step.ts', 'src/nodes/outcomes.ts'],
    rules: restrict([...drivers.filter((d) => d !== 'pino'), ...telemetry, ...layers('adapters', 'http', 'roles', 'admin', 'cli'), ...top], 'node adapters reach stores and transports only through ports (src/nodes/ports.ts), never a driver or an adapter'),
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: restrict(['koa', '@koa/*', ...layers('http', 'roles', 'admin', 'cli'), ...top], 'adapters never import the HTTP layer, roles or the process entry'),
  },
  {
    files: ['src/http/**/*.ts'],
    rules: restrict([...telemetry, ...layers('roles', 'admin', 'cli'), ...top], 'http never imports roles, the composition root, the process entry or a metrics library (it counts through the metrics port)'),
  },
  {
    files: ['src/roles/**/*.ts'],
    rules: restrict([...layers('admin', 'cli'), ...top], 'roles sit below the composition root (service.ts) and the process entry (main.ts)'),
  },
  {
    files: ['src/service.ts'],
    rules: restrict([...layers('admin', 'cli'), '**/main', '**/main.ts'], 'the composition root never imports the process entry or the command line'),
  },
  {
    files: ['src/main.ts'],
    rules: restrict(layers('admin', 'cli'), 'the process entry never imports the command line'),
  },
  {
    files: ['src/admin/**/*.ts'],
    rules: restrict([...layers('http', 'roles', 'nodes', 'cli'), ...top], 'administration works over stores and the domain; it never imports the HTTP layer, roles or the command line'),
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: restrict(['koa', '@koa/*', 'cassandra-driver', 'kafkajs', '@clickhouse/*', ...layers('http', 'nodes')], 'the command line reaches stores through adapters and admin, and the service through main'),
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
