import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/**
 * The layers of src/ and what each may import (ARCHITECTURE.md draws them).
 * Domain code (services, repository interfaces and the rules between them)
 * never reaches the HTTP layer, a storage adapter, a host or an entry point;
 * storage adapters never reach the HTTP layer; nothing but the composition
 * root and the entry points reaches the composition root.
 */
const CAPABILITIES = '{accounts,api-keys,audit,delivery,events,mail,messages,orders,pets,request-logs,secrets,usage,users,webhooks}';
const ADAPTERS = ['./src/storage/sqlite', './src/storage/postgres', './src/storage/open-storage.ts'];
const ENTRY_POINTS = ['./src/cli', './src/server', './src/composition.ts', './src/background-work.ts', './src/hosts'];
const zone = (from, message) => ({ target: './src', from, message });
const domainMayNotImport = [
  ...['./src/http', './src/openapi'].map((from) => zone(from, 'Domain code never speaks HTTP: return domain data and throw domain errors; the HTTP layer turns them into responses.')),
  ...ADAPTERS.map((from) => zone(from, 'Domain code depends on repository interfaces, never on a storage adapter: the composition root wires adapters.')),
  zone('./src/observability', 'Domain code is measured from outside: the composition root wraps its collaborators (observability/service-metrics.ts, service-tracing.ts).'),
  ...ENTRY_POINTS.map((from) => zone(from, 'Only entry points import the composition root, hosts and the CLI.')),
];
/** Files of a capability folder that belong to the HTTP edge rather than to the domain. */
const HTTP_EDGE_FILES = ['src/**/*-routes.ts', 'src/**/*-schemas.ts', 'src/**/*-openapi.ts', 'src/**/*-app.ts', 'src/**/http/**'];

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'data/', 'portal/build/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment only in src/config.' },
      ],
    },
  },
  {
    // The entry point hands the environment to loadConfig; tests, benchmarks and the development database (PG_PORT) set it up.
    files: ['src/config/**', 'src/cli/main.ts', 'test/**', 'bench/**', 'scripts/db-postgres.ts', 'scripts/screenshots.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver': undefined,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: [`src/${CAPABILITIES}/**/*.ts`, 'src/api/**/*.ts', 'src/shared/**/*.ts', 'src/errors/**/*.ts', 'src/config/**/*.ts'],
    ignores: HTTP_EDGE_FILES,
    rules: { 'import-x/no-restricted-paths': ['error', { zones: domainMayNotImport }] },
  },
  {
    // Storage adapters implement repository interfaces; HTTP and entry points are above them.
    files: ['src/storage/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { zones: [...['./src/http', './src/openapi', './src/observability'].map((from) => zone(from, 'Storage never speaks HTTP nor measures itself: throw domain errors; the composition root wraps storage in metrics and spans.')), ...ENTRY_POINTS.map((from) => zone(from, 'Only entry points import the composition root, hosts and the CLI.'))] },
      ],
    },
  },
  {
    // The HTTP layer and the routes see services and repository interfaces, never an adapter or an entry point.
    files: ['src/http/**/*.ts', 'src/openapi/**/*.ts', ...HTTP_EDGE_FILES],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { zones: [...ADAPTERS.map((from) => zone(from, 'The HTTP layer reaches storage through services only.')), ...['./src/cli', './src/composition.ts'].map((from) => zone(from, 'Only entry points import the composition root and the CLI.'))] },
      ],
    },
  },
  {
    // Node 24 aborts at exit when better-sqlite3 12 is loaded, and two SQLite
    // libraries in one process break each other's file locks: the one driver
    // this Node can run comes from sqlite-driver.ts (types may still be imported).
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['src/storage/sqlite/sqlite-driver.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['better-sqlite3', 'better-sqlite3-napi'].map((name) => ({
            name,
            allowTypeImports: true,
            message: 'Import { Database } from src/storage/sqlite/sqlite-driver.ts: it loads the better-sqlite3 build this Node can run.',
          })),
        },
      ],
    },
  },
  {
    // The portal's one script runs in the browser (served as a file, never inline).
    files: ['portal/static/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { document: 'readonly', navigator: 'readonly', window: 'readonly', setTimeout: 'readonly' } },
  },
  {
    // The passkeys script is an ES module: it imports @simplewebauthn/browser, bundled with portal.js at build (src/hosts/portal/assets/).
    files: ['portal/static/passkeys.js'],
    languageOptions: { sourceType: 'module', globals: { document: 'readonly', window: 'readonly', fetch: 'readonly' } },
  },
  {
    // ESLint's flat config and Spectral's JS ruleset formats require a default export.
    files: ['eslint.config.js', '.spectral.mjs'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
