// Playwright Test constructs real suites hold (expect.poll of lists and objects, an edit ended by a
// dispatched blur, the matchers of the web-first assertions), against the examples' TodoMVC.
// tests/importing/test_import_constructs.py traces it with `playwright test --trace on` and imports it.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.ts/,
  outputDir: process.env.RESULTS_DIR || 'test-results',
  // toHaveScreenshot's reference, written by the run itself (--update-snapshots): not kept here.
  snapshotPathTemplate: (process.env.RESULTS_DIR || 'test-results') + '/snapshots/{arg}{ext}',
  reporter: 'line',
  workers: 1,
  use: {
    baseURL: process.env.TODO_URL,
    launchOptions: {
      executablePath: process.env.REUSEIT_CHROMIUM || '/usr/bin/chromium',
      args: ['--disable-gpu', '--disable-quic'],
    },
  },
});
