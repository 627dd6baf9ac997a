// One lint config for the whole tree. typescript-eslint's type-aware rules use
// the real TypeScript checker (tsconfig.json), so a floating or misused
// promise is found wherever the types say it is one. Formatting is Prettier's
// job (eslint-config-prettier turns off the rules that would fight it); the
// 120-column limit is checked here because Prettier cannot wrap strings,
// comments or template literals.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      'dist/',
      'coverage/',
      'test-output/',
      'bench-output/',
      'reports/output/',
      '.stryker-tmp/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      // The one tsconfig's program, built once: 32 s and 2.3 GB for the tree against 43 s and 3.1 GB through the
      // project service. A TypeScript file outside tsconfig.json's include is refused by name (add it there: tsc
      // must check it too).
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@stylistic': stylistic },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests and benches read JSON outputs and rows as `any` on purpose: the assertions are the type check there.
    // The simulators read request bodies as `any` the same way: each operation validates what it uses, as AWS does.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'simulators/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  { files: ['bin/*.js', '*.js'], languageOptions: { globals: globals.node } },
  // The rehearsal's container bootstrap is plain Node ESM (run by node, not tsx), outside the TypeScript project.
  { files: ['rehearsal/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['rehearsal/*.mjs'], languageOptions: { globals: globals.node } },
  // The report and replay pages' scripts run in the browser, not in Node.
  { files: ['reports/assets/*.js'], languageOptions: { globals: globals.browser, sourceType: 'script' } },
  // ...except the maze drawing, a module without imports the replay file inlines as a classic script
  { files: ['reports/assets/maze-canvas.js'], languageOptions: { sourceType: 'module' } },
  // The viewer's pages load their scripts as ES modules.
  { files: ['viewer/assets/*.js'], languageOptions: { globals: globals.browser, sourceType: 'module' } },
);
