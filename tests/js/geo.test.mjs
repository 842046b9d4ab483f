// Where a login came from (issue 24), in the web app: an attacker's desktop browser and the
// victim's phone in separate browser contexts at separate addresses (the server trusts
// 127.0.0.1 as its load balancer, and each context sends its own X-Forwarded-For), with a
// GeoIP database the test writes itself (tests/py/geoip_db.py, PyPI mmdb-writer). The phone
// shows the attacker's city, country and network, its own place, the time and the warnings;
// a client that refuses the warning cannot be approved, and the recent logins say so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser, cli } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Lagos, NG, AS64501 in the test database. */
const ATTACKER = '203.0.113.66';
/** Stockholm, SE, AS64500. */
const VICTIM = '198.51.100.7';
const PHONE_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

let server, browser;

before(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'scanid-geoip-'));
  execFileSync(process.env.SCANID_TEST_PYTHON ?? 'python3', [
    path.join(here, '..', 'py', 'geoip_db.py'),
    dir,
  ]);
  server = await startServer([
    '--trusted-proxy',
    '127.0.0.1',
    '--geoip-db',
    path.join(dir, 'both.mmdb'),
  ]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A browser context whose requests come from `address` (as the load balancer says). */
async function contextAt(address, options = {}) {
  const context = await browser.newContext({
    ...options,
    extraHTTPHeaders: { 'X-Forwarded-For': address },
  });
  return { context, page: await context.newPage() };
}

/** The victim's phone with a new identity `name`. */
async function victimPhone(name) {
  const phone = await contextAt(VICTIM, {
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    userAgent: PHONE_UA,
  });
  await phone.page.goto(`${server.issuer}/app/`);
  await phone.page.locator('#signup-form').waitFor();
  await phone.page.fill('#name', name);
  await phone.page.locator('#name-hint.ok').waitFor();
  await phone.page.fill('#display-name', `${name} display`);
  await phone.page.fill('#country', 'SE');
  await phone.page.tap('#signup');
  await phone.page.locator('#identity').waitFor();
  return phone;
}

/** The attacker opens the demo's login page (copying the phone's User-Agent): the QR link. */
async function attackerLink() {
  const desktop = await contextAt(ATTACKER, { userAgent: PHONE_UA });
  await desktop.page.goto(server.demo);
  await desktop.page.click('#login');
  const link = await desktop.page.locator('#app-link').getAttribute('data-qr-payload');
  assert.ok(link?.startsWith(`${server.issuer}/app/scan?`), link);
  return { desktop, link };
}

test("the phone shows the attacker's place and network beside its own, with the warning", async () => {
  const phone = await victimPhone('geo-victim');
  const { desktop, link } = await attackerLink();
  await phone.page.goto(link);
  await phone.page.locator('#where-from').waitFor();
  const browserPlace = await phone.page.textContent('#browser-place');
  assert.match(
    browserPlace,
    /^203\.0\.113\.66 · Lagos, Nigeria \(NG\) · network AS64501 Example West Africa Networks$/,
  );
  assert.match(
    await phone.page.textContent('#phone-place'),
    /198\.51\.100\.7 · Stockholm, Sweden \(SE\)/,
  );
  assert.ok(await phone.page.locator('#requested-at time').getAttribute('datetime'));
  assert.ok(await phone.page.locator('#flags li[data-flag="location_mismatch"]').isVisible());
  assert.equal(await phone.page.locator('#refused').count(), 0, 'warn is the default');
  await phone.page.tap('#deny');
  await phone.page.locator('#decided[data-status="denied"]').waitFor();
  // The recent logins show where it came from.
  await phone.page.tap('button:has-text("Done")');
  await phone.page.tap('#activity');
  const entry = phone.page.locator('#activity-list li').first();
  await entry.waitFor();
  assert.match(await entry.textContent(), /denied/);
  assert.match(await entry.textContent(), /Lagos, Nigeria \(NG\)/);
  // Its identity approved nothing yet: no place to call new.
  assert.equal(await entry.locator('[data-flags]').getAttribute('data-flags'), 'location_mismatch');
  await desktop.context.close();
  await phone.context.close();
});

test('a client that refuses a location mismatch: the phone says it cannot be approved, and the approval is refused', async () => {
  await cli([
    'client',
    'update',
    '--client-id',
    'scanid-demo',
    '--refuse-on',
    'location_mismatch',
    '--data-dir',
    server.dataDir,
  ]);
  const phone = await victimPhone('geo-refused');
  const { desktop, link } = await attackerLink();
  await phone.page.goto(link);
  await phone.page.locator('#refused').waitFor();
  assert.match(await phone.page.textContent('#refused'), /cannot be approved/);
  // Any of the numbers: the client's policy refuses the approval whichever is picked.
  await phone.page.locator('.decision.approve').first().tap();
  await phone.page.locator('.note.error').waitFor();
  assert.match(
    await phone.page.textContent('.note.error'),
    /does not allow this login.*location_mismatch.*cancelled/,
  );
  // The attacker's page is sent back to the demo with access_denied.
  await desktop.page.waitForURL(/\/demo\/callback/, { timeout: 10_000 });
  assert.match(await desktop.page.textContent('main'), /access_denied|denied/i);
  await cli([
    'client',
    'update',
    '--client-id',
    'scanid-demo',
    '--refuse-on',
    'none',
    '--data-dir',
    server.dataDir,
  ]);
  await desktop.context.close();
  await phone.context.close();
});
