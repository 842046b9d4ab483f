// The admin console (issue 37) in Chromium: the operator (an identity given realm-admin by the
// CLI) opens {auth_url}/admin/ on a desktop, scans its QR with the scanid web app on a phone,
// picks the number, consents, and lands in the console; creates a client, logs in to it,
// finds that login in the events screen (filtered by client), disables it (its next refresh
// fails), imports tests/fixtures/keycloak-realm-export.json through the page (what came over
// and what did not), rotates a key on the keys screen and removes the retired one. An identity
// without a role is refused after its scan. The clients screen is walked by keyboard, the
// rotation pressed by keyboard; the login and keys screens fit 360 px.
//
// SCANID_README_SHOTS=dir writes the screenshots (console-*.png) there, as webapp.test.mjs does:
// `SCANID_README_SHOTS=docs/book/src/img` refreshes the book's and the README's pictures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  startServer,
  startCallback,
  launchBrowser,
  cli,
  enroll,
  approve,
  readQr,
  authorizationUrl,
} from './helpers.mjs';

const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
};

const EXPORT = fileURLToPath(new URL('../fixtures/keycloak-realm-export.json', import.meta.url));

let server, rp, browser;

before(async () => {
  server = await startServer(['--signup-rate-per-hour', '100']);
  rp = await startCallback();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

async function shot(page, name) {
  const dir = process.env.SCANID_README_SHOTS;
  if (dir) await page.screenshot({ path: path.join(dir, `console-${name}.png`), scale: 'css' });
}

/** A phone with the web app, signed up as `name`; resolves to its page. */
async function phoneSignedUp(name) {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  await page.goto(`${server.issuer}/app/`);
  await page.locator('#signup-form').waitFor();
  await page.fill('#name', name);
  await page.locator('#name-hint.ok').waitFor();
  await page.fill('#display-name', `${name} operator`);
  await page.fill('#country', 'SE');
  await page.tap('#signup');
  await page.locator('#identity').waitFor();
  return page;
}

/** The desktop opens the console and presses "Log in with scanid": the QR page. */
async function consoleLogin() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.base}/admin/`);
  await page.locator('#login').waitFor();
  return page;
}

/** The phone scans the desktop's QR from its image, picks the number the desktop shows. */
async function scanAndApprove(desktop, phone) {
  await desktop.locator('#qr svg').waitFor();
  const link = await readQr(desktop);
  await phone.goto(link);
  await phone.locator('#request').waitFor();
  assert.equal(await phone.textContent('#client-name'), 'scanid admin console');
  await phone.locator('#numbers button[data-number]:enabled').first().waitFor();
  const shown = desktop.locator('#number:not([hidden])');
  await shown.waitFor({ timeout: 10_000 });
  const n = /Pick (\d+)/.exec(await shown.textContent())[1];
  await phone.tap(`#number-${n}`);
  await phone.locator('#decided[data-status="approved"]').waitFor();
  await desktop.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  await desktop.click('button[name="consent"][value="allow"]');
  await desktop.waitForURL((u) => u.pathname === '/admin/', { timeout: 10_000 });
}

function authUrl(clientId, state) {
  return authorizationUrl(server, { client_id: clientId, redirect_uri: rp.url, state });
}

async function token(params) {
  const res = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: await res.json() };
}

test('the login screen: no admin screen without a login, usable at 360 px', async () => {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  await page.goto(`${server.base}/admin`);
  await page.locator('#login').waitFor();
  assert.equal(new URL(page.url()).pathname, '/admin/');
  assert.ok(await page.locator('#nav').isHidden(), 'no screens before a login');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 360, `no horizontal scroll at 360 px (${overflow})`);
  // Keycloak's console URL leads here.
  const kc = await page.request.get(`${server.base}/admin/${server.realm ?? 'scanid'}/console/`, {
    maxRedirects: 0,
  });
  assert.equal(kc.status(), 302);
  assert.equal(kc.headers().location, '/admin/');
  await context.close();
});

