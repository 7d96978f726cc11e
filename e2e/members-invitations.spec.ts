/**
 * Membership by invitation, in the browser: an organization admin invites an email that has no Hub
 * account yet; that person signs in, sees the invitation on their account page and accepts it; they then
 * appear among the members. A role change is an explicit action with a confirmation stating it: arrow
 * keys on the role select apply nothing. At 390 px the member rows keep their actions on screen.
 * Leaving the organization asks first; the last admin is told they cannot leave.
 */
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { checkPage, signedIn, signIn, uniqueSuffix } from './helpers';

test.describe.configure({ mode: 'serial' });

const run = process.env.E2E_RUN ?? uniqueSuffix();
/**
 * journeys.spec.ts expects to start on an empty Hub (its admin is the first user, the overview counts one
 * user), so this file is named to run after it (files run in name order on one worker). Run alone, it
 * still signs in the journeys' admin first, so the platform's first user is the same person in any order.
 */
const platformAdmin = { email: `admin-${run}@example.test`, name: 'Ada Admin' };
const owner = { email: `inv-owner-${run}@example.test`, name: 'Ivy Owner' };
const bob = { email: `inv-bob-${run}@example.test`, name: 'Bob Invitee' };
const org = { name: `Invite Co ${run}`, slug: `invite-co-${run}` };

let ownerContext: BrowserContext;
let bobContext: BrowserContext;
let ownerPage: Page;
let bobPage: Page;

