// The QR login in a real browser (Chromium via playwright-core): the page, the reference app
// approving, the page moving on by itself, consent, and the redirect; plus deny, an expired
// QR, a replayed approval and completion from a second browser context.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  BIN,
  startServer,
  startCallback,
  launchBrowser,
  cli,
  enroll,
  approve,
  authorizationUrl,
} from './helpers.mjs';

let server, rp, browser, alice;

before(async () => {
  server = await startServer(['--login-ttl', '12']);
  rp = await startCallback();
  browser = await launchBrowser();
  await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Browser Test RP',
    '--client-id',
    'browser-rp',
    '--redirect-uri',
    rp.url,
  ]);
  alice = await enroll(server, 'alice');
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

function authUrl(state, extra = {}) {
  return authorizationUrl(server, {
    client_id: 'browser-rp',
    redirect_uri: rp.url,
    state,
    nonce: `nonce-${state}`,
    ...extra,
  });
}

async function qrPayload(page) {
  const link = page.locator('#app-link');
  await link.waitFor();
  return link.getAttribute('data-qr-payload');
}

test('log in by QR: the page moves on by itself, consent, back to the RP with code, state, session_state, iss', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(authUrl('happy'));
  assert.match(await page.textContent('h1'), /Log in to Browser Test RP/);
  assert.ok((await page.locator('#qr svg').count()) === 1, 'inline SVG QR code');
  const payload = await qrPayload(page);
  assert.ok(payload.startsWith(`${server.issuer}/app/scan?session=`), payload);
  const res = await approve(server, alice, payload, { page });
  assert.equal(res.status, 'approved', JSON.stringify(res));
  // No click: the page polls and moves to the consent page by itself.
  await page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  assert.match(await page.textContent('h1'), /Browser Test RP wants to access/);
  await page.click('button[name="consent"][value="allow"]');
  await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  const landed = new URL(page.url());
  assert.ok(landed.searchParams.get('code').length >= 43);
  assert.equal(landed.searchParams.get('state'), 'happy');
  assert.equal(landed.searchParams.get('iss'), server.issuer);
  assert.ok(landed.searchParams.get('session_state'));
  await page.screenshot({ path: process.env.SCANID_SCREENSHOT ?? '/tmp/scanid-consent-done.png' });
  await ctx.close();
});

test('throttled or failing status polls are retried, honouring Retry-After: the page still moves on', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  // The first three polls meet what API Gateway or an outage answers: 429, 503, a network error.
  let seen = 0;
  const answered = [];
  await page.route('**/login-actions/status**', async (route) => {
    seen += 1;
    if (seen === 1) {
      answered.push(429);
      return route.fulfill({
        status: 429,
        headers: { 'Retry-After': '1' },
        body: '{"message":"Too Many Requests"}',
      });
    }
    if (seen === 2) {
      answered.push(503);
      return route.fulfill({ status: 503, headers: { 'Retry-After': '1' }, body: '{}' });
    }
    if (seen === 3) {
      answered.push('abort');
      return route.abort('connectionreset');
    }
    answered.push('server');
    return route.continue();
  });
  await page.goto(authUrl('throttled'));
  const payload = await qrPayload(page);
  await approve(server, alice, payload, { page });
  // On to the consent page, or past it when alice's consent from the first test is remembered.
  await page.waitForURL(
    (u) => /login-actions\/consent/.test(u.toString()) || u.toString().startsWith(rp.url),
    { timeout: 20_000 },
  );
  assert.deepEqual(answered.slice(0, 4), [429, 503, 'abort', 'server']);
  await ctx.close();
});

