// The approval screen against pressure tricks (issue 24), in Chromium with separate browser
// contexts at separate addresses: an attacker who copies the victim phone's User-Agent still
// gets "another device" on the victim's phone (the service decides "started here" from the
// login's own browser cookie, never from the User-Agent); a login started in the phone's own
// browser says "Started on this phone"; Approve arms only after a delay once the screen is
// visible, and again after the page was hidden or lost focus; Deny works at once.
//
// The addresses: `scanid serve --trusted-proxy 127.0.0.1` believes `X-Forwarded-For`, as behind
// an operator's load balancer; each context sends its own through `extraHTTPHeaders`. On the
// embedded store, and on DynamoDB when the test command started the emulator
// (SCANID_TEST_AWS_ENDPOINT, as tests/run does).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, startCallback, launchBrowser, cli, readQr } from './helpers.mjs';

/** The victim's phone (a mobile context); the attacker copies its User-Agent. */
const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
};
/** RFC 5737 documentation addresses. */
const ATTACKER_IP = '203.0.113.7';
const VICTIM_IP = '198.51.100.20';

const emulator = process.env.SCANID_TEST_AWS_ENDPOINT;
if (emulator) {
  // For the child processes (the server and the CLI), as tests/src/lib.rs's aws_env().
  Object.assign(process.env, {
    AWS_ENDPOINT_URL: emulator,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_EC2_METADATA_DISABLED: 'true',
  });
}

/** The flags that select a fresh DynamoDB table and its KMS key in the emulator. */
async function dynamoFlags() {
  const table = `scanid-js-${Math.random().toString(36).slice(2)}`;
  const out = await cli([
    'aws',
    'init',
    '--table',
    table,
    '--signing',
    'kms-envelope',
    '--create-kms-key',
  ]);
  return ['--table', table, '--signing', 'kms-envelope', '--kms-key-id', out.kms_key_id];
}

let server, browser, rp;

before(async () => {
  browser = await launchBrowser();
  rp = await startCallback();
});

after(async () => {
  await browser?.close();
  await rp?.close();
});

/** `scanid serve` on `storeFlags`, behind a trusted proxy, with the relying party "Shop". */
async function startShop(storeFlags) {
  const s = await startServer([
    '--trusted-proxy',
    '127.0.0.1',
    '--signup-rate-per-hour',
    '100',
    ...storeFlags,
  ]);
  await cli([
    'client',
    'create',
    '--data-dir',
    s.dataDir,
    '--name',
    'Shop',
    '--client-id',
    'shop',
    '--redirect-uri',
    rp.url,
    ...storeFlags,
  ]);
  return s;
}

/** Shop's authorization request. */
function shopLogin() {
  const q = new URLSearchParams({
    client_id: 'shop',
    redirect_uri: rp.url,
    response_type: 'code',
    scope: 'openid profile',
    state: `st-${Math.random().toString(36).slice(2)}`,
  });
  return `${server.issuer}/protocol/openid-connect/auth?${q}`;
}

