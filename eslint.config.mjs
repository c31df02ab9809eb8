import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', '.cache/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A dropped promise in a worker is a lost job.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/explicit-module-boundary-types': 'off',
    },
  },
  {
    // The benches reach the apps and the test support through one documented kit
    // (bench/lib/kit.ts, docs/benchmarking.md), so what a bench may touch is listed in one place.
    files: ['bench/**/*.ts'],
    ignores: ['bench/lib/kit.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^((\\.\\./)+(apps|test)/|@app/(worker|api)(/|$))',
              message: 'Benches reach the apps and the test support through bench/lib/kit.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Typed by video-api.ts, which generated-client.test.ts writes from the running API and then
    // type-checks this file against with tsc; before that run the types do not exist.
    files: ['test/e2e/generated-client/calls.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['jest.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  prettier,
);
