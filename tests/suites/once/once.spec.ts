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

// A Django-admin-like form: the traced run made the publisher, so the same site refuses its name
// when the import runs the workflow ("Publisher with this Name already exists.").
test('adds a publisher', async ({ page }) => {
  const name = `Acme ${Date.now() % 100000}`;
  await page.goto('/admin/library/publisher/add/');
  await page.getByLabel('Name:').fill(name);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { name: 'Select publisher to change' })).toBeVisible();
  await expect(page.locator('.messagelist')).toContainText(`The publisher “${name}” was added successfully.`);
});
