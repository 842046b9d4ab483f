// ESLint over the web app's and the pages' JavaScript (shared/http/static) and these tests:
// the recommended rules, with each file's globals. Run from the repository root, as tests/run
// does: `tests/js/node_modules/.bin/eslint -c tests/js/eslint.config.js shared/http/static tests/js`.
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    // The web app (`/app/`) and the admin console (`/admin/`): ES modules in the browser.
    files: ['shared/http/static/app/**/*.js', 'shared/http/static/admin/**/*.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
  {
    // The web app's service worker: a classic worker script.
    files: ['shared/http/static/app/sw.js'],
    languageOptions: { sourceType: 'script', globals: globals.serviceworker },
  },
  {
    // The login-flow pages' scripts, inlined with the page's nonce: classic scripts in ES5, as
    // written for every browser a relying party's users may have.
    files: ['shared/http/static/*.js'],
    languageOptions: {
      ecmaVersion: 5,
      sourceType: 'script',
      // Typed arrays came with WebCrypto and WebAuthn, which the passkey button needs anyway.
      globals: { ...globals.browser, Uint8Array: 'readonly' },
    },
    // ES5 has no `catch {}` without a binding.
    rules: { 'no-unused-vars': ['error', { caughtErrors: 'none' }] },
  },
  {
    // The browser and interoperability tests: ES modules in Node (their page.evaluate
    // callbacks run in the browser).
    files: ['tests/js/**/*.mjs', 'tests/js/eslint.config.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
  },
];
