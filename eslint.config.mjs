import path from 'node:path';
import js from '@eslint/js';
import oxlint from 'eslint-plugin-oxlint';
import tseslint from 'typescript-eslint';

// The rules are run by oxlint (.oxlintrc.json: the same recommended sets, ~100× less CPU); the last entry below turns
// off here every rule oxlint runs. ESLint stays for rules that need type information, of which there are none yet:
// `npm test` (scripts/test.mjs) runs oxlint only. Add such a rule here, and `npm run lint:eslint` to scripts/test.mjs.

export default tseslint.config(
  {
    ignores: ['node_modules/**', '.next/**', 'dist/**', 'core/dist/**', '.hub-data/**', 'drizzle/**', 'next-env.d.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests read JSON responses of many shapes.
    files: ['tests/**', 'e2e/**', 'bench/**', '**/*.test.ts', 'core/tests/**', 'core/e2e/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  ...oxlint.buildFromOxlintConfigFile(path.join(import.meta.dirname, '.oxlintrc.json')),
  {
    // oxlint runs these too: the first two are rules the plugin above does not list yet (oxlint's nursery), the
    // other two are syntax errors in modules, which oxlint's parser reports.
    rules: { 'no-undef': 'off', 'no-useless-assignment': 'off', 'no-octal': 'off', 'no-dupe-args': 'off' },
  },
);
