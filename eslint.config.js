import js from '@eslint/js';
import { readdirSync } from 'node:fs';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// A feature imports another only through src/web/components or src/web/lib (shared/conventions.md).
const features = readdirSync('src/web/features', { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const featureBoundaries = features.map((f) => ({
  files: [`src/web/features/${f}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            group: ['@/features/*', `!@/features/${f}`, `!@/features/${f}/**`],
            message: 'A feature must not import another feature: move what both need to src/web/components or src/web/lib.',
          },
        ],
      },
    ],
  },
}));

// Query keys come from src/web/lib/query-keys.ts, one factory per feature.
const queryKeyRules = [
  { selector: "Property[key.name='queryKey'] > ArrayExpression", message: 'Take the query key from src/web/lib/query-keys.ts, not a literal.' },
  {
    selector: "CallExpression[callee.property.name=/^(get|set)QueryData$/][arguments.0.type='ArrayExpression']",
    message: 'Take the query key from src/web/lib/query-keys.ts, not a literal.',
  },
];

// Tests wait for a signal or a condition, never a fixed time (issue 32, item 7): the clock is
// waited on only in test/helpers/wait.ts, whose letTimePass and repeatEvery name the exceptions.
const FIXED_WAIT = 'Wait for a signal or a condition (until, in test/helpers/wait.ts), not a fixed time.';
const fixedWaitRules = [
  { selector: 'CallExpression[callee.name=/^set(Timeout|Interval)$/]', message: FIXED_WAIT },
  { selector: 'CallExpression[callee.property.name=/^(setTimeout|setInterval|waitForTimeout)$/]', message: FIXED_WAIT },
  { selector: 'ImportDeclaration[source.value=/^(node:)?timers/]', message: FIXED_WAIT },
];
const testFiles = ['test/**/*.{ts,mjs}', 'e2e/**/*.ts', 'src/**/*.test.{ts,tsx}'];

export default tseslint.config(
  { ignores: ['dist/**', 'data/**', 'node_modules/**', 'coverage/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // One-way imports: web and server never import each other; shared imports neither.
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './src/web', from: './src/server', message: 'The web app must not import server code.' },
            { target: './src/server', from: './src/web', message: 'The server must not import web code.' },
            { target: './src/shared', from: ['./src/web', './src/server'], message: 'src/shared imports nothing but zod.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-syntax': ['error', ...queryKeyRules],
    },
  },
  { files: ['src/web/lib/query-keys.ts'], rules: { 'no-restricted-syntax': 'off' } },
  { files: testFiles, ignores: ['test/helpers/wait.ts'], rules: { 'no-restricted-syntax': ['error', ...fixedWaitRules] } },
  // A later setting of a rule replaces an earlier one: the web app's tests keep both lists.
  { files: ['src/web/**/*.test.{ts,tsx}'], rules: { 'no-restricted-syntax': ['error', ...queryKeyRules, ...fixedWaitRules] } },
  ...featureBoundaries,
);
