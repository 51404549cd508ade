// Lint configuration. Layering (see docs/architecture.md) is enforced with
// no-restricted-imports: domain ← wire ← nodes/*/step ← adapters ← http ← roles ← compose ← service ← main.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import tdx from './scripts/eslint-no-cycle.mjs';

const drivers = ['kafkajs', '@kafkajs/*', 'cassandra-driver', '@clickhouse/*', 'chdb', 'chdb/*', 'koa', '@koa/*', 'ssh2', 'pino'];
/** Metrics and tracing libraries: reached only through the metrics port (src/domain/metrics.ts), from adapters. */
const telemetry = ['prom-client', '@opentelemetry/*'];
/** Import patterns of one or more layers (folders under src/). */
const layers = (...names) => names.flatMap((n) => [`**/${n}/**`, `**/${n}`]);
/** The composition root (compose.ts builds the ports, service.ts the roles) and the process entry. */
const top = ['**/compose', '**/compose.ts', '**/service', '**/service.ts', '**/main', '**/main.ts'];
/** Every rule of a block is one pattern entry: `restrict(group, message, ...more entries)`. */
const restrict = (patterns, message, ...more) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }, ...more] }],
});
/** Node service folders (src/nodes/<service>/): none imports another; what two share is a src/nodes/*.ts module. */
const nodeFolders = readdirSync(new URL('./src/nodes/', import.meta.url), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
const noSiblingNode = { regex: '^\\.\\./[A-Za-z0-9_-]+/', message: 'node folders never import each other: code two node services share lives in a src/nodes/*.ts module' };
/** Pure modules at the top of src/nodes/ that steps share. */
const pureNodeModules = ['src/nodes/step.ts', 'src/nodes/outcomes.ts', 'src/nodes/input-step.ts', 'src/nodes/x12-rules.ts', 'src/nodes/outbound-files.ts'];
const stepBans = [...drivers, ...telemetry, ...layers('adapters', 'http', 'roles', 'admin', 'cli'), ...top, 'node:*', '**/runtime', '**/runtime.ts', '**/ports', '**/ports.ts', '**/node', '**/node.ts', '**/config-view', '**/config-view.ts'];
const stepMessage = 'steps are pure: no drivers, no adapters, no I/O, no ports';
const nodeBans = [...drivers.filter((d) => d !== 'pino'), ...telemetry, ...layers('adapters', 'http', 'roles', 'admin', 'cli'), ...top];
const nodeMessage = 'node adapters reach stores and transports only through ports (src/nodes/ports.ts), never a driver or an adapter';
/**
 * Adapter modules roles may take values from: those that open and instrument connections (Kafka
 * client, producers and consumer runner, schema registry, Cassandra and ClickHouse clients, the
 * embedded ClickHouse engine's HTTP host, the ClickHouse rows of the materializer, metrics,
 * tracing). Stores and transports are built by src/compose.ts alone and reach roles as ports.
 */
const roleAdapters = ['kafka/client', 'kafka/registry', 'kafka/consumer-runner', 'cassandra/client', 'clickhouse/client', 'clickhouse/host', 'clickhouse/materialize', 'metrics/[^/]+', 'tracing/[^/]+'];
const adapterValues = (allowed, message) => ({ regex: `^\\.{1,2}/(\\.\\./)*adapters/${allowed.length ? `(?!(${allowed.join('|')})\\.ts$)` : ''}`, allowTypeImports: true, message });
const httpAdapterMessage = 'http takes stores and transports as ports (built by src/compose.ts): it imports adapter types, never adapter values';
const httpBans = [...telemetry, ...layers('roles', 'admin', 'cli'), ...top];
const httpMessage = 'http never imports roles, the composition root, the process entry or a metrics library (it counts through the metrics port)';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.stack/**', '.cluster/**', '.data/**', 'coverage/**', '.tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.mjs', 'deploy/*/*.mjs', 'scripts/*.mjs', 'src/adapters/*/*.mjs', 'console/*.mjs'], maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16 }, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { tdx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // cycles among the project's own modules, through their run-time imports
      // (scripts/eslint-no-cycle.mjs: reads the module graph with the TypeScript parser alone)
      'tdx/no-cycle': 'error',
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
    files: pureNodeModules,
    rules: restrict(stepBans, stepMessage),
  },
  {
    files: nodeFolders.map((n) => `src/nodes/${n}/step.ts`),
    rules: restrict(stepBans, stepMessage, noSiblingNode),
  },
  {
    files: ['src/nodes/*.ts'],
    ignores: pureNodeModules,
    rules: restrict(nodeBans, nodeMessage),
  },
  {
    files: nodeFolders.map((n) => `src/nodes/${n}/**/*.ts`),
    ignores: ['src/nodes/**/step.ts'],
    rules: restrict(nodeBans, nodeMessage, noSiblingNode),
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: restrict(['koa', '@koa/*', ...layers('http', 'roles', 'admin', 'cli'), ...top], 'adapters never import the HTTP layer, roles or the process entry'),
  },
  {
    files: ['src/http/**/*.ts'],
    ignores: ['src/http/as2/**/*.ts'],
    rules: restrict(httpBans, httpMessage, adapterValues([], httpAdapterMessage)),
  },
  {
    // the AS2 endpoints speak the protocol through its codec (receive, verify, sign, MDN);
    // its stores come as ports like everywhere else in http/
    files: ['src/http/as2/**/*.ts'],
    rules: restrict(httpBans, httpMessage, adapterValues(['as2/index', 'as2/pipeline'], httpAdapterMessage)),
  },
  {
    files: ['src/roles/**/*.ts'],
    rules: restrict(
      [...layers('admin', 'cli'), ...top],
      'roles sit below the composition root (compose.ts, service.ts) and the process entry (main.ts)',
      adapterValues(roleAdapters, 'roles own connections and nothing else: stores and transports reach them as ports built by src/compose.ts'),
    ),
  },
  {
    files: ['src/service.ts'],
    rules: restrict(
      [...layers('admin', 'cli'), '**/main', '**/main.ts'],
      'the composition root never imports the process entry or the command line',
      adapterValues([], 'service.ts wires roles over the ports of src/compose.ts, the one module that builds adapters'),
    ),
  },
  {
    files: ['src/compose.ts'],
    rules: restrict([...layers('admin', 'cli'), '**/main', '**/main.ts', '**/service', '**/service.ts'], 'the composition root never imports the process entry or the command line'),
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