/** The victim's phone at VICTIM_IP, signed up in the web app as `name`. */
async function victimPhone(name) {
  const context = await browser.newContext({
    ...PHONE,
    extraHTTPHeaders: { 'X-Forwarded-For': VICTIM_IP },
  });
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

/** Opens Shop's login in `page`: its QR code, read from the image as a camera does. */
async function qrLink(page) {
  await page.goto(shopLogin());
  await page.locator('#qr svg').waitFor();
  return readQr(page);
}

/** The relying party is told no: `page` lands on its callback with access_denied. */
async function toldNo(page) {
  await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  assert.equal(new URL(page.url()).searchParams.get('error'), 'access_denied');
}

// What approves: the number buttons of number matching (every scanned QR login has them).
const APPROVE = '.decision.approve';
const approveState = (page) =>
  page
    .locator(APPROVE)
    .first()
    .evaluate((b) => ({ disabled: b.disabled, armed: b.dataset.armed }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Approve stays disarmed for a while, then arms by itself (the delay is 1.5 s). */
async function armsOnlyAfterTheDelay(page, why) {
  assert.deepEqual(
    await approveState(page),
    { disabled: true, armed: 'false' },
    `${why}: disarmed at first`,
  );
  await sleep(800);
  assert.equal((await approveState(page)).disabled, true, `${why}: still disarmed 0.8 s later`);
  await page.locator(`${APPROVE}:enabled`).first().waitFor({ timeout: 5_000 });
  assert.deepEqual(await approveState(page), { disabled: false, armed: 'true' }, `${why}: armed`);
}

/** Makes the page look hidden (`hidden: true`) or visible again, as a switch of tabs does. */
function setVisibility(page, hidden) {
  return page.evaluate((h) => {
    Object.defineProperty(document, 'visibilityState', {
      configurable: true,
      get: () => (h ? 'hidden' : 'visible'),
    });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

for (const store of ['embedded', ...(emulator ? ['DynamoDB'] : [])]) {
  describe(`on the ${store} store`, () => {
    before(async () => {
      server = await startShop(store === 'DynamoDB' ? await dynamoFlags() : []);
    });
    after(async () => {
      await server?.stop();
    });

    test('an attacker copying the phone\'s User-Agent from another address: the phone says "another device"; Approve arms after the delay, again after hiding or losing focus', async () => {
      // The attacker's browser, at its own address, claims to be the victim's phone.
      const attacker = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        userAgent: PHONE.userAgent,
        extraHTTPHeaders: { 'X-Forwarded-For': ATTACKER_IP },
      });
      const attackerPage = await attacker.newPage();
      // The victim's phone (signed up first: a forwarded code lives 3 s) scans the code.
      const victim = await victimPhone('victim');
      const link = await qrLink(attackerPage);
      assert.equal(await attackerPage.evaluate(() => navigator.userAgent), PHONE.userAgent);
      const res = await victim.page.goto(link);
      assert.equal(
        res.headers()['cross-origin-opener-policy'],
        'same-origin',
        'the app page keeps no opener',
      );
      await victim.page.locator('#request').waitFor();
      const where = victim.page.locator('#where');
      assert.match(await where.getAttribute('class'), /\bwarn\b/);
      assert.match(await where.textContent(), /started on another device/);
      assert.doesNotMatch(await where.textContent(), /Started on this phone/);
      // The User-Agents are indeed equal; the address is the attacker's.
      assert.equal(await victim.page.textContent('#browser-ua'), PHONE.userAgent);
      assert.equal(await victim.page.textContent('#browser-ip'), ATTACKER_IP);

      // Deny is as prominent as each number (an Approve): same size and weight, side by side.
      const box = (sel) => victim.page.locator(sel).first().boundingBox();
      const [a, d] = [await box(APPROVE), await box('#deny')];
      assert.equal(Math.round(a.width), Math.round(d.width));
      assert.equal(Math.round(a.height), Math.round(d.height));
      assert.equal(Math.round(a.y), Math.round(d.y), 'side by side');
      const weight = (sel) =>
        victim.page
          .locator(sel)
          .first()
          .evaluate((b) => getComputedStyle(b).fontWeight + getComputedStyle(b).fontSize);
      assert.equal(await weight(APPROVE), await weight('#deny'));

      await armsOnlyAfterTheDelay(victim.page, 'on arrival');
      // The page is hidden (another app on top): disarmed, and it does not arm while hidden.
      await setVisibility(victim.page, true);
      assert.equal((await approveState(victim.page)).disabled, true, 'disarmed when hidden');
      await sleep(2_000);
      assert.equal((await approveState(victim.page)).disabled, true, 'never armed while hidden');
      await setVisibility(victim.page, false);
      await armsOnlyAfterTheDelay(victim.page, 'visible again');
      // The window loses focus (an overlay, a popup) and gets it back: the delay starts again.
      await victim.page.evaluate(() => window.dispatchEvent(new Event('blur')));
      assert.equal((await approveState(victim.page)).disabled, true, 'disarmed on blur');
      await victim.page.evaluate(() => window.dispatchEvent(new Event('focus')));
      await armsOnlyAfterTheDelay(victim.page, 'focused again');

      // The victim denies; the attacker's browser is told no.
      await victim.page.tap('#deny');
      await victim.page.locator('#decided[data-status="denied"]').waitFor();
      await toldNo(attackerPage);
      await attacker.close();
      await victim.context.close();
    });

    test('a login started in the phone\'s own browser says "Started on this phone"; Deny works at once', async () => {
      const phone = await victimPhone('selfie');
      // The phone's browser opens the login itself, and its camera opens the code in a new tab.
      const loginPage = await phone.context.newPage();
      const link = await qrLink(loginPage);
      await phone.page.bringToFront();
      await phone.page.goto(link);
      await phone.page.locator('#request').waitFor();
      const where = phone.page.locator('#where');
      assert.match(await where.getAttribute('class'), /\bok\b/);
      assert.match(await where.textContent(), /Started on this phone/);
      assert.equal(await phone.page.textContent('#browser-ip'), VICTIM_IP);
      // Deny does not wait for the delay that Approve does.
      assert.equal((await approveState(phone.page)).disabled, true);
      assert.equal(await phone.page.locator('#deny').isEnabled(), true);
      await phone.page.tap('#deny', { timeout: 1_000 });
      await phone.page.locator('#decided[data-status="denied"]').waitFor();
      await toldNo(loginPage);
      await phone.context.close();
    });

    test('the same phone\'s app, scanning a login of another browser context with the same User-Agent, says "another device"', async () => {
      // Same address and User-Agent as the phone, another browser (no cookie of the login): only
      // the cookie tells them apart.
      const other = await browser.newContext({
        ...PHONE,
        extraHTTPHeaders: { 'X-Forwarded-For': VICTIM_IP },
      });
      const phone = await victimPhone('twin');
      const link = await qrLink(await other.newPage());
      await phone.page.goto(link);
      await phone.page.locator('#request').waitFor();
      assert.match(await phone.page.locator('#where').getAttribute('class'), /\bwarn\b/);
      assert.equal(await phone.page.textContent('#browser-ua'), PHONE.userAgent);
      assert.equal(await phone.page.textContent('#browser-ip'), VICTIM_IP);
      await other.close();
      await phone.context.close();
    });
  });
}
