// The device authorization grant (RFC 8628) driven by openid-client v6, a library nobody here
// wrote: discovery finds the device authorization endpoint, `initiateDeviceAuthorization` asks
// for the codes, `pollDeviceAuthorizationGrant` polls the token endpoint (honouring `interval`
// and `slow_down`) while the person approves: with the reference app scanning
// `verification_uri_complete`, or in Chromium by typing the code and logging in with the QR.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startServer, launchBrowser, cli, enroll, approve } from './helpers.mjs';

let server, browser, tina, config;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
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
  tina = await enroll(server, 'tina');
  config = await oidc.discovery(new URL(server.issuer), 'tv', undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('openid-client: discovery names the device authorization endpoint and grant', () => {
  const m = config.serverMetadata();
  assert.equal(
    m.device_authorization_endpoint,
    `${server.issuer}/protocol/openid-connect/auth/device`,
  );
  assert.ok(m.grant_types_supported.includes('urn:ietf:params:oauth:grant-type:device_code'));
});

test('openid-client: device grant approved by the reference app scanning verification_uri_complete', async () => {
  const d = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile' });
  assert.match(d.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  assert.equal(d.verification_uri, `${server.issuer}/device`);
  assert.equal(d.verification_uri_complete, `${server.issuer}/device?user_code=${d.user_code}`);
  assert.equal(d.interval, 5);
  // The device polls while the person scans its QR with the app and approves.
  const polling = oidc.pollDeviceAuthorizationGrant(config, d);
  const approved = await approve(server, tina, d.verification_uri_complete);
  assert.equal(approved.status, 'approved', JSON.stringify(approved));
  assert.equal(approved.user_code, d.user_code, 'the app shows the code to compare');
  const tokens = await polling;
  const claims = tokens.claims();
  assert.equal(claims.aud, 'tv');
  assert.equal(claims.iss, server.issuer);
  assert.equal(claims.preferred_username, 'tina');
  assert.ok(tokens.refresh_token);
  const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri));
  const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer });
  assert.equal(payload.azp, 'tv');
  // The refresh token works as the code flow's.
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token);
  assert.ok(refreshed.access_token);
});

test('openid-client: a refusal on the phone ends the polling with access_denied', async () => {
  const d = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
  const polling = oidc.pollDeviceAuthorizationGrant(config, d);
  const denied = await approve(server, tina, d.verification_uri_complete, true);
  assert.equal(denied.status, 'denied', JSON.stringify(denied));
  await assert.rejects(polling, (e) => e.error === 'access_denied');
});

test('Chromium: the person types the code, logs in with the QR, and the device gets tokens', async () => {
  const d = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
  const polling = oidc.pollDeviceAuthorizationGrant(config, d);
  // A browser that is not the device: another context, as on a laptop.
  const laptop = await browser.newContext();
  const page = await laptop.newPage();
  await page.goto(d.verification_uri);
  await page.fill('#user_code', d.user_code.toLowerCase());
  await page.click('button[type="submit"]');
  await page.locator('#app-link').waitFor();
  const payload = await page.locator('#app-link').getAttribute('data-qr-payload');
  const approved = await approve(server, tina, payload, { page });
  assert.equal(approved.status, 'approved', JSON.stringify(approved));
  assert.equal(approved.user_code, d.user_code);
  await page.getByText('Device connected').waitFor({ timeout: 10_000 });
  // A second context (someone else's browser) cannot finish that login.
  const other = await browser.newContext();
  const otherPage = await other.newPage();
  const r = await otherPage.goto(page.url());
  assert.equal(r.status(), 403);
  await other.close();
  await laptop.close();
  const tokens = await polling;
  assert.equal(tokens.claims().aud, 'tv');
});

test('web app: the phone opens verification_uri_complete, signs up and approves after comparing the code', async () => {
  const d = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile' });
  const polling = oidc.pollDeviceAuthorizationGrant(config, d);
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  const page = await phone.newPage();
  // The camera opens the device's QR: the verification page, offering the web app.
  await page.goto(d.verification_uri_complete);
  assert.equal(await page.locator('#user_code').inputValue(), d.user_code);
  await page.tap('#web-app-link');
  await page.locator('#signup-form').waitFor();
  await page.fill('#name', 'phone-user');
  await page.locator('#name-hint.ok').waitFor();
  await page.fill('#display-name', 'Phone User');
  await page.fill('#country', 'SE');
  await page.tap('#signup');
  await page.locator('#request').waitFor();
  assert.equal(await page.locator('#user-code').textContent(), d.user_code, 'the code to compare');
  assert.equal(await page.locator('#client-name').textContent(), 'Living room TV');
  await page.tap('#approve');
  await page.locator('#decided[data-status="approved"]').waitFor();
  await phone.close();
  const tokens = await polling;
  assert.equal(tokens.claims().preferred_username, 'phone-user');
});
