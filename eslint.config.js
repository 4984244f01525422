import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '.start/**',
      'node_modules/**',
      'coverage/**',
      '.azurite/**',
      'infra/**/*.json',
      '**/compat/**/bin/**',
      '**/compat/**/obj/**',
      '.tools/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name=/^(it|test|describe)$/][callee.property.name='only']",
          message: 'Focused tests are not allowed.',
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tool configuration in CommonJS (dependency-cruiser reads `.dependency-cruiser.cjs`), where `require` is how
    // a module loads another (the root's package.json, for its `exports`).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The console's page script runs in the browser.
    files: ['packages/cli/src/console/static/**/*.js'],
    languageOptions: {
      globals: { document: 'readonly', window: 'readonly', fetch: 'readonly', setTimeout: 'readonly' },
    },
  },
  {
    // The core is pure: no Functions host, no Azure SDK clients.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@azure/*', 'rhea', '../functions/*', '../adapters/*'] }],
    },
  },
  {
    // The test oracle works from the design alone: sharing the core's code would let a state-machine bug agree with itself.
    files: ['packages/cli/src/oracle.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/**', '../src/*', './*', '../*'],
              message: 'The oracle imports nothing: it must not share code with the core (src/) it checks.',
            },
          ],
        },
      ],
    },
  },
);
