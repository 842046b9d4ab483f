// The device authorization grant (RFC 8628) attacked in Chromium. Device-code phishing: the
// attacker's device asks for a code from one address and the victim types it in their own
// laptop's browser at another; the phone must show the attacker's device (its address, and the
// name it gave itself, labelled as its own claim), the location mismatch, the number to pick,
// and that a device code is a request from a device the person must be holding (RFC 8628
// §5.4). Login CSRF: a page on another origin auto-posts the attacker's user code from the
// victim's browser; it must get the form again, never scanid's QR page for that device.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launchBrowser, cli } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The attacker's device: Lagos, NG, AS64501 in the test database. */
const ATTACKER = '203.0.113.66';
/** The victim's phone: Stockholm, SE, AS64500. */
const VICTIM_PHONE = '198.51.100.7';
/** The victim's laptop, at home with the phone. */
const VICTIM_LAPTOP = '198.51.100.20';
/** What the attacker's device calls itself. */
const DEVICE_UA = 'Contoso Office TV/2.0';

let server, browser;

before(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'scanid-device-attacks-'));
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
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Living room TV',
    '--client-id',
    'tv',
    '--public',
    '--grant',
    'device_code',
  ]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The attacker's device asks for codes from its own address, under its own name. */
async function attackerDevice() {
  const r = await fetch(`${server.issuer}/protocol/openid-connect/auth/device`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': ATTACKER,
      'user-agent': DEVICE_UA,
    },
    body: 'client_id=tv&scope=openid%20offline_access',
  });
  assert.equal(r.status, 200, await r.clone().text());
  return r.json();
}

/** A browser context whose requests come from `address` (as the load balancer says). */
async function contextAt(address, options = {}) {
  const context = await browser.newContext({
    ...options,
    extraHTTPHeaders: { 'X-Forwarded-For': address },
  });
  return { context, page: await context.newPage() };
}

/** An attacker's page (on its own port) that auto-posts `userCode` to scanid's form. */
async function evilSite(userCode) {
  const html = `<!doctype html><form method="post" action="${server.issuer}/device">
<input name="user_code" value="${userCode}"></form>
<script>document.forms[0].submit()</script>`;
  const site = http.createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html);
  });
  await new Promise((r) => site.listen(0, '127.0.0.1', r));
  return site;
}

test('a page on another site auto-posting the attacker’s user code gets the form again, not the QR', async () => {
  const d = await attackerDevice();
  const site = await evilSite(d.user_code);
  const { port } = site.address();
  const victim = await contextAt(VICTIM_LAPTOP);
  // The victim used the form before (its cookie is there), which must not help the attacker.
  await victim.page.goto(`${server.issuer}/device`);
  // Another site (localhost is not 127.0.0.1), and the same site on another port.
  for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
    const posted = victim.page.waitForResponse(
      (r) => r.url() === `${server.issuer}/device` && r.request().method() === 'POST',
    );
    await victim.page.goto(`${origin}/`);
    const r = await posted;
    assert.equal(r.status(), 403, origin);
    await victim.page.locator('.error').waitFor();
    assert.match(await victim.page.textContent('.error'), /not sent from this page/);
    assert.equal(await victim.page.locator('#app-link').count(), 0, 'no QR login');
    assert.equal(await victim.page.inputValue('#user_code'), '', 'the code is not offered');
  }
  // The form itself still works: the victim typing a code gets the QR login.
  await victim.page.fill('#user_code', d.user_code);
  await victim.page.click('button[type="submit"]');
  await victim.page.locator('#app-link').waitFor();
  site.close();
  await victim.context.close();
});

test('a code typed in the victim’s browser: the phone shows the attacker’s device, the mismatch and the number to pick', async () => {
  const d = await attackerDevice();
  // The victim types the code on their laptop, at home.
  const laptop = await contextAt(VICTIM_LAPTOP);
  await laptop.page.goto(`${server.issuer}/device`);
  await laptop.page.fill('#user_code', d.user_code);
  await laptop.page.click('button[type="submit"]');
  const link = await laptop.page.locator('#app-link').getAttribute('data-qr-payload');
  // The victim's phone, beside the laptop, signs up and opens the QR.
  const phone = await contextAt(VICTIM_PHONE, {
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  await phone.page.goto(`${server.issuer}/app/`);
  await phone.page.locator('#signup-form').waitFor();
  await phone.page.fill('#name', 'device-victim');
  await phone.page.locator('#name-hint.ok').waitFor();
  await phone.page.fill('#display-name', 'Device Victim');
  await phone.page.fill('#country', 'SE');
  await phone.page.tap('#signup');
  await phone.page.locator('#identity').waitFor();
  await phone.page.goto(link);
  await phone.page.locator('#request').waitFor();
  assert.equal(await phone.page.textContent('#user-code'), d.user_code);
  assert.equal(await phone.page.textContent('#browser-ip'), ATTACKER);
  assert.equal(await phone.page.textContent('#browser-ua'), DEVICE_UA);
  assert.match(await phone.page.textContent('#where'), /its own claim, unchecked/);
  assert.match(await phone.page.textContent('#browser-place'), /Lagos, Nigeria/);
  assert.ok(await phone.page.locator('#flags li[data-flag="location_mismatch"]').isVisible());
  assert.match(
    await phone.page.textContent('#device-notice'),
    /request from a device\. Approve only if you are holding that device/,
  );
  // Typed in a browser, the login's page shows a number: the phone asks for it.
  assert.match(await phone.page.textContent('#pick'), /Pick the number/);
  await phone.page.tap('#deny');
  await phone.page.locator('#decided[data-status="denied"]').waitFor();
  await phone.context.close();
  await laptop.context.close();
});
