// A test that fails on purpose: its trace is no demonstration (the import skips it with a line).
import { test, expect } from '@playwright/test';

test('expects a todo that was never added', async ({ page }) => {
  await page.goto('/examples/vanillajs/');
  await expect(page.locator('#todo-list li')).toHaveCount(1, { timeout: 300 });
});