async function newPage(browser: Browser) {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

async function toast(page: Page, text: string | RegExp) {
  await expect(page.locator('[data-sonner-toast]').filter({ hasText: text }).first()).toBeVisible();
}

const memberRow = (page: Page, email: string) => page.getByTestId('member-row').filter({ hasText: email });

test.beforeAll(async ({ browser }) => {
  const first = await newPage(browser);
  await signedIn(first.page, platformAdmin.email, platformAdmin.name);
  await first.context.close();
  ({ context: ownerContext, page: ownerPage } = await newPage(browser));
  ({ context: bobContext, page: bobPage } = await newPage(browser));
});

test.afterAll(async () => {
  await ownerContext?.close();
  await bobContext?.close();
});

test('an admin invites an email without a Hub account; the person signs in, accepts, and appears among the members', async () => {
  await signIn(ownerPage, owner.email, owner.name, { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  await ownerPage.getByLabel('Organization name').fill(org.name);
  await expect(ownerPage.getByLabel('Slug')).toHaveValue(org.slug);
  await ownerPage.getByRole('button', { name: 'Create organization' }).click();
  await toast(ownerPage, `Organization ${org.name} created`);

  // Bob has never signed in: the invitation is answered like any other.
  await ownerPage.getByLabel('Email').fill(bob.email.toUpperCase());
  await ownerPage.getByLabel('Role', { exact: true }).selectOption('member');
  await ownerPage.getByRole('button', { name: 'Send invitation' }).click();
  await toast(ownerPage, `Invitation for ${bob.email} created`);
  const pending = ownerPage.getByRole('list', { name: 'Pending invitations' });
  await expect(pending).toContainText(bob.email);
  await expect(memberRow(ownerPage, bob.email)).toHaveCount(0);
  await checkPage(ownerPage, 'account with a pending invitation');

  await signIn(bobPage, bob.email, bob.name, { from: '/signin?callbackUrl=/account', expectPath: /\/account$/ });
  const invitation = bobPage.getByTestId('received-invitation').filter({ hasText: org.name });
  await expect(invitation).toContainText(`Invited by ${owner.name}`);
  await checkPage(bobPage, 'account with a received invitation');
  await invitation.getByRole('button', { name: `Accept invitation to ${org.name}` }).click();
  await toast(bobPage, `You joined ${org.name} as a member`);
  await expect(bobPage.getByTestId('org-name')).toHaveText(org.name);
  await expect(bobPage.getByTestId('received-invitation')).toHaveCount(0);

  await ownerPage.reload();
  await expect(memberRow(ownerPage, bob.email)).toContainText(bob.name);
  await expect(ownerPage.getByRole('list', { name: 'Pending invitations' })).toHaveCount(0);
  await expect(ownerPage.getByText('No pending invitations.')).toBeVisible();
});

test('a role change needs its confirmation; ArrowDown on the role select applies nothing', async () => {
  const page = ownerPage;
  const calls: string[] = [];
  page.on('request', (req) => {
    if (req.url().includes('account.updateMember')) calls.push(req.url());
  });
  const select = page.getByLabel(`Role of ${bob.email}`, { exact: true });
  await expect(select).toHaveValue('member');
  await select.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowDown');
  // The keys did reach the select (it shows the picked value) ...
  await expect(select).toHaveValue('admin');
  // ... but picking only prepares the change: no dialog, no request.
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.waitForTimeout(500);
  expect(calls).toEqual([]);
  // Nothing was stored: after a reload Bob is still a member.
  await page.reload();
  await expect(page.getByLabel(`Role of ${bob.email}`, { exact: true })).toHaveValue('member');
  await bobPage.reload();
  await expect(bobPage.getByText('Only organization admins create, re-issue and revoke keys.')).toBeVisible();

  // The explicit action: pick, press Change role, read the confirmation, confirm.
  await page.getByLabel(`Role of ${bob.email}`, { exact: true }).selectOption('admin');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.getByRole('button', { name: `Change role of ${bob.email}` }).click();
  const dialog = page.getByRole('dialog', { name: `Make ${bob.name} an admin of ${org.name}?` });
  await expect(dialog).toBeVisible();
  await checkPage(page, 'role change confirmation');
  // Cancel changes nothing.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(calls).toEqual([]);
  await expect(page.getByLabel(`Role of ${bob.email}`, { exact: true })).toHaveValue('member');

  await page.getByLabel(`Role of ${bob.email}`, { exact: true }).selectOption('admin');
  await page.getByRole('button', { name: `Change role of ${bob.email}` }).click();
  await dialog.getByRole('button', { name: 'Make admin' }).click();
  await toast(page, `${bob.name} is now an admin of ${org.name}`);
  expect(calls).toHaveLength(1);
  await page.reload();
  await expect(page.getByLabel(`Role of ${bob.email}`, { exact: true })).toHaveValue('admin');
});

test('at 390 px the member rows keep emails readable and every action on screen', async () => {
  const page = ownerPage;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  const row = memberRow(page, bob.email);
  for (const control of [
    row.getByLabel(`Role of ${bob.email}`, { exact: true }),
    row.getByRole('button', { name: `Change role of ${bob.email}` }),
    row.getByRole('button', { name: `Remove ${bob.email}` }),
  ]) {
    const box = (await control.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.width).toBeGreaterThan(40);
  }
  // The email is not wrapped letter by letter: it takes one or two lines, not dozens.
  const email = row.getByText(bob.email, { exact: true });
  const lines = await email.evaluate((el) =>
    Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)),
  );
  expect(lines).toBeLessThanOrEqual(2);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('leaving asks first; the last admin is told they cannot leave', async () => {
  // Bob (now an admin, with the owner as the other admin) leaves.
  await bobPage.goto('/account');
  await bobPage.getByRole('button', { name: 'Leave organization' }).click();
  const leave = bobPage.getByRole('dialog', { name: `Leave ${org.name}?` });
  await expect(leave).toContainText('personal access tokens');
  await leave.getByRole('button', { name: 'Leave organization' }).click();
  await toast(bobPage, `You left ${org.name}`);
  await expect(bobPage.getByLabel('Organization name')).toBeVisible();

  await ownerPage.reload();
  await expect(memberRow(ownerPage, bob.email)).toHaveCount(0);
  await ownerPage.getByRole('button', { name: 'Leave organization' }).click();
  const last = ownerPage.getByRole('dialog', { name: `Leave ${org.name}?` });
  await last.getByRole('button', { name: 'Leave organization' }).click();
  await expect(last.getByRole('alert')).toContainText('last admin');
  await last.getByRole('button', { name: 'Cancel' }).click();
  await expect(ownerPage.getByTestId('org-name')).toHaveText(org.name);
});
