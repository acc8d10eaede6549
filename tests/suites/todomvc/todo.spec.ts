// TodoMVC's 2014 plain JavaScript example, tested as teams write Playwright tests: some locators
// by role, label or placeholder, others by the page's ids and classes.
import { test, expect, type Page } from '@playwright/test';

const TODO_ITEMS = ['buy some cheese', 'feed the cat', 'book a doctors appointment'];

async function createDefaultTodos(page: Page) {
  const newTodo = page.getByPlaceholder('What needs to be done?');
  for (const item of TODO_ITEMS) {
    await newTodo.fill(item);
    await newTodo.press('Enter');
  }
}

test.beforeEach(async ({ page }) => {
  await page.goto('/examples/vanillajs/');
});

test('should allow me to add todo items', async ({ page }) => {
  const newTodo = page.getByPlaceholder('What needs to be done?');
  await newTodo.fill(TODO_ITEMS[0]);
  await newTodo.press('Enter');
  await expect(page.locator('#todo-list li label')).toHaveText([TODO_ITEMS[0]]);
  await newTodo.fill(TODO_ITEMS[1]);
  await newTodo.press('Enter');
  await expect(page.locator('#todo-list li label')).toHaveText([TODO_ITEMS[0], TODO_ITEMS[1]]);
  await expect(page.locator('#todo-count')).toHaveText('2 items left');
});

test('should clear the input after an item is added', async ({ page }) => {
  await page.locator('#new-todo').fill(TODO_ITEMS[0]);
  await page.locator('#new-todo').press('Enter');
  await expect(page.locator('#new-todo')).toBeEmpty();
});

test('should allow me to mark items as complete', async ({ page }) => {
  await createDefaultTodos(page);
  await page.locator('#todo-list li').nth(1).locator('.toggle').check();
  await expect(page.locator('#todo-list li').nth(1)).toHaveClass('completed');
  await expect(page.locator('#todo-list li').nth(0)).not.toHaveClass('completed');
  await expect(page.locator('#todo-count')).toHaveText('2 items left');
});

test('should remove completed items when clear completed is clicked', async ({ page }) => {
  await createDefaultTodos(page);
  await page.locator('#todo-list li .toggle').first().check();
  await page.getByRole('button', { name: 'Clear completed' }).click();
  await expect(page.locator('#todo-list li')).toHaveCount(2);
  await expect(page.locator('#todo-list li label')).toHaveText([TODO_ITEMS[1], TODO_ITEMS[2]]);
});

test('should allow me to display active items', async ({ page }) => {
  await createDefaultTodos(page);
  await page.locator('#todo-list li .toggle').nth(1).check();
  await page.getByRole('link', { name: 'Active' }).click();
  await expect(page).toHaveURL(/#\/active$/);
  await expect(page.locator('#todo-list li')).toHaveCount(2);
  await expect(page.getByRole('link', { name: 'Active' })).toHaveClass('selected');
});

test('should persist its data', async ({ page }) => {
  await page.locator('#new-todo').fill(TODO_ITEMS[0]);
  await page.locator('#new-todo').press('Enter');
  await expect.poll(() => page.evaluate(() => JSON.parse(localStorage['todos-vanillajs']).todos.length)).toBe(1);
  await page.reload();
  await expect(page.locator('#todo-list li label')).toHaveText([TODO_ITEMS[0]]);
});
