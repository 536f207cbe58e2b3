import { defineConfig } from 'vitest/config';
import { base, resolve, WORKERS } from './test/helpers/vitest-base';

/** The browser journeys: Debian's Chromium driven by playwright-core, against the built app on the real server. */
export default defineConfig({
  resolve,
  test: {
    ...base,
    include: ['e2e/**/*.spec.ts'],
    maxWorkers: WORKERS,
    // A worker keeps its modules from one spec file to the next, so that the files asking for the
    // same configuration share one server and one Chromium (sharedApp, e2e/helpers/app.ts).
    isolate: false,
    globalSetup: ['test/helpers/global-setup.ts', 'e2e/helpers/build-once.ts'],
    setupFiles: ['e2e/helpers/after-each-file.ts'],
    // Every journey gets two minutes: on a loaded 2-core CI run the longer ones (several pages, axe
    // scans in both themes) took more than one, and per-test timeouts kept being raised one failure
    // at a time. A journey that hangs still fails; how fast pages are is bench:web's to measure.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
