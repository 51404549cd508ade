// Lint configuration. Layering (see docs/architecture.md) is enforced with
// no-restricted-imports: domain ← wire ← nodes/*/step ← adapters ← http ← main.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

const drivers = ['kafkajs', '@kafkajs/*', 'cassandra-driver', '@clickhouse/*', 'chdb', 'chdb/*', 'koa', '@koa/*', 'ssh2', 'pino'];
const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.stack/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.mjs', 'deploy/*/*.mjs', 'scripts/*.mjs', 'src/adapters/*/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
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
  {
    files: ['src/domain/**/*.ts', 'src/x12/**/*.ts', 'src/errors.ts'],
    rules: restrict([...drivers, '**/wire/**', '**/nodes/**', '**/adapters/**', '**/http/**', '**/roles/**', 'node:fs', 'node:net', 'node:http'], 'domain and x12 are pure: no drivers, no I/O, no outer layers'),
  },
  {
    files: ['src/wire/**/*.ts'],
    rules: restrict([...drivers.filter((d) => d !== '@kafkajs/*'), '**/nodes/**', '**/adapters/**', '**/http/**', '**/roles/**'], 'wire codecs import only domain'),
  },
  {
    files: ['src/nodes/**/step.ts'],
    rules: restrict([...drivers, '**/adapters/**', '**/http/**', '**/roles/**'], 'steps are pure: no drivers, no adapters'),
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: restrict(['koa', '@koa/*', '**/http/**', '**/roles/**'], 'adapters never import the HTTP layer or roles'),
  },
  {
    files: ['src/http/**/*.ts'],
    rules: restrict(['**/roles/**', '**/main'], 'http never imports roles or main'),
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
