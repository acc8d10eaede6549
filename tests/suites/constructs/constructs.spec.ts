// Constructs of real Playwright Test suites, each imported exactly or counted as not imported:
// expect.poll over a page script returning lists, objects, numbers, strings, booleans and null
// (compared as JavaScript compares), an edit ended by dispatchEvent('blur') or locator.blur(),
// and the web-first matchers a suite uses.
import { test, expect, type Page } from '@playwright/test';

const TODO_ITEMS = ['buy some cheese', 'feed the cat', 'book a doctors appointment'];

async function createDefaultTodos(page: Page) {
  for (const item of TODO_ITEMS) {
    await page.locator('#new-todo').fill(item);
    await page.locator('#new-todo').press('Enter');
  }
}

function stored(page: Page) {
  return page.evaluate(() => JSON.parse(localStorage['todos-vanillajs']).todos);
}

test.beforeEach(async ({ page }) => {
  await page.goto('/examples/vanillajs/');
});

test('polls the stored titles as a list', async ({ page }) => {
  await createDefaultTodos(page);
  await expect.poll(() => page.evaluate(() => JSON.parse(localStorage['todos-vanillajs']).todos.map((t: any) => t.title))).toEqual(TODO_ITEMS);
  await expect.poll(() => page.evaluate(() => JSON.parse(localStorage['todos-vanillajs']).todos.length)).toBe(3);
  await expect.poll(() => page.evaluate(() => JSON.parse(localStorage['todos-vanillajs']).todos.map((t: any) => t.title))).not.toEqual(['feed the cat']);
  await expect.poll(() => page.evaluate(() => JSON.parse(localStorage['todos-vanillajs']).todos.map((t: any) => t.title))).toContain('feed the cat');
});

test('polls an object, a string, a boolean and null', async ({ page }) => {
  await page.locator('#new-todo').fill('water the plants');
  await page.locator('#new-todo').press('Enter');
  await expect.poll(() => page.evaluate(() => {
    const t = JSON.parse(localStorage['todos-vanillajs']).todos[0];
    return { title: t.title, completed: t.completed, tags: [], note: null, nested: { n: 1.5 } };
  })).toStrictEqual({ title: 'water the plants', completed: false, tags: [], note: null, nested: { n: 1.5 } });
  await expect.poll(() => page.evaluate(() => document.querySelector('#todo-count')!.textContent)).toBe('1 item left');
  await expect.poll(() => page.evaluate(() => document.querySelector('#toggle-all') instanceof HTMLInputElement)).toBe(true);
  await expect.poll(() => page.evaluate(() => document.querySelector('.completed'))).toBeNull();
});

test('saves an edit on a dispatched blur', async ({ page }) => {
  await createDefaultTodos(page);
  const todoItems = page.locator('#todo-list li');
  await todoItems.nth(1).dblclick();
  await todoItems.nth(1).locator('.edit').fill('buy some sausages');
  await todoItems.nth(1).locator('.edit').dispatchEvent('blur');
  await expect(todoItems).toHaveText([TODO_ITEMS[0], 'buy some sausages', TODO_ITEMS[2]]);
  await expect.poll(() => page.evaluate(() => JSON.parse(localStorage['todos-vanillajs']).todos.map((t: any) => t.title))).toEqual([TODO_ITEMS[0], 'buy some sausages', TODO_ITEMS[2]]);
});

test('saves an edit when the field loses the focus', async ({ page }) => {
  await createDefaultTodos(page);
  const todoItems = page.locator('#todo-list li');
  await todoItems.nth(0).dblclick();
  await expect(todoItems.nth(0).locator('.edit')).toBeFocused();
  await expect(todoItems.nth(0).locator('.edit')).toBeEditable();
  await todoItems.nth(0).locator('.edit').fill('buy some bread');
  await todoItems.nth(0).locator('.edit').blur();
  await expect(todoItems.nth(0)).toHaveText('buy some bread');
  await expect(todoItems.nth(0).locator('.edit')).not.toBeAttached();
  await expect(page.locator('#new-todo')).not.toBeFocused();
});

test('web-first matchers of the list and its filters', async ({ page }) => {
  await createDefaultTodos(page);
  await page.locator('#todo-list li .toggle').first().check();
  await expect(page.locator('#todo-list li')).toHaveClass(['completed', '', '']);
  await expect(page.locator('#todo-list li').first()).toHaveClass(/completed/);
  await expect(page.locator('#todo-count')).toContainText('2 items');
  await expect(page.locator('#filters a').first()).toHaveAttribute('href', '#/');
  await expect(page.locator('#filters a').first()).toHaveAttribute('class', /selected/);
  await expect(page.locator('#clear-completed')).toBeEnabled();
  await expect(page.locator('#new-todo')).toHaveAttribute('placeholder', 'What needs to be done?');
  await expect(page.locator('#toggle-all')).toBeAttached();
  await expect(page.locator('#todo-list li').nth(1).locator('.destroy')).toBeHidden();
  await expect(page.locator('#todo-list li').nth(1).locator('.destroy')).toBeAttached();
  await expect(page.locator('#toggle-all')).not.toBeDisabled();
  await expect(page.locator('#new-todo')).toHaveJSProperty('value', '');
  await expect(page.locator('#todo-count')).toHaveCSS('display', 'block');
  await expect(page.locator('#todo-list li label')).toContainText(['cheese', 'cat']);
  await expect(page.locator('#new-todo')).toHaveId('new-todo');
  await expect(page.locator('#new-todo')).toHaveAttribute('autofocus');
  await expect(page.locator('#new-todo')).toHaveAccessibleName('What needs to be done?');
  await expect(page).toHaveTitle('VanillaJS • TodoMVC');
  await expect(page).toHaveURL(/vanillajs/);
});

test('keyboard and mouse calls of the page', async ({ page }) => {
  await page.locator('#new-todo').click();
  await page.keyboard.type('walk the dog');
  await page.keyboard.press('Enter');
  await page.locator('#new-todo').pressSequentially('feed the fish');
  await page.keyboard.press('Enter');
  await expect(page.locator('#todo-list li label')).toHaveText(['walk the dog', 'feed the fish']);
  await page.locator('#todo-list li label').first().hover();
  await page.locator('#todo-list li .destroy').first().click();
  await expect(page.locator('#todo-list li')).toHaveCount(1);
  await page.locator('#todo-list li .toggle').setChecked(true);
  await expect(page.locator('#todo-list li .toggle')).toBeChecked();
  await page.locator('#new-todo').focus();
  await page.locator('#new-todo').clear();
  await expect(page.locator('#new-todo')).toBeEmpty();
  await page.locator('#todo-list li label').first().click({ button: 'right' });
  await page.mouse.wheel(0, 100);
  await page.evaluate(() => { window.scrollTo(0, 0); });
  await page.mouse.click(5, 5);
  await expect(page.locator('#todo-count')).toHaveScreenshot('count.png', { maxDiffPixels: 1000 });
});