test('the operator scans into the console, creates a client, logs in to it, finds the login in events, disables it, imports a Keycloak export, rotates a key', async () => {
  const phone = await phoneSignedUp('olga');
  await cli([
    'identity',
    'add-role',
    '--name',
    'olga',
    '--role',
    'realm-admin',
    '--data-dir',
    server.dataDir,
  ]);
  const desktop = await consoleLogin();
  await shot(desktop, 'login');
  await desktop.click('#login');
  // A fresh login every time: prompt=login and max_age=0, PKCE S256.
  const asked = new URL(desktop.url());
  assert.equal(asked.searchParams.get('client_id'), 'scanid-admin-console');
  assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(asked.searchParams.get('prompt'), 'login');
  await scanAndApprove(desktop, phone);
  await desktop.locator('#nav:not([hidden])').waitFor({ timeout: 10_000 });
  assert.match(await desktop.textContent('#who'), /olga/);
  // The token is in memory only.
  const kept = await desktop.evaluate(() => [localStorage.length, sessionStorage.length]);
  assert.deepEqual(kept, [0, 0]);
  await shot(desktop, 'overview');

  // The clients screen, by keyboard: Tab from the Clients tab reaches its controls in order.
  await desktop.click('#nav [data-screen="clients"]');
  await desktop.locator('#new-client').waitFor();
  await desktop.focus('#nav [data-screen="clients"]');
  const reached = [];
  for (let i = 0; i < 8; i += 1) {
    await desktop.keyboard.press('Tab');
    reached.push(
      await desktop.evaluate(() => document.activeElement.id || document.activeElement.textContent),
    );
  }
  assert.ok(reached.includes('new-client'), reached.join());
  assert.ok(reached.includes('import'), reached.join());
  assert.ok(
    reached.some((t) => /^Edit /.test(t)),
    reached.join(),
  );
  await shot(desktop, 'clients');

  // Create, by keyboard: the form's controls are labelled and reachable.
  await desktop.focus('#new-client');
  await desktop.keyboard.press('Enter');
  await desktop.locator('#client-id').waitFor();
  for (const id of [
    'client-id',
    'client-name',
    'redirect-uris',
    'public-client',
    'service-account',
  ]) {
    assert.equal(await desktop.locator(`label[for="${id}"]`).count(), 1, `${id} is labelled`);
  }
  await desktop.fill('#client-id', 'shop');
  await desktop.fill('#client-name', 'The Shop');
  await desktop.fill('#redirect-uris', rp.url);
  await desktop.focus('#client-name');
  await desktop.keyboard.press('Enter');
  const secret = (await desktop.locator('#secret-value').textContent({ timeout: 10_000 })).trim();
  assert.ok(secret.length >= 32, 'the secret is shown once');
  await shot(desktop, 'client');

  // A person logs in to the new client.
  const alice = await enroll(server, 'alice');
  const other = await browser.newContext();
  const rpPage = await other.newPage();
  await rpPage.goto(authUrl('shop', 'shop-login'));
  assert.match(await rpPage.textContent('h1'), /The Shop/);
  const payload = await rpPage.locator('#app-link').getAttribute('data-qr-payload');
  const res = await approve(server, alice, payload, { page: rpPage });
  assert.equal(res.status, 'approved', JSON.stringify(res));
  await rpPage.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  await rpPage.click('button[name="consent"][value="allow"]');
  await rpPage.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  const code = new URL(rpPage.url()).searchParams.get('code');
  const tokens = await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: rp.url,
    client_id: 'shop',
    client_secret: secret,
  });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  await other.close();

  // The login is in the events screen, filtered by the client (events are stored within a
  // second or so: the filter is asked again until it shows).
  await desktop.click('#nav [data-screen="events"]');
  let found = false;
  for (let i = 0; i < 40 && !found; i += 1) {
    await desktop.locator('#event-filter').waitFor();
    await desktop.fill('#client', 'shop');
    await desktop.fill('#type', 'LOGIN');
    await desktop.click('#event-filter button[type="submit"]');
    await desktop.locator('main h1', { hasText: 'Events' }).waitFor();
    const rows = await desktop.locator('main tbody tr').allTextContents();
    found = rows.some((r) => r.includes('LOGIN') && r.includes('shop') && r.includes(alice.sub));
    if (!found) await desktop.waitForTimeout(250);
  }
  assert.ok(found, 'the login to shop is in the events screen');
  assert.equal(await desktop.inputValue('#client'), 'shop', 'the filter stays shown');
  await desktop.click('#nav [data-screen="clients"]');
  await desktop.click('[data-edit="shop"]');
  await desktop.locator('#toggle-client').waitFor();

  // Disable it in the console: its next refresh fails.
  await desktop.click('#toggle-client');
  await desktop.locator('#client-state', { hasText: 'disabled' }).waitFor();
  const refreshed = await token({
    grant_type: 'refresh_token',
    refresh_token: tokens.body.refresh_token,
    client_id: 'shop',
    client_secret: secret,
  });
  assert.ok(refreshed.status >= 400, `refresh after disable: ${refreshed.status}`);
  assert.ok(
    ['invalid_client', 'invalid_grant', 'unauthorized_client'].includes(refreshed.body.error),
    refreshed.body.error,
  );

  // Import the Keycloak export through the page: the answer lists what came over (its
  // clients) and what did not (built-in clients, users, what a client lost).
  await desktop.click('#nav [data-screen="clients"]');
  await desktop.click('#import');
  await desktop.setInputFiles('#import-file', EXPORT);
  await desktop.click('#import-form button[type="submit"]');
  await desktop.locator('#import-summary').waitFor({ timeout: 10_000 });
  assert.match(await desktop.textContent('#import-summary'), /Added 5\b/);
  const cameOver = await desktop.textContent('#import-came-over');
  for (const c of ['webshop', 'spa', 'billing-worker', 'legacy-portal', 'tv-app'])
    assert.ok(cameOver.includes(c), `${c} came over: ${cameOver}`);
  const notImported = await desktop.textContent('#import-not-imported');
  for (const n of ['account', 'admin-cli', 'alice', 'orders-api'])
    assert.ok(notImported.includes(n), `${n} is listed as not imported: ${notImported}`);
  assert.match(await desktop.textContent('#import-warnings'), /mapper/);
  await desktop.click('#nav [data-screen="clients"]');
  await desktop.locator('[data-edit="webshop"]').waitFor();

  // Rotate ES256 on the keys screen, by keyboard, confirming each step.
  await desktop.click('#nav [data-screen="keys"]');
  await desktop.locator('#rotate-keys').waitFor();
  const before = await desktop.locator('main tbody tr').count();
  await desktop.selectOption('#rotate-alg', 'ES256');
  assert.match(await desktop.textContent('#rotate-keys'), /Publish a next ES256 key/);
  await desktop.focus('#rotate-keys');
  await desktop.keyboard.press('Enter');
  assert.match(await desktop.textContent('#rotate-keys'), /Confirm/);
  await desktop.keyboard.press('Enter');
  await desktop.locator('[data-step="published"]').waitFor({ timeout: 10_000 });
  assert.equal(await desktop.locator('main tbody tr').count(), before + 1);
  assert.ok(
    (await desktop.locator('main tbody tr').allTextContents()).some((r) =>
      r.includes('published, not signing yet'),
    ),
  );
  // Activating it at once is refused, saying why.
  await desktop.selectOption('#rotate-alg', 'ES256');
  assert.match(await desktop.textContent('#rotate-keys'), /Activate the next ES256 key/);
  await desktop.click('#rotate-keys');
  await desktop.click('#rotate-keys');
  await desktop
    .locator('#keys-result [role="alert"]', { hasText: 'published less than 300 s ago' })
    .waitFor({ timeout: 10_000 });
  // The operator activates it (the test does not wait 5 minutes); the old key is retired and
  // the console removes it, confirming twice, anyway (its tokens may still be live).
  await cli(['keys', 'rotate', '--alg', 'ES256', '--force', '--data-dir', server.dataDir]);
  await desktop.click('#nav [data-screen="keys"]');
  const retired = desktop.locator('button[data-remove]');
  await retired.waitFor({ timeout: 10_000 });
  await desktop.setViewportSize({ width: 360, height: 740 });
  const wide = await desktop.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 360, `the keys screen fits 360 px (${wide})`);
  await desktop.setViewportSize({ width: 1280, height: 900 });
  await shot(desktop, 'keys');
  const kid = await retired.getAttribute('data-remove');
  await retired.click();
  await retired.click();
  await desktop
    .locator('#keys-result [role="alert"]', { hasText: 'may be live' })
    .waitFor({ timeout: 10_000 });
  const anyway = desktop.locator('#keys-result button[data-force]');
  await anyway.click();
  await anyway.click();
  await desktop.locator('#status', { hasText: `Key ${kid} removed` }).waitFor({ timeout: 10_000 });
  assert.equal(await desktop.locator(`button[data-remove="${kid}"]`).count(), 0);
  const jwks = await (await fetch(`${server.issuer}/protocol/openid-connect/certs`)).json();
  assert.ok(!jwks.keys.some((k) => k.kid === kid), 'the removed key left the JWKS');

  // Screens whose calls this server does not have yet say so; none fails silently.
  for (const name of ['identities', 'events', 'keys']) {
    await desktop.click(`#nav [data-screen="${name}"]`);
    await desktop
      .locator('main h1')
      .filter({ hasText: new RegExp(name, 'i') })
      .waitFor();
  }
  // Log out: the scanid session ends, and with it the console (back to its login screen).
  await desktop.click('#logout');
  const confirm = desktop.locator('form button[type="submit"]');
  await Promise.race([
    desktop.waitForURL((u) => u.pathname === '/admin/', { timeout: 10_000 }),
    confirm.waitFor({ timeout: 10_000 }).then(() => confirm.click()),
  ]);
  await desktop.locator('#login').waitFor({ timeout: 10_000 });
  await phone.context().close();
  await desktop.context().close();
});

test('an identity without an admin role is refused after its scan', async () => {
  const phone = await phoneSignedUp('nora');
  const desktop = await consoleLogin();
  await desktop.click('#login');
  await scanAndApprove(desktop, phone);
  await desktop.locator('#no-role').waitFor({ timeout: 10_000 });
  assert.match(await desktop.textContent('#no-role'), /this identity has no admin role/i);
  assert.ok(await desktop.locator('#nav').isHidden());
  await shot(desktop, 'no-role');
  await phone.context().close();
  await desktop.context().close();
});