test('the page shows the number as the phone scans: its status request waits for the scan', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const polls = [];
  page.on('request', (r) => {
    if (r.url().includes('/login-actions/status')) polls.push(new URL(r.url()));
  });
  await page.goto(authUrl('held', { prompt: 'consent' }));
  const payload = await qrPayload(page);
  // The phone scans (the reference app, which then asks for the number the page shows).
  const app = spawn(
    BIN,
    ['app', 'approve', '--key-file', alice.file, '--server', server.base, payload],
    { env: { ...process.env, RUST_LOG: 'warn' }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let err = '';
  const scanned = await new Promise((resolve, reject) => {
    app.stderr.on('data', (d) => {
      err += d;
      if (/Which number does the login page show\?/.test(err)) resolve(Date.now());
    });
    app.once('close', () => reject(new Error(`the app ended: ${err}`)));
  });
  await page.locator('#number').waitFor({ state: 'visible', timeout: 5000 });
  const shownAfter = Date.now() - scanned;
  // A request sent as the page loaded, answered at the scan (or, if the page needed new
  // codes first, the one after it): no poll interval to wait.
  assert.ok(polls.length <= 2, polls.map(String).join('\n'));
  assert.ok(polls.every((u) => u.searchParams.get('seen') === 'code'));
  assert.ok(shownAfter < 1000, `the number showed ${shownAfter} ms after the scan`);
  const shown = (await page.textContent('#number')).match(/\d+/)[0];
  app.stdin.end(`${shown}\n`);
  // The next request waits for the decision, and the page moves on when it lands.
  const before = polls.length;
  await page.waitForURL(/login-actions\/consent/, { timeout: 10_000 });
  assert.equal(polls.length, before + 1, polls.map(String).join('\n'));
  assert.equal(polls.at(-1).searchParams.get('seen'), 'number');
  await ctx.close();
});

test('a login the server no longer knows (404) ends the polling with a message', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  let polls = 0;
  await page.route('**/login-actions/status**', (route) => {
    polls += 1;
    return route.fulfill({ status: 404, body: '{"error":"not_found"}' });
  });
  await page.goto(authUrl('gone'));
  await page.waitForFunction(
    () => /no longer valid/.test(document.getElementById('state').textContent),
    null,
    { timeout: 10_000 },
  );
  await page.waitForTimeout(2500);
  assert.equal(polls, 1, 'no poll after the 404');
  await ctx.close();
});

test('the QR rotates while the page is open', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(authUrl('rotate'));
  const first = await qrPayload(page);
  await page.screenshot({ path: '/tmp/scanid-qr-page.png' });
  await page.waitForFunction(
    (old) => document.getElementById('app-link').getAttribute('data-qr-payload') !== old,
    first,
    { timeout: 12_000 },
  );
  const second = await qrPayload(page);
  assert.notEqual(second, first);
  assert.equal(
    new URL(second).searchParams.get('session'),
    new URL(first).searchParams.get('session'),
  );
  await ctx.close();
});

test('deny on the phone: the page moves on and the RP gets access_denied', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(authUrl('deny'));
  const res = await approve(server, alice, await qrPayload(page), { page, deny: true });
  assert.equal(res.status, 'denied');
  await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  const landed = new URL(page.url());
  assert.equal(landed.searchParams.get('error'), 'access_denied');
  assert.equal(landed.searchParams.get('state'), 'deny');
  assert.equal(landed.searchParams.get('iss'), server.issuer);
  assert.equal(landed.searchParams.get('code'), null);
  await ctx.close();
});

test('an expired QR offers a fresh start and cannot be approved', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(authUrl('expire'));
  const payload = await qrPayload(page);
  await page.locator('#restart').waitFor({ timeout: 20_000 });
  assert.match(await page.textContent('#state'), /expired/);
  const res = await approve(server, alice, payload, { page });
  assert.ok(res.error, 'approving an expired QR fails');
  // Start again: a new session with a new QR.
  await page.click('#restart');
  const fresh = await qrPayload(page);
  assert.notEqual(
    new URL(fresh).searchParams.get('session'),
    new URL(payload).searchParams.get('session'),
  );
  await ctx.close();
});

test('a replayed approval is refused', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(authUrl('replay'));
  const payload = await qrPayload(page);
  assert.equal((await approve(server, alice, payload, { page })).status, 'approved');
  const again = await approve(server, alice, payload, { page });
  assert.ok(again.error, 'second approval of the same QR');
  await ctx.close();
});

test('completion from a second browser context is refused (403, no code)', async () => {
  const victim = await browser.newContext();
  const attacker = await browser.newContext();
  const page = await victim.newPage();
  await page.goto(authUrl('steal'));
  const payload = await qrPayload(page);
  const session = new URL(payload).searchParams.get('session');
  const other = await attacker.newPage();
  await other.goto(authUrl('attacker'));
  assert.equal((await approve(server, alice, payload, { page })).status, 'approved');
  const resp = await other.goto(`${server.issuer}/login-actions/consent?session=${session}`);
  assert.equal(resp.status(), 403);
  assert.ok(!other.url().startsWith(rp.url));
  // The attacker's own login never produced a callback either (its session was never approved).
  assert.equal(rp.hits.filter((h) => h.searchParams.get('state') === 'attacker').length, 0);
  // The rightful browser still finishes (consent is remembered from the first test).
  await page.waitForURL((u) => u.toString().startsWith(rp.url), { timeout: 10_000 });
  assert.equal(new URL(page.url()).searchParams.get('state'), 'steal');
  await victim.close();
  await attacker.close();
});
