import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'data/'] },
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
    files: ['src/config/**', 'src/cli/main.ts', 'test/**', 'bench/**', 'scripts/db-postgres.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // ESLint's flat config and Spectral's JS ruleset formats require a default export.
    files: ['eslint.config.js', '.spectral.mjs'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
