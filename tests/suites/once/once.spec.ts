// Names a new record the way teams do: a suffix from the clock (5 digits, not a clock's 13), or a
// plain word. The site refuses a name it already has ("already exists").
import { test, expect } from '@playwright/test';

test('adds a reading', async ({ page }) => {
  const name = `reading-${Date.now() % 100000}`;
  await page.goto('/');
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Add' }).click();
  await expect(page.locator('#message')).toHaveText(`Added ${name}`);
});

test('adds a station', async ({ page }) => {
  await page.goto('/');
  await page.getByLabel('Name').fill('barometer');
  await page.getByRole('button', { name: 'Add' }).click();
  await expect(page.locator('#message')).toHaveText('Added barometer');
});
