// A real Playwright Test suite against the examples' TodoMVC (tests/importing/test_import_suites.py runs it with
// `npx playwright test --trace on` and imports its traces). Browser: the project's Chromium.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.ts/,
  outputDir: process.env.RESULTS_DIR || 'test-results',
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
