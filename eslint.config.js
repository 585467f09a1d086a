// ESLint (flat config) for the code folders: typescript-eslint's recommended rules, lines of at most
// 120 characters, `any` as a warning, and no import cycles. `npm run lint` runs it (with tsc, knip and
// the route lint); prettier (`npm run format`) does the layout, so max-len only catches what prettier
// cannot break (long comments; strings, URLs and regular expressions are allowed to run long).
import { defineConfig } from 'eslint/config';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';

export default defineConfig(
  {
    // what the build, the engine (.engine/) and the browser tests (artifacts/) write, and the connectors' data
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.engine/**',
      'artifacts/**',
      'console-ui/out/**',
      'routes/**',
      'schemas/**',
      'transforms/**',
      'values/**',
    ],
  },
  js.configs.recommended,
  // Not type-aware: tsc checks the types, and the type-checked set (measured: 85 s of CPU against 23 s,
  // 1.8 GB) would mostly repeat the `any` warnings as some 3,000 no-unsafe-* errors at their uses.
  tseslint.configs.recommended,
  {
    files: ['**/*.{ts,js,mjs}'],
    plugins: { 'import-x': importX },
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'max-len': [
        'error',
        { code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true },
      ],
      '@typescript-eslint/no-explicit-any': 'warn',
      // a leading `_` marks a parameter or binding that is there for its position (a handler's
      // signature, a destructured rest that drops keys); the rest must be used
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'none',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // the tests' regular expressions match YAML indentation and aligned CLI output space for space
    files: ['test/**/*.ts'],
    rules: { 'no-regex-spaces': 'off' },
  },
  {
    // the console's page runs in the browser
    files: ['console-ui/**/*.js'],
    ignores: ['console-ui/build.mjs'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
