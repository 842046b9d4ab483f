// OpenID CIBA poll mode with openid-client v6 (a library nobody here wrote): the client asks
// for a person by login_hint with initiateBackchannelAuthentication and polls with
// pollBackchannelAuthenticationGrant, while the scanid web app on a phone-sized Chromium lists
// the request under "Requests waiting for you" when it opens, shows it on the approval screen
// with its binding message, and approves (or denies) it. The tokens are verified with jose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { jwtVerify } from 'jose';
import { startServer, launchBrowser, cibaClient, signUpInWebApp } from './helpers.mjs';

let server, browser, config, jwks, phone, app;

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  ({ config, jwks } = await cibaClient(server, 'desk', 'Call centre'));
  // The phone signs up in the web app.
  phone = await browser.newContext(PHONE);
  app = await phone.newPage();
  await signUpInWebApp(app, server, 'gina', 'Gina Backchannel');
});

after(async () => {
  await phone?.close();
  await browser?.close();
  await server?.stop();
});

/** Opens the app's home and the one request waiting there; checks what the list says. */
async function openWaiting(message) {
  await app.goto(`${server.issuer}/app/`);
  const entry = app.locator('#waiting li');
  await entry.waitFor({ timeout: 10_000 });
  assert.equal(await entry.count(), 1);
  assert.match(await app.locator('#waiting h2').textContent(), /Requests waiting for you/);
  assert.match(await entry.textContent(), /Call centre/);
  assert.match(await entry.textContent(), new RegExp(message));
  await entry.locator('button.open-request').tap();
  // The same approval screen as a scanned login, with the binding message.
  await app.locator('#binding-message').waitFor();
  assert.equal(await app.locator('#binding-message').textContent(), message);
  assert.equal(await app.locator('#client-name').textContent(), 'Call centre');
}

test('openid-client: CIBA poll mode, approved in the web app on a phone; tokens verified with jose', async () => {
  const meta = config.serverMetadata();
  assert.equal(
    meta.backchannel_authentication_endpoint,
    `${server.issuer}/protocol/openid-connect/ext/ciba/auth`,
  );
  assert.deepEqual(meta.backchannel_token_delivery_modes_supported, ['poll', 'ping']);
  const started = await oidc.initiateBackchannelAuthentication(config, {
    scope: 'openid profile',
    login_hint: 'gina',
    binding_message: 'Till 7: 12.50',
  });
  assert.equal(started.interval, 5);
  const polling = oidc.pollBackchannelAuthenticationGrant(config, started);
  await openWaiting('Till 7: 12.50');
  await app.locator('#approve[data-armed="true"]').waitFor();
  await app.tap('#approve');
  await app.locator('#decided[data-status="approved"]').waitFor();
  const tokens = await polling;
  const { payload: id } = await jwtVerify(tokens.id_token, jwks, {
    issuer: server.issuer,
    audience: 'desk',
  });
  assert.equal(id.preferred_username, 'gina');
  assert.equal(id.nonce, undefined);
  if (id.at_hash !== undefined) {
    const digest = createHash('sha256').update(tokens.access_token).digest();
    assert.equal(id.at_hash, digest.subarray(0, 16).toString('base64url'));
  }
  const { payload: at } = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer });
  assert.equal(at.sub, id.sub);
  assert.equal(tokens.claims().sub, id.sub);
  // Decided: the home screen lists nothing any more.
  await app.goto(`${server.issuer}/app/`);
  await app.locator('#identity').waitFor();
  await app.waitForTimeout(500);
  assert.equal(await app.locator('#waiting li').count(), 0);
});

test('openid-client: a request denied in the web app polls access_denied', async () => {
  const started = await oidc.initiateBackchannelAuthentication(config, {
    scope: 'openid',
    login_hint: 'gina',
    binding_message: 'Call 12',
  });
  const polling = oidc.pollBackchannelAuthenticationGrant(config, started);
  await openWaiting('Call 12');
  await app.tap('#deny');
  await app.locator('#decided[data-status="denied"]').waitFor();
  await assert.rejects(polling, (e) => e.error === 'access_denied');
});
