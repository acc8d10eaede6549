// A team's own tests of a site that refuses a name it already has (tests/importing/test_import_once.py).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.ts/,
  outputDir: process.env.RESULTS_DIR || 'test-results',
  reporter: 'line',
  workers: 1,
  use: {
    baseURL: process.env.SITE_URL,
    launchOptions: {
      executablePath: process.env.REUSEIT_CHROMIUM || '/usr/bin/chromium',
      args: ['--disable-gpu', '--disable-quic'],
    },
  },
});
