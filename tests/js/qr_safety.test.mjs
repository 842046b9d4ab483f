// Issue 24 in a real browser: the living QR and number matching, with two browser contexts: the
// computer (a desktop context on the demo relying party's login page) and the phone (a
// mobile-emulated context running the scanid web app at http://127.0.0.1:PORT). The phone reads
// the QR the way a camera does (the image, decoded with jsQR) and the person picks the number
// the computer's page shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, readQr } from './helpers.mjs';

let server, browser;

const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
};

before(async () => {
  // Codes are accepted for 6 s here, as in every test server (helpers.mjs).
  server = await startServer(['--signup-rate-per-hour', '100']);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A phone with a fresh identity signed up in the web app. */
async function phoneWithIdentity(name) {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  await page.goto(`${server.issuer}/app/`);
  await page.locator('#signup-form').waitFor();
  await page.fill('#name', name);
  await page.locator('#name-hint.ok').waitFor();
  await page.fill('#display-name', `${name} display`);
  await page.fill('#country', 'SE');
  await page.tap('#signup');
  await page.locator('#identity').waitFor();
  return { context, page };
}

/** The computer: the demo's login page with its QR code. */
async function computerLogin() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(server.demo);
  await page.click('#login');
  await page.locator('#qr svg').waitFor();
  return { context, page };
}

/** What a camera reads: the QR image, decoded. */
async function scanQr(page) {
  return readQr(page);
}

/** The number the computer's page shows, once the phone has scanned. */
async function shownNumber(page) {
  const shown = page.locator('#number:not([hidden])');
  await shown.waitFor({ timeout: 10_000 });
  const text = await shown.textContent();
  const m = /^Pick (\d{2}) in the scanid app$/.exec(text);
  assert.ok(m, text);
  return Number(m[1]);
}

/** The three numbers the phone offers. */
async function offered(page) {
  await page.locator('#numbers').waitFor();
  return page
    .locator('#numbers button[data-number]')
    .evaluateAll((bs) => bs.map((b) => Number(b.dataset.number)));
}

test('the QR code changes every second on the computer, with no more polls than before', async () => {
  const computer = await computerLogin();
  let polls = 0;
  computer.page.on('request', (r) => {
    if (r.url().includes('/login-actions/status')) polls += 1;
  });
  const seen = new Set();
  for (let i = 0; i < 6; i += 1) {
    seen.add(await computer.page.locator('#app-link').getAttribute('data-qr-payload'));
    await computer.page.waitForTimeout(1000);
  }
  assert.ok(seen.size >= 5, `a new code every second: ${seen.size} in 6 s`);
  assert.ok(polls <= 4, `the page polls every 2 s, not every second: ${polls} polls in 6 s`);
  // Each poll says which codes the page has (`after`) and gets only the later ones: the page
  // adds them to its own and keeps drawing a new code every second, poll after poll.
  const asked = [];
  computer.page.on('request', (r) => {
    if (r.url().includes('/login-actions/status')) asked.push(r.url());
  });
  const later = new Set();
  for (let i = 0; i < 8; i += 1) {
    later.add(await computer.page.locator('#app-link').getAttribute('data-qr-payload'));
    await computer.page.waitForTimeout(1000);
  }
  assert.ok(later.size >= 7, `still a new code every second: ${later.size} in 8 s`);
  assert.ok(asked.length >= 2, `${asked.length} polls in 8 s`);
  assert.ok(
    asked.every((u) => /[?&]after=\d+(&|$)/.test(u)),
    asked.join(' '),
  );
  await computer.context.close();
});

test('the phone picks the number shown on the computer: the login completes', async () => {
  const phone = await phoneWithIdentity('picker');
  const computer = await computerLogin();
  await phone.page.goto(await scanQr(computer.page));
  const choices = await offered(phone.page);
  const n = await shownNumber(computer.page);
  assert.equal(choices.length, 3);
  assert.ok(choices.includes(n), `${n} among ${choices}`);
  assert.equal(await computer.page.locator('#qr svg').count(), 0, 'the code is gone once scanned');
  await phone.page.tap(`#number-${n}`);
  await phone.page.locator('#decided[data-status="approved"]').waitFor();
  await computer.page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  await computer.page.click('button[name="consent"][value="allow"]');
  await computer.page.waitForURL(/\/demo\/callback/, { timeout: 10_000 });
  assert.equal(JSON.parse(await computer.page.textContent('#claims')).preferred_username, 'picker');
  await computer.context.close();
  await phone.context.close();
});

test("a wrong pick cancels the login, and the computer's page says so", async () => {
  const phone = await phoneWithIdentity('wrongpick');
  const computer = await computerLogin();
  await phone.page.goto(await scanQr(computer.page));
  const choices = await offered(phone.page);
  const n = await shownNumber(computer.page);
  const wrong = choices.find((c) => c !== n);
  await phone.page.tap(`#number-${wrong}`);
  await phone.page.locator('#cancelled').waitFor();
  assert.match(await phone.page.textContent('#cancelled'), /number/);
  const state = computer.page.locator('#state[data-reason="wrong_number"]');
  await state.waitFor({ timeout: 10_000 });
  assert.match(await state.textContent(), /did not match.*cancelled/);
  // Then the computer is sent back to the demo, refused.
  await computer.page.waitForURL(/\/demo\/callback/, { timeout: 15_000 });
  assert.match(await computer.page.textContent('main'), /access_denied/);
  // The phone's recent logins say what happened to it.
  await phone.page.tap('button:has-text("Done")');
  await phone.page.tap('#activity');
  const entry = phone.page.locator('#activity-list li').first();
  await entry.waitFor();
  assert.match(await entry.textContent(), /cancelled \(a wrong number was picked\)/);
  await computer.context.close();
  await phone.context.close();
});

test('a second phone scanning the login cancels it, and both screens say so', async () => {
  const first = await phoneWithIdentity('firstphone');
  const second = await phoneWithIdentity('secondphone');
  const computer = await computerLogin();
  // The attacker photographed the code a second later than the victim.
  const link1 = await scanQr(computer.page);
  await computer.page.waitForTimeout(1100);
  const link2 = await scanQr(computer.page);
  assert.notEqual(link1, link2);
  await first.page.goto(link1);
  await offered(first.page);
  await second.page.goto(link2);
  await second.page.getByRole('heading', { name: 'Login cancelled' }).waitFor();
  assert.match(await second.page.textContent('main'), /another phone/);
  const state = computer.page.locator('#state[data-reason="second_device"]');
  await state.waitFor({ timeout: 10_000 });
  assert.match(await state.textContent(), /second phone/);
  await computer.context.close();
  await first.context.close();
  await second.context.close();
});

test('a login started on the phone itself: the app says the number its own login page showed', async () => {
  const phone = await phoneWithIdentity('samephone');
  const page = await phone.context.newPage();
  await page.goto(server.demo);
  await page.click('#login');
  const link = await page.locator('#app-link').getAttribute('href');
  // "On your phone? Open the scanid app": the login page is left behind.
  await page.goto(link);
  await page.locator('#number-here').waitFor();
  const n = Number(/showed (\d+)/.exec(await page.textContent('#number-here'))[1]);
  assert.ok((await offered(page)).includes(n));
  await page.tap(`#number-${n}`);
  await page.locator('#decided[data-status="approved"]').waitFor();
  // Another browser opening the same kind of link is told no number.
  const other = await phoneWithIdentity('otherphone');
  const computer = await computerLogin();
  await other.page.goto(await scanQr(computer.page));
  await offered(other.page);
  assert.equal(await other.page.locator('#number-here').count(), 0);
  await computer.context.close();
  await other.context.close();
  await phone.context.close();
});
